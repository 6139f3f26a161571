package oracle

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/conformsuite/conform/internal/printable"
)

// SetupOptions configures Setup.
type SetupOptions struct {
	// Oracles are the oracles to install (Names when empty).
	Oracles []string
	// Out receives what Setup does and the versions it finds; the output
	// of apt-get and npm goes there too. Nil discards it.
	Out io.Writer
}

// Setup installs what the oracles need, idempotently, and checks that
// each of them starts:
//
//   - numpy: NumPy for Python, with apt-get install python3-numpy (through
//     sudo when not root) unless Python already imports it; without apt-get,
//     the error says what to install.
//   - tfjs, ort, tflite: node and npm must be on PATH (the error says what
//     to install otherwise); the npm packages pinned by package-lock.json
//     are installed with npm ci into the oracle directory (see Locate:
//     the source tree's oracle/ inside the module, else the programs
//     unpacked into the user's cache directory), unless node_modules
//     already holds them.
//
// It then prints the versions: Python's and NumPy's, node's and npm's,
// the npm packages', and the name and version each oracle's hello
// reports.
func Setup(ctx context.Context, opts SetupOptions) error {
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	names := opts.Oracles
	if len(names) == 0 {
		names = Names
	}
	for _, n := range names {
		if !slices.Contains(Names, n) {
			return fmt.Errorf("unknown oracle %q (the oracles: %s)", n, strings.Join(Names, ", "))
		}
	}
	loc, err := Locate()
	if err != nil {
		return err
	}
	printable.Fprintf(out, "setup: oracle directory %s (%s)\n", loc.Dir, loc.Source)

	if slices.Contains(names, "numpy") {
		if err := setupNumPy(ctx, out); err != nil {
			return err
		}
	}
	var node []string
	for _, n := range names {
		if _, ok := nodePackages[n]; ok {
			node = append(node, n)
		}
	}
	if len(node) > 0 {
		if err := setupNode(ctx, out, loc.Dir); err != nil {
			return err
		}
	}

	fmt.Fprintln(out, "setup: versions:")
	if slices.Contains(names, "numpy") {
		printable.Fprintf(out, "  python3: %s (%s)\n", firstLine(ctx, Python, "--version"), Python)
		printable.Fprintf(out, "  numpy: %s\n", firstLine(ctx, Python, "-I", "-c", "import numpy; print(numpy.__version__)"))
	}
	if len(node) > 0 {
		printable.Fprintf(out, "  node: %s\n", firstLine(ctx, "node", "--version"))
		printable.Fprintf(out, "  npm: %s\n", firstLine(ctx, "npm", "--version"))
		var pkgs []string
		for _, n := range node {
			for _, p := range nodePackages[n] {
				if !slices.Contains(pkgs, p) {
					pkgs = append(pkgs, p)
				}
			}
		}
		for _, p := range pkgs {
			printable.Fprintf(out, "  %s: %s\n", p, packageVersion(loc.Dir, p))
		}
	}

	// Each oracle must start and say hello: this also loads ONNX Runtime's
	// native library and compiles TFLite's WebAssembly build.
	var failed []string
	for _, n := range names {
		argv, err := Command(n)
		if err != nil {
			return err
		}
		c, err := Start(argv, Options{})
		if err != nil {
			printable.Fprintf(out, "  oracle %s: does not start: %v\n", n, err)
			failed = append(failed, n)
			continue
		}
		h := c.Hello()
		c.Close()
		printable.Fprintf(out, "  oracle %s: ready (%s %s)\n", n, h.Name, h.Version)
	}
	if len(failed) > 0 {
		return fmt.Errorf("oracles installed but not starting: %s", strings.Join(failed, ", "))
	}
	fmt.Fprintln(out, "setup: done")
	return nil
}

