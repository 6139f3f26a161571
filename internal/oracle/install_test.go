package oracle

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/conformsuite/conform/internal/protocol"
)

func TestLocateOrder(t *testing.T) {
	envDir := t.TempDir()
	tests := []struct {
		rule    string
		env     string // CONFORM_ORACLE_DIR
		inside  bool   // run inside the module source tree (this package's directory)
		noCache bool   // no HOME and no XDG_CACHE_HOME
		want    func(cache string) Location
		wantErr string
	}{
		{"CONFORM_ORACLE_DIR comes first, also inside the module", envDir, true, false,
			func(string) Location { return Location{envDir, envDir, FromEnv} }, ""},
		{"CONFORM_ORACLE_DIR comes first outside the module", envDir, false, false,
			func(string) Location { return Location{envDir, envDir, FromEnv} }, ""},
		{"inside the module, still the embedded programs unpacked into the cache", "", true, false,
			func(cache string) Location { return Location{ExtractDir(cache), NodeDir(cache), FromEmbedded} }, ""},
		{"outside the module, the embedded programs unpacked into the cache", "", false, false,
			func(cache string) Location { return Location{ExtractDir(cache), NodeDir(cache), FromEmbedded} }, ""},
		{"without a cache directory, an error naming CONFORM_ORACLE_DIR", "", false, true,
			nil, "CONFORM_ORACLE_DIR"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cache := t.TempDir()
			t.Setenv("CONFORM_ORACLE_DIR", tt.env)
			t.Setenv("XDG_CACHE_HOME", cache)
			t.Setenv("HOME", cache)
			if tt.noCache {
				t.Setenv("XDG_CACHE_HOME", "")
				t.Setenv("HOME", "")
			}
			if !tt.inside {
				t.Chdir(t.TempDir())
			}
			got, err := Locate()
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Locate() = %v, %v; want an error naming %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if want := tt.want(cache); got != want {
				t.Errorf("Locate() = %+v, want %+v", got, want)
			}
			if got.Source == FromEmbedded {
				checkExtracted(t, got.Dir)
			}
		})
	}
}

