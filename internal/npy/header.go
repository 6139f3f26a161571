package npy

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
)

// maxDepth bounds the nesting of tuples and lists in a header. NumPy
// headers nest at most two levels (a shape tuple inside the dict); the
// bound only keeps hostile input cheap.
const maxDepth = 64

// header is the parsed dictionary of a .npy header.
type header struct {
	dtype   engine.DType
	shape   []int
	fortran bool
	nbytes  int // size of the payload in bytes
}

// valueKind is the type of a Python literal in a header.
type valueKind int

const (
	strValue valueKind = iota
	intValue
	boolValue
	noneValue
	tupleValue
	listValue
)

func (k valueKind) String() string {
	switch k {
	case strValue:
		return "a string"
	case intValue:
		return "an integer"
	case boolValue:
		return "a bool"
	case noneValue:
		return "None"
	case tupleValue:
		return "a tuple"
	case listValue:
		return "a list"
	}
	return "an unknown value"
}

// value is a Python literal read from a header.
type value struct {
	kind     valueKind
	pos      int    // offset of the literal in the header text
	str      string // strValue: the string; intValue: the literal as written
	num      int    // intValue: the value, when it fits in an int
	neg      bool   // intValue: written with a minus sign
	tooLarge bool   // intValue: the value does not fit in an int
	truth    bool   // boolValue
	elems    []value
}

// parser reads the Python dict literal of a .npy header. It accepts the
// subset of what NumPy's ast.literal_eval accepts that a header can
// meaningfully use: strings in single or double quotes (implicitly
// concatenated if adjacent, no escapes), decimal integers with an
// optional sign, True, False, None, tuples and lists, whitespace and
// comments between tokens, and a trailing comma in any display.
type parser struct {
	s     string // the header text
	i     int    // current offset in s
	base  int    // offset of s in the file, for messages
	py2   bool   // accept the Python 2 long suffix "3L" (format 1.0 and 2.0)
	depth int
}

// parseHeader parses the header text s, which starts at byte base of the
// file. py2 enables the Python 2 integer suffix that NumPy strips from
// version 1.0 and 2.0 headers.
func parseHeader(s string, base int, py2 bool) (header, error) {
	p := &parser{s: s, base: base, py2: py2}
	var h header
	p.skipSpace()
	if !p.consume('{') {
		return h, p.errorf(p.i, "header must be a Python dict starting with '{', found %s", p.found(p.i))
	}
	var seen struct{ descr, fortran, shape bool }
	for {
		p.skipSpace()
		if p.consume('}') {
			break
		}
		key, err := p.value()
		if err != nil {
			return h, err
		}
		if key.kind != strValue {
			return h, p.errorf(key.pos, "dict key must be a string, found %s", key.kind)
		}
		p.skipSpace()
		if !p.consume(':') {
			return h, p.errorf(p.i, "expected ':' after key %q, found %s", clip(key.str), p.found(p.i))
		}
		val, err := p.value()
		if err != nil {
			return h, err
		}
		var dup bool
		switch key.str {
		case "descr":
			dup, seen.descr = seen.descr, true
			if !dup {
				h.dtype, err = p.descr(val)
			}
		case "fortran_order":
			dup, seen.fortran = seen.fortran, true
			if !dup {
				h.fortran, err = p.fortranOrder(val)
			}
		case "shape":
			dup, seen.shape = seen.shape, true
			if !dup {
				h.shape, err = p.shape(val)
			}
		default:
			return h, p.errorf(key.pos, "unexpected key %q (a header has exactly the keys 'descr', 'fortran_order' and 'shape')", clip(key.str))
		}
		if dup {
			return h, p.errorf(key.pos, "duplicate key %q", clip(key.str))
		}
		if err != nil {
			return h, err
		}
		p.skipSpace()
		if p.consume('}') {
			break
		}
		if !p.consume(',') {
			return h, p.errorf(p.i, "expected ',' or '}' after the value of %q, found %s", key.str, p.found(p.i))
		}
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return h, p.errorf(p.i, "unexpected %s after the closing '}'", p.found(p.i))
	}
	switch {
	case !seen.descr:
		return h, p.errorf(0, "key 'descr' is missing")
	case !seen.fortran:
		return h, p.errorf(0, "key 'fortran_order' is missing")
	case !seen.shape:
		return h, p.errorf(0, "key 'shape' is missing")
	}
	// Check the size the way NumPy does (engine.ShapeFits), so that even
	// the strides of a zero-size array are representable.
	if !engine.ShapeFits(h.shape, h.dtype.Size) {
		return h, p.errorf(0, "shape %v of %v is too big: its size in bytes overflows int", h.shape, h.dtype)
	}
	h.nbytes = engine.NumElements(h.shape) * h.dtype.Size
	return h, nil
}

