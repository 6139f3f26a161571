package oracle

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
)

// ModulePath is the module whose oracle/ directory Command looks for.
const ModulePath = "github.com/conformsuite/conform"

// Command returns the command line that runs the implementation impl:
// "numpy" runs oracle/numpy/oracle.py with /usr/bin/python3 (Debian's
// python3-numpy; the python3 first on PATH may lack NumPy), "tfjs" runs
// oracle/tfjs/oracle.js, "ort" oracle/ort/oracle.js and "tflite"
// oracle/tflite/oracle.js with node.
// Anything else is taken as a command line and split into words at white
// space; single quotes, double quotes and backslashes work as in a POSIX
// shell (without expansions).
//
// The oracle directory is $CONFORM_ORACLE_DIR if set, else the oracle/
// directory of the module found by walking up from the working directory,
// else the one found by walking up from the running executable.
func Command(impl string) ([]string, error) {
	var interp, script string
	switch impl {
	case "numpy":
		interp, script = "/usr/bin/python3", filepath.Join("numpy", "oracle.py")
	case "tfjs":
		interp, script = "node", filepath.Join("tfjs", "oracle.js")
	case "ort":
		interp, script = "node", filepath.Join("ort", "oracle.js")
	case "tflite":
		interp, script = "node", filepath.Join("tflite", "oracle.js")
	default:
		argv, err := SplitCommand(impl)
		if err != nil {
			return nil, err
		}
		return argv, nil
	}
	dir, err := Dir()
	if err != nil {
		return nil, fmt.Errorf("oracle %s: %w", impl, err)
	}
	path := filepath.Join(dir, script)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("oracle %s: %w", impl, err)
	}
	return []string{interp, path}, nil
}

// Dir returns the directory holding the oracle programs, located as
// Command describes.
func Dir() (string, error) {
	if d := os.Getenv("CONFORM_ORACLE_DIR"); d != "" {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", err
		}
		return abs, nil
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		starts = append(starts, filepath.Dir(exe))
	}
	for _, start := range starts {
		if root, ok := findModuleRoot(start); ok {
			return filepath.Join(root, "oracle"), nil
		}
	}
	return "", errors.New("cannot find the oracle directory: set CONFORM_ORACLE_DIR, or run inside the " + ModulePath + " module")
}

// findModuleRoot walks up from dir to the directory whose go.mod declares
// ModulePath.
func findModuleRoot(dir string) (string, bool) {
	for {
		if modulePathOf(filepath.Join(dir, "go.mod")) == ModulePath {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}

// modulePathOf returns the module path declared by the go.mod file at
// path, or "" if there is none.
func modulePathOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && rest != "" && unicode.IsSpace(rune(rest[0])) {
			return strings.Trim(strings.TrimSpace(rest), `"`)
		}
	}
	return ""
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
