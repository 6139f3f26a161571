// Package printable makes text that came from outside conform (a child's
// name, version and messages, a case's ID, subscript and reasons, file
// names) safe to print on a terminal or in a CI log: control characters
// are written as escapes, so that such text can neither send terminal
// escape sequences nor start a line of its own (a forged "0 failed"
// line), nor reorder what is displayed around it (bidirectional
// controls).
package printable

import (
	"fmt"
	"io"
	"reflect"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape returns s with every character that controls the display
// written as an escape: C0 controls (newline, carriage return, tab, ESC,
// ...) and DEL as \n, \r, \t or \xNN; C1 controls, Unicode format
// characters (bidirectional overrides and isolates such as U+202E, zero
// width characters, the byte order mark) and the line and paragraph
// separators U+2028 and U+2029 as \uNNNN; and every byte that is not part
// of valid UTF-8 as \xNN. Everything else, backslashes included, is kept
// as it is, so s is returned unchanged when it holds nothing to escape.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !needsEscape(r, size) {
			b.WriteString(s[i : i+size])
			i += size
			continue
		}
		switch {
		case r == utf8.RuneError:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether the rune r, size bytes long in its source,
// is written as an escape.
func needsEscape(r rune, size int) bool {
	if r < utf8.RuneSelf {
		return r < 0x20 || r == 0x7f
	}
	if r == utf8.RuneError && size == 1 {
		return true // a byte that is not valid UTF-8
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Zl, unicode.Zp)
}

// Fprintf is fmt.Fprintf with every argument that is a string (of any
// string type), an error or a fmt.Stringer printed through Escape: the format is conform's own
// text, the arguments may come from outside. Other arguments (numbers)
// print as fmt prints them. A %q verb quotes the text as fmt does.
func Fprintf(w io.Writer, format string, args ...any) (int, error) {
	return fmt.Fprintf(w, format, wrap(args)...)
}

// Sprintf is Fprintf into a string.
func Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, wrap(args)...)
}

// wrap returns args with every string, error and fmt.Stringer replaced by
// an outside value that escapes it when formatted.
func wrap(args []any) []any {
	out := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			out[i] = outside(v)
		case error:
			out[i] = outside(v.Error())
		case fmt.Stringer:
			out[i] = outside(v.String())
		default:
			if rv := reflect.ValueOf(a); rv.Kind() == reflect.String {
				out[i] = outside(rv.String()) // a named string type
			} else {
				out[i] = a
			}
		}
	}
	return out
}

// outside is text from outside conform, escaped when formatted.
type outside string

// Format formats the text under the verb and flags of f: %q (without the
// # flag, which may print a raw string) quotes it as fmt does, which
// escapes control characters itself, and %x and %X write it in hex; any
// other verb prints the text escaped.
func (o outside) Format(f fmt.State, verb rune) {
	text := string(o)
	switch {
	case verb == 'q' && !f.Flag('#'), verb == 'x', verb == 'X':
	default:
		text = Escape(text)
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), text)
}
