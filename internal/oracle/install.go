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
	"github.com/conformsuite/conform/internal/protocol"
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
//   - tfjs, ort, tflite: node and npm, with apt-get install nodejs npm
//     unless both are on PATH (without apt-get, the error says what to
//     install); then the npm packages pinned by package-lock.json, installed
//     with npm ci into the node_modules of the Location's NodeDir unless it
//     already holds them (see installNodeModules).
//
// The oracle directory is the one Locate finds: $CONFORM_ORACLE_DIR, else
// the embedded programs unpacked into the user's cache directory. Setup
// then prints the versions: Python's and NumPy's, node's and npm's, the
// npm packages', and the name and version each oracle's hello reports.
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
		if err := setupNodeTools(ctx, out); err != nil {
			return err
		}
		lock := "" // the unpacked programs' NodeDir is named by the lock file's hash
		if loc.Source == FromEnv {
			lock = filepath.Join(loc.Dir, "package-lock.json")
		}
		if err := installNodeModules(ctx, out, loc.NodeDir, loc.Dir, lock); err != nil {
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
			printable.Fprintf(out, "  %s: %s\n", p, packageVersion(loc.NodeDir, p))
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
		c, err := protocol.Start(argv, protocol.Options{})
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
	if err := aptInstall(ctx, out, "numpy", strings.Fields(want)); err != nil {
		return err
	}
	if err := checkNumPy(Python); err != nil {
		return fmt.Errorf("numpy: after apt-get install %s: %w", want, err)
	}
	return nil
}

// setupNodeTools installs node and npm through apt-get unless both are on
// PATH.
func setupNodeTools(ctx context.Context, out io.Writer) error {
	missing := missingNodeTools()
	if len(missing) == 0 {
		return nil
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("%s not on PATH: install Node.js 18 or later with npm (Debian/Ubuntu: apt-get install nodejs npm; or https://nodejs.org), then run `conform setup` again", strings.Join(missing, " and "))
	}
	debian := map[string]string{"node": "nodejs", "npm": "npm"} // the package of each tool
	var pkgs []string
	for _, tool := range missing {
		pkgs = append(pkgs, debian[tool])
	}
	if err := aptInstall(ctx, out, "node", pkgs); err != nil {
		return err
	}
	if missing := missingNodeTools(); len(missing) > 0 {
		return fmt.Errorf("node: after apt-get install %s, %s still not on PATH: install Node.js 18 or later with npm (https://nodejs.org), then run `conform setup` again", strings.Join(pkgs, " "), strings.Join(missing, " and "))
	}
	return nil
}

// missingNodeTools returns which of node and npm are not on PATH.
func missingNodeTools() []string {
	var missing []string
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	return missing
}

// aptInstall runs apt-get update and apt-get install -y pkgs, through sudo
// when not root; what names the step in the output and errors.
func aptInstall(ctx context.Context, out io.Writer, what string, pkgs []string) error {
	var sudo []string
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			return fmt.Errorf("%s: installing %s needs root: run `apt-get install -y %s` as root, then `conform setup` again", what, strings.Join(pkgs, " "), strings.Join(pkgs, " "))
		}
		// sudo resets the environment: env passes the variable through.
		sudo = []string{"sudo", "env", "DEBIAN_FRONTEND=noninteractive"}
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	for _, args := range [][]string{
		{"apt-get", "update"},
		append([]string{"apt-get", "install", "-y"}, pkgs...),
	} {
		argv := append(slices.Clone(sudo), args...)
		fmt.Fprintf(out, "setup: %s: running %s\n", what, strings.Join(argv, " "))
		if err := run(ctx, out, "", env, argv); err != nil {
			return fmt.Errorf("%s: %s: %w", what, strings.Join(argv, " "), err)
		}
	}
	return nil
}

