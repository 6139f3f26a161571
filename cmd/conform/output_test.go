package main

import (
	"bufio"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/output"
)

// treeState records every entry under root: relative path -> type, mode
// and (for regular files) content, so that a comparison catches changed
// bytes, changed modes, removed files and left-over temporary files.
// Symbolic links are not followed; FIFOs and sockets are not opened.
func treeState(t *testing.T, root string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		s := info.Mode().String()
		switch {
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s += " " + string(data)
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			s += " -> " + target
		}
		state[filepath.ToSlash(rel)] = s
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// diffState describes how after differs from before, or returns "".
func diffState(before, after map[string]string) string {
	var d []string
	for p, s := range before {
		if a, ok := after[p]; !ok {
			d = append(d, "removed "+p)
		} else if a != s {
			d = append(d, fmt.Sprintf("changed %s: %.60q -> %.60q", p, s, a))
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			d = append(d, "new "+p)
		}
	}
	return strings.Join(d, "; ")
}

// newFileMode returns the mode a file created with mode 0644 gets here:
// 0644 less the umask, read without changing the umask.
func newFileMode(t *testing.T, dir string) fs.FileMode {
	t.Helper()
	p := filepath.Join(dir, "probe")
	f, err := os.OpenFile(p, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	defer os.Remove(p)
	st, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	return st.Mode().Perm()
}

const (
	rejectedCase = `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[1:2:0]"}`
	acceptedCase = `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[1]"}`
)

// TestEvalOutput checks what eval -o may replace and what it leaves: each
// row sets up a directory holding case.json and its input x.npy (0644),
// runs eval, and compares the whole directory before and after, byte for
// byte and mode for mode. Only a successful run may change anything, and
// then only OUT.
func TestEvalOutput(t *testing.T) {
	tests := []struct {
		rule   string
		json   string
		out    func(t *testing.T, dir string) string // prepares and returns -o
		code   int
		stderr string      // a substring of the one stderr line
		mode   fs.FileMode // on success, OUT's mode; 0: 0644 less the umask
	}{
		{"the case's input named as OUT is refused before a rejected case is evaluated (it used to be deleted)",
			rejectedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "x.npy") },
			2, `is the case's input "x"`, 0},
		{"the case's input named as OUT is refused for an accepted case too",
			acceptedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "x.npy") },
			2, `is the case's input "x"`, 0},
		{"another spelling of the input (./, sub/..) is the same file",
			acceptedCase, func(t *testing.T, dir string) string {
				os.Mkdir(filepath.Join(dir, "sub"), 0o755)
				return dir + "/sub/.././x.npy"
			}, 2, `is the case's input "x"`, 0},
		{"a symbolic link to the input is the input",
			rejectedCase, func(t *testing.T, dir string) string {
				os.Symlink("x.npy", filepath.Join(dir, "link.npy"))
				return filepath.Join(dir, "link.npy")
			}, 2, `is the case's input "x"`, 0},
		{"a hard link to the input is the input",
			acceptedCase, func(t *testing.T, dir string) string {
				os.Link(filepath.Join(dir, "x.npy"), filepath.Join(dir, "hard.npy"))
				return filepath.Join(dir, "hard.npy")
			}, 2, `is the case's input "x"`, 0},
		{"an input named by an absolute path is found too",
			`{"op":"getitem","inputs":{"x":"ABS/x.npy"},"index":"x[1]"}`, func(t *testing.T, dir string) string { return filepath.Join(dir, "x.npy") },
			2, `is the case's input "x"`, 0},
		{"the case file itself is refused",
			rejectedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "case.json") },
			2, "is the case file", 0},
		{"an existing directory is refused, on success too (it used to be removed)",
			acceptedCase, func(t *testing.T, dir string) string {
				os.Mkdir(filepath.Join(dir, "d"), 0o755)
				os.WriteFile(filepath.Join(dir, "d", "keep"), []byte("keep"), 0o644)
				return filepath.Join(dir, "d")
			}, 2, "is a directory", 0},
		{"a FIFO is refused (it is not a regular file)",
			acceptedCase, func(t *testing.T, dir string) string {
				if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
					t.Skip("mkfifo:", err)
				}
				return filepath.Join(dir, "fifo")
			}, 2, "is not a regular file (a named pipe)", 0},
		{"a socket is refused (it is not a regular file)",
			acceptedCase, func(t *testing.T, dir string) string {
				l, err := net.Listen("unix", filepath.Join(dir, "sock"))
				if err != nil {
					t.Skip("unix socket:", err)
				}
				l.(*net.UnixListener).SetUnlinkOnClose(false)
				t.Cleanup(func() { l.Close() })
				return filepath.Join(dir, "sock")
			}, 2, "is not a regular file (a socket)", 0},
		{"a rejected case leaves an existing OUT as it was (it used to be deleted)",
			rejectedCase, func(t *testing.T, dir string) string {
				os.WriteFile(filepath.Join(dir, "old.npy"), []byte("earlier result"), 0o640)
				return filepath.Join(dir, "old.npy")
			}, 1, "invalid_spec: ", 0},
		{"a rejected case creates no OUT",
			rejectedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "new.npy") },
			1, "invalid_spec: ", 0},
		{"a replaced OUT keeps its mode (it used to become 0600)",
			acceptedCase, func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "old.npy")
				os.WriteFile(p, []byte("earlier result"), 0o640)
				os.Chmod(p, 0o640)
				return p
			}, 0, "", 0o640},
		{"a new OUT gets 0644 less the umask (it used to be 0600)",
			acceptedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "new.npy") },
			0, "", 0},
		{"a write failure (no such directory) is not a property of the case: no error kind",
			acceptedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "missing", "out.npy") },
			1, "conform eval: cannot write output: " + "DIR/missing/out.npy: no such file or directory", 0},
		{"a write failure (a parent that is a file) is not a property of the case: no error kind",
			acceptedCase, func(t *testing.T, dir string) string { return filepath.Join(dir, "x.npy", "out.npy") },
			1, "conform eval: cannot write output: " + "DIR/x.npy/out.npy: not a directory", 0},
		{"a write failure (permission denied) is not a property of the case: no error kind",
			acceptedCase, func(t *testing.T, dir string) string {
				if os.Geteuid() == 0 {
					t.Skip("root is not denied permission")
				}
				ro := filepath.Join(dir, "ro")
				os.Mkdir(ro, 0o555)
				t.Cleanup(func() { os.Chmod(ro, 0o755) })
				return filepath.Join(ro, "out.npy")
			}, 1, "conform eval: cannot write output: " + "DIR/ro/out.npy: permission denied", 0},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			dir := t.TempDir()
			wantMode := tt.mode
			if wantMode == 0 {
				wantMode = newFileMode(t, dir)
			}
			writeInput(t, dir, "x.npy", 3, 2)
			os.Chmod(filepath.Join(dir, "x.npy"), 0o644)
			casePath := filepath.Join(dir, "case.json")
			os.WriteFile(casePath, []byte(strings.ReplaceAll(tt.json, "ABS", dir)), 0o644)
			out := tt.out(t, dir)
			before := treeState(t, dir)
			code, stdout, stderr := runCLI("eval", casePath, "-o", out)
			wantErr := strings.ReplaceAll(tt.stderr, "DIR", dir)
			lines := 1
			if tt.code == 0 {
				lines = 0
			}
			if code != tt.code || !strings.Contains(stderr, wantErr) || strings.Count(stderr, "\n") != lines || stdout != "" {
				t.Fatalf("exit %d, stderr %q; want exit %d and %q", code, stderr, tt.code, wantErr)
			}
			if strings.Contains(stderr, "cannot write output") {
				for _, kind := range []engine.ErrorKind{engine.InvalidSpec, engine.OutOfRange, engine.BadInput} {
					if strings.Contains(stderr, string(kind)) {
						t.Errorf("a write failure is labelled %s: %q", kind, stderr)
					}
				}
			}
			after := treeState(t, dir)
			if tt.code != 0 {
				if d := diffState(before, after); d != "" {
					t.Errorf("the directory changed: %s", d)
				}
				return
			}
			rel, _ := filepath.Rel(dir, out)
			delete(before, rel)
			delete(after, rel)
			if d := diffState(before, after); d != "" {
				t.Errorf("besides OUT, the directory changed: %s", d)
			}
			got, err := npy.ReadFile(out)
			if err != nil || !slices.Equal(got.Shape, []int{2}) {
				t.Fatalf("OUT: %v %v", got, err)
			}
			st, _ := os.Stat(out)
			if st.Mode() != wantMode {
				t.Errorf("OUT has mode %v, want %v", st.Mode(), wantMode)
			}
		})
	}
}

