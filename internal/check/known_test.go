package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/conformsuite/conform/internal/signature"
)

// TestApplyKnownFailuresCrashes checks that a signature entry absorbs a
// crash or timeout only when crashes are allowed, that the matching entry
// is recorded either way, and that the summary counts crashes and
// timeouts apart.
func TestApplyKnownFailuresCrashes(t *testing.T) {
	died := signature.Signature{Op: "take", Symptom: signature.Crash, Detail: "died"}
	timeout := signature.Signature{Op: "take", Symptom: signature.Crash, Detail: "timeout"}
	values := signature.Signature{Op: "take", Symptom: signature.Values}
	tests := []struct {
		rule     string
		sig      signature.Signature
		entry    string
		allow    bool
		want     Status
		crashes  int
		timeouts int
	}{
		{"a signature entry does not absorb a crash (it used to count as passed)", died, "take/crash/died", false, Fail, 1, 0},
		{"nor a timeout", timeout, "take/crash/timeout", false, Fail, 0, 1},
		{"allowed, the entry absorbs the crash, still counted", died, "take/crash/died", true, XFail, 1, 0},
		{"allowed, the entry absorbs the timeout, still counted", timeout, "take/crash/timeout", true, XFail, 0, 1},
		{"a case-ID entry absorbs the case's crash: it names the case", died, "c1", false, XFail, 0, 0},
		{"a signature entry absorbs a failure that is no crash", values, "take/values", false, XFail, 0, 0},
	}
	for _, tt := range tests {
		r := Result{ID: "c1", Status: Fail, Signature: tt.sig}
		r = ApplyKnownFailures(r, map[string]string{tt.entry: "why"}, tt.allow)
		var s Summary
		s.CountKnownCrash(r)
		if r.Status != tt.want || s.KnownCrashes != tt.crashes || s.KnownTimeouts != tt.timeouts {
			t.Errorf("%s: status %s, %d crashes, %d timeouts; want %s, %d, %d", tt.rule, r.Status, s.KnownCrashes, s.KnownTimeouts, tt.want, tt.crashes, tt.timeouts)
		}
	}
}

// TestReadKnownFailuresFile checks that a known-failures file is read as
// corpus files are: a regular file within MaxKnownFailuresBytes.
func TestReadKnownFailuresFile(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	os.WriteFile(big, nil, 0o644)
	os.Truncate(big, MaxKnownFailuresBytes+1)
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("take/values # why\n"), 0o644)
	for _, tt := range []struct {
		rule, path string
		ok         bool
	}{
		{"a regular file is read", ok, true},
		{"a file over the bound is refused", big, false},
		{"a device is refused", "/dev/zero", false},
		{"a directory is refused", dir, false},
		{"a missing file is refused", filepath.Join(dir, "missing"), false},
	} {
		known, err := ReadKnownFailuresFile(tt.path, 0)
		if (err == nil) != tt.ok || (tt.ok && known["take/values"] != "why") {
			t.Errorf("%s: %v, %v", tt.rule, known, err)
		}
	}
}

// FuzzReadKnownFailures feeds the known-failures parser arbitrary files:
// it never panics, every entry it returns is one non-empty word that does
// not start a comment, every reason is one line, and writing the entries
// back in the format reads back the same list.
func FuzzReadKnownFailures(f *testing.F) {
	for _, seed := range []string{
		"", "\n", "# only a comment\n", "take/values\n", "take/values # a reason\n",
		"slice/values#tfjs-x # class\n", "a b\n", "c1 #\n", "x\t# tab\r\n", "\x00\n#\n  # x\n",
		"getitem/shape/rank@drop-size-1-dims # variant\nid-1\nid-1 # twice\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		known, err := ReadKnownFailures(data)
		if err != nil {
			return
		}
		var b strings.Builder
		for entry, reason := range known {
			if entry == "" || strings.HasPrefix(entry, "#") || strings.IndexFunc(entry, unicode.IsSpace) >= 0 {
				t.Fatalf("entry %q", entry)
			}
			if reason == "" || strings.ContainsAny(reason, "\n") {
				t.Fatalf("reason %q of %q", reason, entry)
			}
			b.WriteString(entry + " # " + reason + "\n")
		}
		again, err := ReadKnownFailures([]byte(b.String()))
		if err != nil || len(again) != len(known) {
			t.Fatalf("written back: %v, %d entries, want %d", err, len(again), len(known))
		}
		for entry, reason := range known {
			if again[entry] != reason {
				t.Fatalf("entry %q: reason %q written back reads %q", entry, reason, again[entry])
			}
		}
	})
}