// installNodeModules makes root/node_modules hold the npm packages pinned
// by pkgDir's package.json and package-lock.json, unless it already does
// (see nodeModulesCurrent; lock, if not "", is the lock file node_modules
// must not be older than). It never changes a node_modules in place, so
// an oracle running from it keeps working, and two setups at once do not
// install into one directory:
//
//   - it holds an exclusive lock on root/.setup.lock while installing (a
//     second setup waits, then finds the packages installed);
//   - npm ci runs in a fresh temporary directory root/.tmp-node-*, holding
//     a copy of the two package files;
//   - the complete node_modules is renamed to root/node_modules; one that
//     was there (incomplete, or older than the lock file) is first moved
//     aside, then removed.
//
// Temporary directories left by a setup that was killed are removed under
// the lock.
func installNodeModules(ctx context.Context, out io.Writer, root, pkgDir, lock string) error {
	nm := filepath.Join(root, "node_modules")
	if nodeModulesCurrent(root, lock) {
		printable.Fprintf(out, "setup: npm: %s is up to date\n", nm)
		return nil
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return fmt.Errorf("npm: %w", err)
	}
	unlock, err := lockFile(ctx, out, filepath.Join(root, ".setup.lock"))
	if err != nil {
		return fmt.Errorf("npm: %w", err)
	}
	defer unlock()
	if nodeModulesCurrent(root, lock) {
		printable.Fprintf(out, "setup: npm: %s was installed by another conform setup meanwhile\n", nm)
		return nil
	}
	for _, pattern := range []string{".tmp-node-*", ".old-node_modules-*"} {
		left, _ := filepath.Glob(filepath.Join(root, pattern))
		for _, p := range left {
			os.RemoveAll(p)
		}
	}
	tmp, err := os.MkdirTemp(root, ".tmp-node-")
	if err != nil {
		return fmt.Errorf("npm: %w", err)
	}
	defer os.RemoveAll(tmp) // holds nothing after a successful rename
	for _, f := range nodeFiles {
		data, err := os.ReadFile(filepath.Join(pkgDir, f))
		if err != nil {
			return fmt.Errorf("npm: %w", err)
		}
		if err := os.WriteFile(filepath.Join(tmp, f), data, 0o644); err != nil {
			return fmt.Errorf("npm: %w", err)
		}
	}
	printable.Fprintf(out, "setup: npm: running npm ci in %s, for %s\n", tmp, nm)
	// onnxruntime-node's install script would download extra (GPU) files,
	// which are not needed: the CPU library ships inside the package.
	env := append(os.Environ(), "ONNXRUNTIME_NODE_INSTALL=skip")
	if err := run(ctx, out, tmp, env, []string{"npm", "ci", "--no-audit", "--no-fund"}); err != nil {
		return fmt.Errorf("npm ci in %s: %w", tmp, err)
	}
	if !nodeModulesCurrent(tmp, "") {
		return fmt.Errorf("npm ci in %s did not install every pinned package", tmp)
	}
	if _, err := os.Lstat(nm); err == nil {
		old := filepath.Join(root, fmt.Sprintf(".old-node_modules-%d", os.Getpid()))
		if err := os.Rename(nm, old); err != nil {
			return fmt.Errorf("npm: replacing %s: %w", nm, err)
		}
		defer os.RemoveAll(old)
	}
	if err := os.Rename(filepath.Join(tmp, "node_modules"), nm); err != nil {
		return fmt.Errorf("npm: %w", err)
	}
	printable.Fprintf(out, "setup: npm: installed %s\n", nm)
	return nil
}

// nodeModulesCurrent reports whether dir/node_modules holds what the
// oracles need: a completed npm ci (npm records what it installed in
// node_modules/.package-lock.json, at the end), every oracle's packages
// and TFLite's WebAssembly build; and, if lock is not "", the install is
// not older than the lock file at that path.
func nodeModulesCurrent(dir, lock string) bool {
	hidden, err := os.Stat(filepath.Join(dir, "node_modules", ".package-lock.json"))
	if err != nil {
		return false
	}
	if lock != "" {
		l, err := os.Stat(lock)
		if err != nil || hidden.ModTime().Before(l.ModTime()) {
			return false
		}
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
