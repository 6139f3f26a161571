package printable

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		rule     string
		in, want string
	}{
		{"plain text, backslashes and non-ASCII letters are kept", `a\b é 名 ✅`, `a\b é 名 ✅`},
		{"a newline cannot start a line of its own", "x\n17732 passed, 0 failed", `x\n17732 passed, 0 failed`},
		{"carriage return and tab are escaped", "a\rb\tc", `a\rb\tc`},
		{"ESC cannot start a terminal escape sequence", "\x1b[31mred\x1b]0;title\x07", `\x1b[31mred\x1b]0;title\x07`},
		{"NUL and DEL are escaped", "\x00\x7f", `\x00\x7f`},
		{"C1 controls (CSI, NEL) are escaped", "\u009b2J\u0085", `\u009b2J\u0085`},
		{"bidirectional overrides and isolates are escaped", "abc\u202edcb\u2066\u2069\u200e", `abc\u202edcb\u2066\u2069\u200e`},
		{"line and paragraph separators are escaped", "a\u2028b\u2029c", `a\u2028b\u2029c`},
		{"zero width and byte order mark format characters are escaped", "\u200b\ufeff", `\u200b\ufeff`},
		{"a format character beyond the BMP is escaped", "\U000e0001", `\U000e0001`},
		{"bytes that are not UTF-8 are escaped one by one", "a\xff\xc3b", `a\xff\xc3b`},
		{"U+FFFD written as UTF-8 is a printable character", "\ufffd", "\ufffd"},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("%s: Escape(%q) = %q, want %q", tt.rule, tt.in, got, tt.want)
		}
	}
}

// TestEscapeLeavesNoControls checks over every rune and some invalid
// bytes that the result holds no character Escape would escape.
func TestEscapeLeavesNoControls(t *testing.T) {
	var b strings.Builder
	for r := rune(0); r < 0x110000; r++ {
		if r < 0xd800 || r > 0xdfff {
			b.WriteRune(r)
		}
	}
	b.WriteString("\x80\xbf\xf8\xed\xa0\x80")
	out := Escape(b.String())
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		if needsEscape(r, size) {
			t.Fatalf("Escape left %U (%d bytes) at byte %d", r, size, i)
		}
		i += size
	}
}

type kind string

type stringer struct{}

func (stringer) String() string { return "op/\x1b[2Jsymptom" }

func TestFprintf(t *testing.T) {
	tests := []struct {
		rule   string
		format string
		args   []any
		want   string
	}{
		{"a string argument is escaped, the format is not", "%s passed\n", []any{"a\nb"}, "a\\nb passed\n"},
		{"an error argument is escaped", "error: %v", []any{errors.New("x\r\x1b[1A")}, `error: x\r\x1b[1A`},
		{"a Stringer argument is escaped", "%s", []any{stringer{}}, `op/\x1b[2Jsymptom`},
		{"width and flags apply to the escaped text", "[%-6s|%4s]", []any{"a\tb", "c"}, `[a\tb  |   c]`},
		{"%q quotes as fmt does", "%q", []any{"a\nb"}, `"a\nb"`},
		{"%#q cannot print a raw bidirectional override", "%#q", []any{"a\u202eb"}, "`a\\u202eb`"},
		{"a value of a named string type is escaped", "%s", []any{kind("a\nb")}, `a\nb`},
		{"numbers print as fmt prints them", "%d passed, %.1f s", []any{17732, 1.25}, "17732 passed, 1.2 s"},
	}
	for _, tt := range tests {
		var b strings.Builder
		Fprintf(&b, tt.format, tt.args...)
		if got := b.String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.rule, got, tt.want)
		}
		if got := Sprintf(tt.format, tt.args...); got != tt.want {
			t.Errorf("%s: Sprintf gives %q, want %q", tt.rule, got, tt.want)
		}
	}
}
