package oracle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocateOrder(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	envDir := t.TempDir()
	tests := []struct {
		rule    string
		env     string // CONFORM_ORACLE_DIR
		inside  bool   // run inside the module source tree
		noCache bool   // no HOME and no XDG_CACHE_HOME
		want    func(cache string) Location
		wantErr string
	}{
		{"CONFORM_ORACLE_DIR comes first, also inside the module", envDir, true, false,
			func(string) Location { return Location{envDir, FromEnv} }, ""},
		{"CONFORM_ORACLE_DIR comes first outside the module", envDir, false, false,
			func(string) Location { return Location{envDir, FromEnv} }, ""},
		{"inside the module, its oracle/ directory", "", true, false,
			func(string) Location { return Location{wd, FromModule} }, ""},
		{"outside the module, the embedded programs unpacked into the cache", "", false, false,
			func(cache string) Location { return Location{ExtractDir(cache), FromEmbedded} }, ""},
		{"outside the module without a cache directory, an error naming CONFORM_ORACLE_DIR", "", false, true,
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
	for i, want := range []string{"running npm ci in " + ExtractDir(cache), "node_modules is up to date"} {
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