// TestEvalSignalRemovesTemp interrupts eval (SIGINT, SIGTERM) while its
// temporary output file exists: the process must delete that file, leave
// an existing OUT as it was, and exit with 128 plus the signal number. It
// runs this test binary as the eval process, stopped by a hook after the
// result is written to the temporary file.
func TestEvalSignalRemovesTemp(t *testing.T) {
	if args := os.Getenv("CONFORM_TEST_EVAL_SIGNAL"); args != "" {
		output.TestHookTempWritten = func() {
			fmt.Println("temp written")
			time.Sleep(time.Minute)
		}
		os.Exit(run(strings.Split(args, "\n"), os.Stdout, os.Stderr))
	}
	for _, tt := range []struct {
		rule     string
		sig      syscall.Signal
		code     int
		existing bool
	}{
		{"SIGINT removes the temporary file and exits 130", syscall.SIGINT, 130, false},
		{"SIGTERM removes the temporary file, leaves the old OUT, and exits 143", syscall.SIGTERM, 143, true},
	} {
		dir := t.TempDir()
		writeInput(t, dir, "x.npy", 3, 2)
		casePath := filepath.Join(dir, "case.json")
		os.WriteFile(casePath, []byte(acceptedCase), 0o644)
		out := filepath.Join(dir, "out.npy")
		if tt.existing {
			os.WriteFile(out, []byte("earlier result"), 0o644)
		}
		before := treeState(t, dir)
		cmd := exec.Command(os.Args[0], "-test.run=^TestEvalSignalRemovesTemp$")
		cmd.Env = append(os.Environ(), "CONFORM_TEST_EVAL_SIGNAL="+strings.Join([]string{"eval", casePath, "-o", out}, "\n"))
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := false
		for sc := bufio.NewScanner(pipe); sc.Scan(); {
			if sc.Text() == "temp written" {
				ready = true
				break
			}
		}
		if !ready {
			cmd.Wait()
			t.Fatalf("%s: the eval process ended before writing its temporary file", tt.rule)
		}
		if temps, _ := filepath.Glob(filepath.Join(dir, ".conform-*.npy")); len(temps) != 1 {
			cmd.Process.Kill()
			t.Fatalf("%s: %d temporary files while writing, want 1", tt.rule, len(temps))
		}
		cmd.Process.Signal(tt.sig)
		err = cmd.Wait()
		if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != tt.code {
			t.Errorf("%s: %v, want exit status %d", tt.rule, err, tt.code)
		}
		if d := diffState(before, treeState(t, dir)); d != "" {
			t.Errorf("%s: the directory changed: %s", tt.rule, d)
		}
	}
}