// TestLocateIgnoresTheWorkingDirectory runs the oracles inside a tree
// that looks like conform's source (a go.mod declaring its module path)
// with hostile oracle programs: they are never run, nor is npm run there.
func TestLocateIgnoresTheWorkingDirectory(t *testing.T) {
	tree := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	files := map[string]string{
		"go.mod":                            "module github.com/conformsuite/conform\n\ngo 1.24\n",
		"internal/oracle/numpy/oracle.py":   "open(" + strconv.Quote(marker) + ", 'w').write('numpy')\n",
		"internal/oracle/tfjs/oracle.js":    "require('fs').writeFileSync(" + strconv.Quote(marker) + ", 'tfjs')\n",
		"internal/oracle/package.json":      `{"scripts": {"preinstall": "touch ` + marker + `"}}`,
		"internal/oracle/package-lock.json": "{}",
	}
	for name, body := range files {
		p := filepath.Join(tree, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	sub := filepath.Join(tree, "cases")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	t.Setenv("CONFORM_ORACLE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", cache)
	for _, wd := range []string{tree, sub} {
		t.Chdir(wd)
		loc, err := Locate()
		if err != nil {
			t.Fatal(err)
		}
		if want := (Location{ExtractDir(cache), NodeDir(cache), FromEmbedded}); loc != want {
			t.Errorf("Locate() in %s = %+v, want %+v", wd, loc, want)
		}
		if !haveNumPy() {
			t.Logf("NumPy not installed: the numpy oracle is not started")
			continue
		}
		argv, err := Command("numpy")
		if err != nil {
			t.Fatal(err)
		}
		c, err := protocol.Start(argv, protocol.Options{Stderr: testWriter{t}})
		if err != nil {
			t.Errorf("%q: %v", argv, err)
			continue
		}
		if h := c.Hello(); h.Name != "numpy" {
			t.Errorf("hello = %+v, want the embedded NumPy oracle's", h)
		}
		c.Close()
	}
	if data, err := os.ReadFile(marker); err == nil {
		t.Errorf("the working directory's internal/oracle/ ran (%s)", data)
	}
	// conform setup installs the node packages in the cache, not there.
	npm := fakeNPM(t, "")
	t.Setenv("PATH", npm.bin)
	err := Setup(context.Background(), SetupOptions{Oracles: []string{"tfjs"}})
	if err == nil {
		t.Fatal("Setup with a fake node succeeded") // the fake node cannot say hello
	}
	runs := npm.runs(t)
	if len(runs) != 1 || !strings.HasPrefix(runs[0], NodeDir(cache)+string(filepath.Separator)) {
		t.Errorf("npm ci ran in %q, want once below %s", runs, NodeDir(cache))
	}
	if !nodeModulesCurrent(NodeDir(cache), "") {
		t.Errorf("Setup did not install node_modules into %s", NodeDir(cache))
	}
}

// fakeNPMTools is a directory with a fake node (which exits at once) and
// a fake npm whose "npm ci" writes a complete node_modules into its working
// directory after a pause, logging each run.
type fakeNPMTools struct {
	bin string // the directory to put on PATH
	log string // one line per npm run: its working directory, or "CONCURRENT <dir>"
}

// fakeNPM returns the fake tools. A run that starts while another runs
// logs "CONCURRENT" and fails. If watch is not "", each run also checks
// that the directory watch/node_modules still holds a file "in-use"
// (logging "CHANGED" otherwise), i.e. that nothing changes a node_modules
// in use while npm runs.
func fakeNPM(t *testing.T, watch string) fakeNPMTools {
	t.Helper()
	bin := t.TempDir()
	state := t.TempDir()
	f := fakeNPMTools{bin: bin, log: filepath.Join(state, "log")}
	var pkgs []string
	for _, ps := range nodePackages {
		pkgs = append(pkgs, ps...)
	}
	script := `#!/bin/sh
[ "$1" = ci ] || exit 2
log=` + strconv.Quote(f.log) + `
if ! mkdir ` + strconv.Quote(filepath.Join(state, "running")) + ` 2>/dev/null; then
	echo "CONCURRENT $PWD" >>"$log"
	exit 1
fi
echo "$PWD" >>"$log"
watch=` + strconv.Quote(watch) + `
sleep 0.2
if [ -n "$watch" ] && [ ! -e "$watch/node_modules/in-use" ]; then
	echo "CHANGED $watch/node_modules" >>"$log"
fi
for p in ` + strings.Join(pkgs, " ") + `; do
	mkdir -p "node_modules/$p"
	echo '{"version": "1.0.0"}' >"node_modules/$p/package.json"
done
mkdir -p node_modules/@tensorflow/tfjs-tflite/wasm
: >node_modules/@tensorflow/tfjs-tflite/wasm/tflite_web_api_cc.wasm
echo '{}' >node_modules/.package-lock.json
rmdir ` + strconv.Quote(filepath.Join(state, "running")) + `
`
	for name, body := range map[string]string{"npm": script, "node": "#!/bin/sh\nexit 1\n"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The shell tools the script uses, on the PATH of the test.
	for _, tool := range []string{"sh", "mkdir", "sleep", "rmdir"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// runs returns the lines of the fake npm's log.
func (f fakeNPMTools) runs(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(f.log)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// TestInstallNodeModulesConcurrently runs two node package installs at
// once into one directory, as two conform setup runs do: they must not
// both run npm (nor in the directory node loads packages from), and they
// must leave a complete node_modules and nothing else.
func TestInstallNodeModulesConcurrently(t *testing.T) {
	tests := []struct {
		rule  string
		cache bool // the unpacked programs (else a CONFORM_ORACLE_DIR)
		stale bool // a node_modules older than the lock file is there, in use
	}{
		{"two installs below the cache run npm once, outside the directory in use", true, false},
		{"two installs into CONFORM_ORACLE_DIR run npm once, outside the directory in use", false, false},
		{"an outdated node_modules in use is replaced by a rename, never changed in place", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			var root, pkgDir, lock string
			if tt.cache {
				cache := t.TempDir()
				dir, err := Extract(cache)
				if err != nil {
					t.Fatal(err)
				}
				root, pkgDir = NodeDir(cache), dir
			} else {
				root = t.TempDir()
				if err := os.CopyFS(root, Programs()); err != nil {
					t.Fatal(err)
				}
				pkgDir, lock = root, filepath.Join(root, "package-lock.json")
			}
			watch := ""
			if tt.stale {
				inUse := filepath.Join(root, "node_modules", "in-use")
				if err := os.MkdirAll(filepath.Dir(inUse), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(inUse, nil, 0o644); err != nil {
					t.Fatal(err)
				}
				watch = root
			}
			npm := fakeNPM(t, watch)
			t.Setenv("PATH", npm.bin)
			var wg sync.WaitGroup
			errs := make([]error, 2)
			outs := make([]bytes.Buffer, 2)
			for i := range errs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					errs[i] = installNodeModules(context.Background(), &outs[i], root, pkgDir, lock)
				}()
			}
			wg.Wait()
			for i, err := range errs {
				if err != nil {
					t.Errorf("install %d: %v\n%s", i+1, err, outs[i].String())
				}
			}
			runs := npm.runs(t)
			if len(runs) != 1 {
				t.Errorf("npm ran %d times (%q), want once", len(runs), runs)
			}
			for _, r := range runs {
				if filepath.Dir(r) != root || !strings.HasPrefix(filepath.Base(r), ".tmp-node-") {
					t.Errorf("npm ran in %s, want a fresh directory %s/.tmp-node-*", r, root)
				}
			}
			if !nodeModulesCurrent(root, lock) {
				t.Errorf("no complete node_modules in %s", root)
			}
			if _, err := os.Stat(filepath.Join(root, "node_modules", "in-use")); err == nil {
				t.Errorf("the outdated node_modules is still there")
			}
			entries, err := os.ReadDir(root)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if n := e.Name(); strings.HasPrefix(n, ".tmp-node-") || strings.HasPrefix(n, ".old-node_modules-") {
					t.Errorf("the installs left %s", n)
				}
			}
		})
	}
}

// TestInstallNodeModulesKeepsThePackages checks that a new version of the
// oracle programs with the same lock file uses the node packages already
// installed: they are keyed by the lock file, not by the programs.
func TestInstallNodeModulesKeepsThePackages(t *testing.T) {
	cache := t.TempDir()
	dir, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	npm := fakeNPM(t, "")
	t.Setenv("PATH", npm.bin)
	if err := installNodeModules(context.Background(), io.Discard, NodeDir(cache), dir, ""); err != nil {
		t.Fatal(err)
	}
	// Other programs, unpacked next to these: node finds the packages
	// from there, and installing again runs no npm.
	other := filepath.Join(NodeDir(cache), "oracle-0123456789abcdef")
	if err := os.CopyFS(other, Programs()); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := installNodeModules(context.Background(), &out, NodeDir(cache), other, ""); err != nil {
		t.Fatal(err)
	}
	if runs := npm.runs(t); len(runs) != 1 {
		t.Errorf("npm ran %d times (%q), want once", len(runs), runs)
	}
	if !strings.Contains(out.String(), "is up to date") {
		t.Errorf("the second install did not find the packages up to date:\n%s", out.String())
	}
}

// writeScript writes an executable shell script and returns its path.
func writeScript(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestNotInstalledErrorsNameSetup(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	// A fake node on an otherwise empty PATH: the node_modules checks do
	// not depend on a real one.
	fakeBin := t.TempDir()
	if err := os.Symlink(writeScript(t, "exit 0"), filepath.Join(fakeBin, "node")); err != nil {
		t.Fatal(err)
	}
	withModules := func(pkgs ...string) string {
		dir := t.TempDir()
		for _, p := range pkgs {
			pj := filepath.Join(dir, "node_modules", filepath.FromSlash(p), "package.json")
			if err := os.MkdirAll(filepath.Dir(pj), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(pj, []byte(`{"version": "1.0.0"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	tests := []struct {
		rule   string
		oracle string
		dir    string
		path   string // PATH
		python string
		want   string // besides "run `conform setup`"
	}{
		{"no node_modules", "tfjs", t.TempDir(), fakeBin, Python, "node_modules missing in"},
		{"node_modules without the oracle's package", "ort", withModules("@tensorflow/tfjs-core"), fakeBin, Python, "onnxruntime-node missing in"},
		{"node_modules without tfjs-tflite", "tflite", withModules("onnxruntime-node"), fakeBin, Python, "@tensorflow/tfjs-tflite missing in"},
		{"no node on PATH", "tfjs", withModules("@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu"), t.TempDir(), Python, "node is not on PATH"},
		{"no Python", "numpy", t.TempDir(), fakeBin, "/nonexistent/python3", "/nonexistent/python3 not found"},
		{"a Python without NumPy", "numpy", t.TempDir(), fakeBin, writeScript(t, "echo 'ModuleNotFoundError: no numpy' >&2; exit 1"), "cannot import NumPy (ModuleNotFoundError: no numpy"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Setenv("PATH", tt.path)
			defer func(p string) { Python = p }(Python)
			Python = tt.python
			err := Installed(tt.oracle, tt.dir)
			if err == nil || !strings.Contains(err.Error(), SetupHint) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Installed(%s) = %v, want an error with %q and %q", tt.oracle, err, tt.want, SetupHint)
			}
		})
	}
	// Command says the same, naming the oracle and the directory.
	cache := t.TempDir()
	dir, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONFORM_ORACLE_DIR", dir)
	t.Setenv("PATH", fakeBin)
	want := "oracle tfjs: node_modules missing in " + dir + ": run `conform setup`"
	if _, err := Command("tfjs"); err == nil || err.Error() != want {
		t.Errorf("Command(tfjs) = %v, want %q", err, want)
	}
	// The unpacked programs look for node_modules in the directory above.
	t.Setenv("CONFORM_ORACLE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", cache)
	want = "oracle tfjs: node_modules missing in " + NodeDir(cache) + ": run `conform setup`"
	if _, err := Command("tfjs"); err == nil || err.Error() != want {
		t.Errorf("Command(tfjs) = %v, want %q", err, want)
	}
}

func TestSetupSaysWhatToInstall(t *testing.T) {
	dir, err := Extract(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule    string
		oracles []string
		python  string
		want    []string
	}{
		{"without NumPy or apt-get, the packages to install", []string{"numpy"}, "/nonexistent/python3",
			[]string{"apt-get is not available", "python3 python3-numpy", "conform setup"}},
		{"without node and npm, what to install", []string{"tfjs"}, Python,
			[]string{"node and npm not on PATH", "install Node.js", "apt-get install nodejs npm"}},
		{"an unknown oracle is refused", []string{"torch"}, Python,
			[]string{`unknown oracle "torch"`}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Setenv("CONFORM_ORACLE_DIR", dir)
			t.Setenv("PATH", t.TempDir()) // no apt-get, sudo, node or npm
			defer func(p string) { Python = p }(Python)
			Python = tt.python
			var out bytes.Buffer
			err := Setup(context.Background(), SetupOptions{Oracles: tt.oracles, Out: &out})
			if err == nil {
				t.Fatalf("Setup succeeded without the tools; output:\n%s", out.String())
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Setup error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestSetupInstallsNodeWithApt checks that a machine without node or npm
// gets them from apt-get (a fake one here, which installs fake tools), as
// on a fresh CI machine.
func TestSetupInstallsNodeWithApt(t *testing.T) {
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "log")
	scripts := map[string]string{
		// apt-get logs its arguments; "install" puts node and npm on PATH.
		"apt-get": `echo "apt-get $*" >>` + strconv.Quote(log) + `
[ "$1" = install ] || exit 0
for tool in node npm; do printf '#!/bin/sh\nexit 0\n' >` + strconv.Quote(bin) + `/$tool; chmod +x ` + strconv.Quote(bin) + `/$tool; done`,
		// sudo env VAR=VALUE cmd...: run cmd.
		"sudo": `shift 2; exec "$@"`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"sh", "chmod", "printf"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	if err := setupNodeTools(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := "apt-get update\napt-get install -y nodejs npm\n"; string(data) != want {
		t.Errorf("apt-get ran as\n%s\nwant\n%s", data, want)
	}
	// With node and npm there, nothing more is installed.
	if err := setupNodeTools(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(log); !bytes.Equal(again, data) {
		t.Errorf("apt-get ran again with node and npm on PATH:\n%s", again)
	}
}

// TestSetupInstalls really runs apt-get (when NumPy is missing) and npm ci
// into a fresh cache directory outside the module; it needs the network,
// so it runs only with CONFORM_TEST_SETUP=1.
func TestSetupInstalls(t *testing.T) {
	if os.Getenv("CONFORM_TEST_SETUP") != "1" {
		t.Skip("set CONFORM_TEST_SETUP=1 to run apt-get and npm ci")
	}
	cache := t.TempDir()
	t.Setenv("CONFORM_ORACLE_DIR", "")
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Chdir(t.TempDir())
	for i, want := range []string{"running npm ci in " + filepath.Join(NodeDir(cache), ".tmp-node-"), "node_modules is up to date"} {
		var out bytes.Buffer
		if err := Setup(context.Background(), SetupOptions{Out: &out}); err != nil {
			t.Fatalf("Setup #%d: %v\n%s", i+1, err, out.String())
		}
		for _, w := range []string{want, "numpy: 1.", "@tensorflow/tfjs-core: 4.22.0", "onnxruntime-node: 1.30.0", "oracle tflite: ready", "setup: done"} {
			if !strings.Contains(out.String(), w) {
				t.Errorf("Setup #%d output lacks %q:\n%s", i+1, w, out.String())
			}
		}
	}
	for _, name := range Names {
		argv, err := Command(name)
		if err != nil {
			t.Errorf("Command(%s) after Setup: %v", name, err)
			continue
		}
		if !strings.HasPrefix(argv[len(argv)-1], ExtractDir(cache)) {
			t.Errorf("Command(%s) = %q, want a program in %s", name, argv, ExtractDir(cache))
		}
	}
}
