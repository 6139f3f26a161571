// Package pysrc writes the pieces of Python source conform's reproduction
// snippets are made of, so that text that came from a case can only ever
// appear as data: a string literal, a comment on one line, or an input
// name that is a plain identifier. Nothing from a case becomes code.
package pysrc

import (
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/printable"
)

// String returns s as a double-quoted Python string literal of printable
// ASCII: quotes and backslashes are escaped, every other character
// outside printable ASCII is written as \xNN, \uNNNN or \UNNNNNNNN, and a
// byte that is not valid UTF-8 as U+FFFD. Evaluated, the literal is s (with
// such bytes replaced).
func String(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for _, r := range s { // invalid UTF-8 decodes as U+FFFD
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r <= 0xffff:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// Comment returns "# " and text as a Python comment that stays on its
// line: control characters (a newline among them) are escaped (see
// printable.Escape).
func Comment(text string) string {
	return "# " + printable.Escape(text)
}

// keywords are Python's keywords (3.12): names that cannot be assigned.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true,
	"else": true, "except": true, "finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true, "not": true, "or": true,
	"pass": true, "raise": true, "return": true, "try": true, "while": true, "with": true, "yield": true,
}

// Inputs is the name of the dict a snippet binds the inputs to whose names
// Input cannot use as Python names.
const Inputs = "inputs"

// reserved are the names a snippet itself uses: an input of that name
// would hide the module or function.
var reserved = map[string]bool{"np": true, "tf": true, "bytes": true, "tuple": true, Inputs: true}

// IsName reports whether a snippet names the input called name by name
// itself: an ASCII identifier that is neither a Python keyword nor a name
// the snippet uses itself.
func IsName(name string) bool {
	if name == "" || keywords[name] || reserved[name] {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && !('a' <= c && c <= 'z') && !('A' <= c && c <= 'Z') && !(i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// Input returns the Python expression of the input called name in a
// snippet: the name itself if IsName, else an item of the dict Inputs,
// e.g. inputs["await"].
func Input(name string) string {
	if IsName(name) {
		return name
	}
	return Inputs + "[" + String(name) + "]"
}

// Ints returns an integer list as Python writes it, e.g. "[1, -2]".
func Ints(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = strconv.FormatInt(x, 10)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// Shape returns a shape as a Python tuple, e.g. "(2, 3)", "(4,)", "()".
func Shape(shape []int) string {
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	s := "(" + strings.Join(parts, ", ")
	if len(shape) == 1 {
		s += ","
	}
	return s + ")"
}

// Tensor returns exact NumPy code that makes t: its bytes in hex, its
// dtype and its shape.
func Tensor(t *engine.Tensor) string {
	return fmt.Sprintf("np.frombuffer(bytes.fromhex(\"%x\"), dtype=%s).reshape(%s)", t.Bytes(), String(t.DType.String()), Shape(t.Shape))
}

// Array returns NumPy code that makes the index array t: True or False
// for a 0-d boolean array, np.array of nested lists for a non-empty int64
// or boolean array, and Tensor otherwise.
func Array(t *engine.Tensor) string {
	isBool, isInt64 := t.DType == engine.BoolType, t.DType == engine.Int64Type
	if t.Rank() == 0 && isBool {
		if t.Bytes()[0] != 0 {
			return "True"
		}
		return "False"
	}
	if t.Len() == 0 || !(isBool || isInt64) {
		return Tensor(t)
	}
	data := t.Bytes()
	var b strings.Builder
	b.WriteString("np.array(")
	n := 0 // elements written
	var nest func(dims []int)
	nest = func(dims []int) {
		if len(dims) == 0 {
			if isBool {
				b.WriteString(map[bool]string{true: "True", false: "False"}[data[n] != 0])
			} else {
				b.WriteString(strconv.FormatInt(int64(binary.LittleEndian.Uint64(data[8*n:])), 10))
			}
			n++
			return
		}
		b.WriteByte('[')
		for i := 0; i < dims[0]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			nest(dims[1:])
		}
		b.WriteByte(']')
	}
	nest(t.Shape)
	if isBool {
		b.WriteString(", dtype=bool)")
	} else {
		b.WriteString(", dtype=np.int64)")
	}
	return b.String()
}