// TestOutputHelp checks that the help texts state the rules.
func TestOutputHelp(t *testing.T) {
	for _, tt := range []struct {
		rule string
		args []string
		want []string
	}{
		{"eval -h says what OUT may be, what a rejection leaves, and how write failures read",
			[]string{"eval", "-h"},
			[]string{"not a regular file", "the case's own files", "left as it was", "cannot write output", "0644 less the umask", "SIGTERM"}},
		{"golden -h says which directories --out may replace",
			[]string{"golden", "-h"},
			[]string{"empty directory", "conform corpus", "MANIFEST", "is refused"}},
	} {
		code, _, stderr := runCLI(tt.args...)
		for _, w := range tt.want {
			if code != 0 || !strings.Contains(strings.Join(strings.Fields(stderr), " "), w) {
				t.Errorf("%s: exit %d, help lacks %q", tt.rule, code, w)
			}
		}
	}
}

// TestGoldenOutRefused checks that golden --out refuses, before the
// oracles start, a destination that is not a new or empty directory or a
// conform corpus, and leaves it byte for byte as it was.
func TestGoldenOutRefused(t *testing.T) {
	for _, tt := range []struct {
		rule  string
		setup func(t *testing.T, dest string)
		want  string
	}{
		{"a directory of other files is refused (it used to be deleted)", func(t *testing.T, dest string) {
			os.MkdirAll(filepath.Join(dest, "src"), 0o755)
			os.WriteFile(filepath.Join(dest, "src", "main.go"), []byte("package main"), 0o644)
			os.WriteFile(filepath.Join(dest, "notes.txt"), []byte("notes"), 0o600)
		}, "it is not empty and has no MANIFEST"},
		{"a directory whose MANIFEST is not conform's is refused", func(t *testing.T, dest string) {
			os.MkdirAll(dest, 0o755)
			os.WriteFile(filepath.Join(dest, "MANIFEST"), []byte("include *.py\n"), 0o644)
			os.WriteFile(filepath.Join(dest, "setup.py"), []byte("setup()"), 0o644)
		}, "is not a conform manifest"},
		{"a regular file is refused", func(t *testing.T, dest string) {
			os.WriteFile(dest, []byte("a file"), 0o644)
		}, "it is not a directory"},
		{"a symbolic link is refused", func(t *testing.T, dest string) {
			os.Mkdir(dest+"-target", 0o755)
			os.Symlink(filepath.Base(dest)+"-target", dest)
		}, "it is a symbolic link"},
	} {
		parent := t.TempDir()
		dest := filepath.Join(parent, "golden")
		tt.setup(t, dest)
		before := treeState(t, parent)
		code, stdout, stderr := runCLI("golden", "--out", dest, "--oracles", "numpy", "--per-op", "1")
		want := "conform golden: refusing to replace " + dest + ": "
		if code != 1 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 || stdout != "" {
			t.Errorf("%s: exit %d, stderr %q; want exit 1 and %q...%q", tt.rule, code, stderr, want, tt.want)
		}
		if d := diffState(before, treeState(t, parent)); d != "" {
			t.Errorf("%s: changed: %s", tt.rule, d)
		}
	}
}