// descr interprets the value of the 'descr' key.
func (p *parser) descr(v value) (engine.DType, error) {
	switch v.kind {
	case strValue:
	case listValue:
		return engine.DType{}, p.errorf(v.pos, "descr is a list: structured dtypes are not supported")
	case tupleValue:
		return engine.DType{}, p.errorf(v.pos, "descr is a tuple: subarray dtypes are not supported")
	default:
		return engine.DType{}, p.errorf(v.pos, "descr must be a string, found %s", v.kind)
	}
	if len(v.str) > 16 {
		return engine.DType{}, p.errorf(v.pos, "descr: unsupported dtype %q: too long", clip(v.str))
	}
	dt, err := engine.ParseDType(v.str)
	if err != nil {
		return engine.DType{}, p.errorf(v.pos, "descr: %s", message(err))
	}
	return dt, nil
}

// fortranOrder interprets the value of the 'fortran_order' key.
func (p *parser) fortranOrder(v value) (bool, error) {
	if v.kind != boolValue {
		return false, p.errorf(v.pos, "fortran_order must be True or False, found %s", v.kind)
	}
	return v.truth, nil
}

// shape interprets the value of the 'shape' key.
func (p *parser) shape(v value) ([]int, error) {
	if v.kind != tupleValue {
		return nil, p.errorf(v.pos, "shape must be a tuple of integers, found %s", v.kind)
	}
	if len(v.elems) > engine.MaxRank {
		return nil, p.errorf(v.pos, "shape has %d dimensions, more than the maximum of %d", len(v.elems), engine.MaxRank)
	}
	shape := make([]int, len(v.elems))
	for i, e := range v.elems {
		switch {
		case e.kind != intValue:
			return nil, p.errorf(e.pos, "dimension %d of shape must be an integer, found %s", i, e.kind)
		case e.neg && (e.tooLarge || e.num != 0):
			return nil, p.errorf(e.pos, "dimension %d of shape is negative: %s", i, clip(e.str))
		case e.tooLarge:
			return nil, p.errorf(e.pos, "dimension %d of shape is too large: %s", i, clip(e.str))
		}
		shape[i] = e.num
	}
	return shape, nil
}

// value parses one literal after optional white space.
func (p *parser) value() (value, error) {
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return value{}, p.errorf(p.i, "values nested more than %d deep", maxDepth)
	}
	p.skipSpace()
	start := p.i
	if p.i >= len(p.s) {
		return value{}, p.errorf(p.i, "expected a value, found end of header")
	}
	switch c := p.s[p.i]; {
	case c == '\'' || c == '"':
		return p.str()
	case c == '(':
		p.i++
		p.skipSpace()
		if p.consume(')') {
			return value{kind: tupleValue, pos: start}, nil
		}
		first, err := p.value()
		if err != nil {
			return value{}, err
		}
		p.skipSpace()
		if p.consume(')') {
			// A parenthesized value, not a tuple.
			return first, nil
		}
		if !p.consume(',') {
			return value{}, p.errorf(p.i, "expected ',' or ')' in tuple, found %s", p.found(p.i))
		}
		return p.elems(value{kind: tupleValue, pos: start, elems: []value{first}}, ')')
	case c == '[':
		p.i++
		return p.elems(value{kind: listValue, pos: start}, ']')
	case c == '-' || c == '+' || isDigit(c):
		return p.integer()
	case isNameStart(c):
		for p.i < len(p.s) && isNameChar(p.s[p.i]) {
			p.i++
		}
		switch name := p.s[start:p.i]; name {
		case "True", "False":
			return value{kind: boolValue, pos: start, truth: name == "True"}, nil
		case "None":
			return value{kind: noneValue, pos: start}, nil
		default:
			return value{}, p.errorf(start, "unexpected name %q (only True, False and None are allowed)", clip(name))
		}
	}
	return value{}, p.errorf(start, "expected a value, found %s", p.found(start))
}

