// Package oracle holds the oracle programs (NumPy, TF.js, ONNX Runtime,
// TFLite), embedded in the binary, and installs them: Command returns the
// command line that starts one, Names lists them, Setup installs their
// dependencies. The programs speak conform/1; package
// internal/protocol runs them.
package oracle

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// Names lists the oracles Command knows by name.
var Names = []string{"numpy", "tfjs", "ort", "tflite"}

// Python is the interpreter that runs the NumPy oracle: Debian's
// /usr/bin/python3 with python3-numpy (the python3 first on PATH may lack
// NumPy). Tests may change it.
var Python = "/usr/bin/python3"

// nodePackages names, for each node oracle, the npm packages it loads
// from node_modules.
var nodePackages = map[string][]string{
	"tfjs":   {"@tensorflow/tfjs-core", "@tensorflow/tfjs-backend-cpu"},
	"ort":    {"onnxruntime-node"},
	"tflite": {"@tensorflow/tfjs-tflite"},
}

// SetupHint is what every error meaning "an oracle is not installed"
// tells the user to run.
const SetupHint = "run `conform setup`"

// Command returns the command line that runs the implementation impl:
// "numpy" runs numpy/oracle.py with Python, "tfjs" runs tfjs/oracle.js,
// "ort" ort/oracle.js and "tflite" tflite/oracle.js with node, each in the
// oracle directory (see Locate).
// Anything else is taken as a command line and split into words at white
// space; single quotes, double quotes and backslashes work as in a POSIX
// shell (without expansions).
//
// For an oracle, Command also checks that it can run: Python imports
// NumPy, or node is on PATH and the oracle's npm packages are in the
// node_modules of the Location's NodeDir. An error that means something is not
// installed says to run "conform setup".
func Command(impl string) ([]string, error) {
	var interp, script string
	switch impl {
	case "numpy":
		interp, script = Python, filepath.Join("numpy", "oracle.py")
	case "tfjs", "ort", "tflite":
		interp, script = "node", filepath.Join(impl, "oracle.js")
	default:
		argv, err := SplitCommand(impl)
		if err != nil {
			return nil, err
		}
		return argv, nil
	}
	loc, err := Locate()
	if err != nil {
		return nil, fmt.Errorf("oracle %s: %w", impl, err)
	}
	path := filepath.Join(loc.Dir, script)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("oracle %s: %w", impl, err)
	}
	if err := Installed(impl, loc.NodeDir); err != nil {
		return nil, fmt.Errorf("oracle %s: %w", impl, err)
	}
	return []string{interp, path}, nil
}

// numpyOK caches the interpreters found to import NumPy.
var numpyOK sync.Map

// Installed returns nil if what the oracle name needs is installed (for a
// node oracle: node, and its packages in dir/node_modules), and otherwise
// an error that says what is missing and to run "conform setup".
func Installed(name, dir string) error {
	if name == "numpy" {
		if _, ok := numpyOK.Load(Python); ok {
			return nil
		}
		if err := checkNumPy(Python); err != nil {
			return fmt.Errorf("%v: %s", err, SetupHint)
		}
		numpyOK.Store(Python, true)
		return nil
	}
	pkgs, ok := nodePackages[name]
	if !ok {
		return fmt.Errorf("unknown oracle %q (the oracles: %s)", name, strings.Join(Names, ", "))
	}
	if _, err := exec.LookPath("node"); err != nil {
		return fmt.Errorf("node is not on PATH (install Node.js 18 or later and npm, e.g. apt-get install nodejs npm), then %s", SetupHint)
	}
	nm := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(nm); err != nil {
		return fmt.Errorf("node_modules missing in %s: %s", dir, SetupHint)
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(nm, filepath.FromSlash(p), "package.json")); err != nil {
			return fmt.Errorf("%s missing in %s: %s", p, nm, SetupHint)
		}
	}
	return nil
}