// setupNumPy installs NumPy for Python through apt-get unless Python
// already imports it.
func setupNumPy(ctx context.Context, out io.Writer) error {
	if checkNumPy(Python) == nil {
		fmt.Fprintf(out, "setup: numpy: %s already imports NumPy\n", Python)
		return nil
	}
	want := "python3-numpy"
	if _, err := os.Stat(Python); err != nil {
		want = "python3 python3-numpy"
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("numpy: %s cannot import NumPy and apt-get is not available: install NumPy 1.24 for %s (Debian/Ubuntu: %s), then run `conform setup` again", Python, Python, want)
	}
	var sudo []string
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			return fmt.Errorf("numpy: %s cannot import NumPy, and installing it needs root: run `apt-get install -y %s` as root, then `conform setup` again", Python, want)
		}
		// sudo resets the environment: env passes the variable through.
		sudo = []string{"sudo", "env", "DEBIAN_FRONTEND=noninteractive"}
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{
		{"apt-get", "update"},
		append([]string{"apt-get", "install", "-y"}, strings.Fields(want)...),
	} {
		argv := append(slices.Clone(sudo), args...)
		fmt.Fprintf(out, "setup: numpy: running %s\n", strings.Join(argv, " "))
		if err := run(ctx, out, "", env, argv); err != nil {
			return fmt.Errorf("numpy: %s: %w", strings.Join(argv, " "), err)
		}
	}
	if err := checkNumPy(Python); err != nil {
		return fmt.Errorf("numpy: after apt-get install %s: %w", want, err)
	}
	return nil
}

// setupNode checks for node and npm and installs the pinned npm packages
// in dir with npm ci unless node_modules already holds them.
func setupNode(ctx context.Context, out io.Writer, dir string) error {
	var missing []string
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%s not on PATH: install Node.js 18 or later with npm (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org), then run `conform setup` again", strings.Join(missing, " and "))
	}
	if nodeModulesCurrent(dir) {
		printable.Fprintf(out, "setup: npm: %s is up to date\n", filepath.Join(dir, "node_modules"))
		return nil
	}
	printable.Fprintf(out, "setup: npm: running npm ci in %s\n", dir)
	// onnxruntime-node's install script would download extra (GPU) files,
	// which are not needed: the CPU library ships inside the package.
	env := append(os.Environ(), "ONNXRUNTIME_NODE_INSTALL=skip")
	if err := run(ctx, out, dir, env, []string{"npm", "ci", "--no-audit", "--no-fund"}); err != nil {
		return fmt.Errorf("npm ci in %s: %w", dir, err)
	}
	if !nodeModulesCurrent(dir) {
		return fmt.Errorf("npm ci in %s did not install every pinned package", dir)
	}
	return nil
}

// nodeModulesCurrent reports whether dir/node_modules holds what
// package-lock.json pins: npm ci completed after the lock file was
// written (npm records what it installed in node_modules/.package-lock.json)
// and every oracle's packages are there.
func nodeModulesCurrent(dir string) bool {
	lock, err := os.Stat(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return false
	}
	hidden, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil || hidden.ModTime().Before(lock.ModTime()) {
		return false
	}
	for _, pkgs := range nodePackages {
		for _, p := range pkgs {
			if packageVersion(dir, p) == "" {
				return false
			}
		}
	}
	_, err = os.Stat(filepath.Join(dir, "node_modules", "@tensorflow", "tfjs-tflite", "wasm", "tflite_web_api_cc.wasm"))
	return err == nil
}

// packageVersion returns the version of the npm package p installed in
// dir/node_modules, or "".
func packageVersion(dir, p string) string {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Version string `json:"version"`
	}
	if json.Unmarshal(data, &pkg) != nil {
		return ""
	}
	return pkg.Version
}

// run runs argv in dir with env, its output going to out.
func run(ctx context.Context, out io.Writer, dir string, env, argv []string) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.Stdin = nil
	cmd.WaitDelay = 5 * time.Second
	return cmd.Run()
}

// firstLine returns the first line argv prints, or the error.
func firstLine(ctx context.Context, argv ...string) string {
	b, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && s != "" {
			return "error: " + s
		}
		return "error: " + err.Error()
	}
	return s
}