// elems parses the remaining elements of a tuple or list up to and
// including the closing bracket, appending them to v.
func (p *parser) elems(v value, closing byte) (value, error) {
	for {
		p.skipSpace()
		if p.consume(closing) {
			return v, nil
		}
		e, err := p.value()
		if err != nil {
			return value{}, err
		}
		v.elems = append(v.elems, e)
		p.skipSpace()
		if p.consume(closing) {
			return v, nil
		}
		if !p.consume(',') {
			return value{}, p.errorf(p.i, "expected ',' or %q in %s, found %s", closing, v.kind, p.found(p.i))
		}
	}
}

// str parses one or more adjacent string literals, which Python
// concatenates.
func (p *parser) str() (value, error) {
	v := value{kind: strValue, pos: p.i}
	for {
		q := p.s[p.i]
		if p.i+2 < len(p.s) && p.s[p.i+1] == q && p.s[p.i+2] == q {
			return value{}, p.errorf(p.i, "triple-quoted strings are not supported")
		}
		start := p.i + 1
		end := start
		for ; ; end++ {
			if end >= len(p.s) || p.s[end] == '\n' || p.s[end] == '\r' {
				return value{}, p.errorf(p.i, "unterminated string")
			}
			if p.s[end] == '\\' {
				return value{}, p.errorf(end, "escape sequences in strings are not supported")
			}
			if p.s[end] == q {
				break
			}
		}
		v.str += p.s[start:end]
		p.i = end + 1
		p.skipSpace()
		if p.i >= len(p.s) || (p.s[p.i] != '\'' && p.s[p.i] != '"') {
			return v, nil
		}
	}
}

// integer parses a decimal integer with an optional sign.
func (p *parser) integer() (value, error) {
	v := value{kind: intValue, pos: p.i}
	neg := false
	if c := p.s[p.i]; c == '-' || c == '+' {
		neg = c == '-'
		p.i++
		p.skipSpace()
		if p.i >= len(p.s) || !isDigit(p.s[p.i]) {
			return value{}, p.errorf(p.i, "expected digits after %q, found %s", c, p.found(p.i))
		}
	}
	start := p.i
	for p.i < len(p.s) && isDigit(p.s[p.i]) {
		p.i++
	}
	digits := p.s[start:p.i]
	if p.py2 && p.i < len(p.s) && p.s[p.i] == 'L' {
		p.i++ // Python 2 long suffix, which NumPy filters out of old headers
	}
	if p.i < len(p.s) && (isNameChar(p.s[p.i]) || p.s[p.i] >= utf8.RuneSelf) {
		return value{}, p.errorf(start, "invalid integer literal %q (only decimal integers are supported)", clip(p.s[start:p.i+1]))
	}
	if len(digits) > 1 && digits[0] == '0' {
		for _, c := range []byte(digits) {
			if c != '0' {
				return value{}, p.errorf(start, "leading zeros in decimal integer literals are not permitted: %s", clip(digits))
			}
		}
	}
	v.str = p.s[v.pos:p.i]
	v.neg = neg
	n, err := strconv.Atoi(digits)
	if err != nil {
		v.tooLarge = true
		return v, nil
	}
	if neg {
		n = -n
	}
	v.num = n
	return v, nil
}

// skipSpace skips white space and comments.
func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\f', '\r', '\n':
			p.i++
		case '#':
			for p.i < len(p.s) && p.s[p.i] != '\n' && p.s[p.i] != '\r' {
				p.i++
			}
		default:
			return
		}
	}
}

// consume advances past c if it is the next byte.
func (p *parser) consume(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// found describes what is at offset i, for messages.
func (p *parser) found(i int) string {
	if i >= len(p.s) {
		return "end of header"
	}
	r, _ := utf8.DecodeRuneInString(p.s[i:])
	return strconv.QuoteRune(r)
}

// clip shortens a piece of header text for an error message: a long
// literal (a 400-digit dimension, a long key) is shown by its first
// characters and its length.
func clip(s string) string {
	const max = 24
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s... (%d characters)", s[:cut], len(s))
}

// errorf returns a bad_input error about the header text at offset i.
func (p *parser) errorf(i int, format string, args ...any) error {
	return errorf("bad header at byte %d: %s", p.base+i, fmt.Sprintf(format, args...))
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isNameStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isNameChar(c byte) bool { return isNameStart(c) || isDigit(c) }