// checkNumPy returns nil if python imports NumPy (in isolated mode: no
// user site-packages, no PYTHON* variables, as the oracle would see them
// on another machine).
func checkNumPy(python string) error {
	if _, err := os.Stat(python); err != nil {
		return fmt.Errorf("%s not found (install python3 and python3-numpy)", python)
	}
	out, err := exec.Command(python, "-I", "-c", "import numpy").CombinedOutput()
	if err != nil {
		msg := strings.TrimSpace(string(out))
		if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
			msg = msg[i+1:]
		}
		return fmt.Errorf("%s cannot import NumPy (%s; install python3-numpy)", python, msg)
	}
	return nil
}

// Source says where Locate found the oracle directory.
type Source string

// The places the oracle directory comes from.
const (
	FromEnv      Source = "CONFORM_ORACLE_DIR"
	FromEmbedded Source = "unpacked from the binary"
)

// Location is the oracle directory, the directory whose node_modules
// holds the node oracles' packages, and where they come from.
type Location struct {
	// Dir holds the oracle programs.
	Dir string
	// NodeDir holds (or is to hold) node_modules: Dir itself for
	// $CONFORM_ORACLE_DIR, the parent of Dir for the unpacked programs
	// (node finds it by walking up from a script's directory).
	NodeDir string
	Source  Source
}

// Locate finds the directory holding the oracle programs: $CONFORM_ORACLE_DIR
// if set (a directory the user names explicitly), else the programs
// embedded in the binary, unpacked by Extract into the user's cache
// directory (os.UserCacheDir, e.g. ~/.cache/conform/node-<hash>/oracle-<hash>).
// It never runs programs found in the working directory or next to the
// executable: a conform source tree there is just files.
func Locate() (Location, error) {
	if d := os.Getenv("CONFORM_ORACLE_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return Location{}, err
		}
		return Location{abs, abs, FromEnv}, nil
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return Location{}, fmt.Errorf("cannot find the oracle directory: no cache directory to unpack the oracle programs into (%v): set CONFORM_ORACLE_DIR or XDG_CACHE_HOME", err)
	}
	dir, err := Extract(cache)
	if err != nil {
		return Location{}, fmt.Errorf("cannot find the oracle directory: %w (or set CONFORM_ORACLE_DIR)", err)
	}
	return Location{dir, NodeDir(cache), FromEmbedded}, nil
}

// Dir returns the directory holding the oracle programs, located as
// Locate describes.
func Dir() (string, error) {
	loc, err := Locate()
	return loc.Dir, err
}

// SplitCommand splits a command line into words the way a POSIX shell
// does, without any expansion: words are separated by unquoted white
// space; single quotes keep everything literally; double quotes keep
// everything but a backslash before ", \, $ or `; an unquoted backslash
// keeps the next character.
func SplitCommand(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\'':
			inWord = true
			j := i + 1
			for j < len(rs) && rs[j] != '\'' {
				j++
			}
			if j == len(rs) {
				return nil, fmt.Errorf("command %q: unterminated single quote", s)
			}
			cur.WriteString(string(rs[i+1 : j]))
			i = j
		case r == '"':
			inWord = true
			j := i + 1
			for ; j < len(rs) && rs[j] != '"'; j++ {
				if rs[j] == '\\' && j+1 < len(rs) && strings.ContainsRune("\"\\$`", rs[j+1]) {
					j++
				}
				cur.WriteRune(rs[j])
			}
			if j == len(rs) {
				return nil, fmt.Errorf("command %q: unterminated double quote", s)
			}
			i = j
		case r == '\\':
			if i+1 == len(rs) {
				return nil, fmt.Errorf("command %q: trailing backslash", s)
			}
			inWord = true
			i++
			cur.WriteRune(rs[i])
		case unicode.IsSpace(r):
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			inWord = true
			cur.WriteRune(r)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	if len(words) == 0 {
		return nil, fmt.Errorf("empty command %q", s)
	}
	return words, nil
}
