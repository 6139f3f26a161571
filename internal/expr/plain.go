package expr

import (
	"math/big"

	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/py"
)

// plainSubscript reads the common, plain form of a subscript without
// running gpython's parser: an ASCII name, then in brackets items
// separated by commas (a trailing comma allowed), each a slice of up to
// three values or a value, where a value is any chain of unary -, + and
// ~ before a decimal integer, None, True, False, np.newaxis,
// numpy.newaxis, tf.newaxis, `...`, a name (an ASCII identifier that is
// not a keyword), a parenthesised value or tuple of values, or a list of
// values; with
// spaces, tabs and newlines between tokens inside the brackets, e.g.
// "x[1, -2:, ::-1, (None, ~3), ...]". It builds the syntax tree
// gpython builds for the same source, so convert applies exactly the
// same rules to it; for anything else (other literals, names and
// operators, comments, line continuations, white space outside the
// brackets other than trailing spaces, ...) it reports false and Parse
// asks gpython. TestPlainSubscript, TestPlainReadingOfGeneratedSubscripts
// and FuzzParse check that the two readings agree.
func plainSubscript(src string) (ast.Slicer, bool) {
	s := scanner{src: src}
	name := s.word()
	if name == "" || isKeyword(name) || !s.eat('[') {
		return nil, false
	}
	var dims []ast.Slicer
	comma := false
	for {
		s.blank()
		if s.peek() == ']' && len(dims) > 0 {
			break // after a trailing comma
		}
		d, ok := s.item()
		if !ok {
			return nil, false
		}
		dims = append(dims, d)
		s.blank()
		if !s.eat(',') {
			break
		}
		comma = true
	}
	if !s.eat(']') {
		return nil, false
	}
	for s.peek() == ' ' {
		s.pos++
	}
	if s.pos != len(s.src) || s.depth > maxDepth {
		return nil, false
	}
	// The three forms of CPython's (and gpython's) ast_for_trailer.
	if !comma {
		return dims[0], true
	}
	elts := make([]ast.Expr, len(dims))
	for i, d := range dims {
		index, ok := d.(*ast.Index)
		if !ok {
			return &ast.ExtSlice{Dims: dims}, true
		}
		elts[i] = index.Value
	}
	return &ast.Index{Value: &ast.Tuple{Elts: elts, Ctx: ast.Load}}, true
}

// maxDepth bounds the nesting of parentheses plainSubscript reads.
const maxDepth = 16

// scanner reads plainSubscript's grammar from src.
type scanner struct {
	src   string
	pos   int
	depth int // the deepest nesting of parentheses seen
}

func (s *scanner) peek() byte {
	if s.pos < len(s.src) {
		return s.src[s.pos]
	}
	return 0
}

func (s *scanner) eat(c byte) bool {
	if s.peek() == c {
		s.pos++
		return true
	}
	return false
}

// blank skips the white space allowed between tokens inside brackets.
func (s *scanner) blank() {
	for c := s.peek(); c == ' ' || c == '\t' || c == '\n'; c = s.peek() {
		s.pos++
	}
}

// word reads a name of ASCII letters, digits and underscores that does
// not start with a digit.
func (s *scanner) word() string {
	start := s.pos
	for c := s.peek(); c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || s.pos > start && '0' <= c && c <= '9'; c = s.peek() {
		s.pos++
	}
	return s.src[start:s.pos]
}

// item reads one item: a slice or a value.
func (s *scanner) item() (ast.Slicer, bool) {
	var parts [3]ast.Expr
	n := 0 // colons read
	for {
		s.blank()
		if c := s.peek(); c != ':' && c != ',' && c != ']' {
			e, ok := s.value(1)
			if !ok {
				return nil, false
			}
			parts[n] = e
			s.blank()
		}
		if n == 2 || !s.eat(':') {
			break
		}
		n++
	}
	if n == 0 {
		if parts[0] == nil {
			return nil, false
		}
		return &ast.Index{Value: parts[0]}, true
	}
	return &ast.Slice{Lower: parts[0], Upper: parts[1], Step: parts[2]}, true
}

// value reads a chain of unary operators and an atom at parenthesis
// depth depth.
func (s *scanner) value(depth int) (ast.Expr, bool) {
	var ops []ast.UnaryOpNumber
	for {
		s.blank()
		switch s.peek() {
		case '-':
			ops = append(ops, ast.USub)
		case '+':
			ops = append(ops, ast.UAdd)
		case '~':
			ops = append(ops, ast.Invert)
		default:
			e, ok := s.atom(depth)
			if !ok {
				return nil, false
			}
			for i := len(ops) - 1; i >= 0; i-- {
				e = &ast.UnaryOp{Op: ops[i], Operand: e}
			}
			return e, true
		}
		s.pos++
	}
}

// atom reads an integer, None, True, False, a newaxis, `...`, a name, a
// parenthesised value or tuple, or a list.
func (s *scanner) atom(depth int) (ast.Expr, bool) {
	c := s.peek()
	switch {
	case c == '.':
		if len(s.src)-s.pos < 3 || s.src[s.pos:s.pos+3] != "..." {
			return nil, false
		}
		s.pos += 3
		return &ast.Ellipsis{}, true
	case '0' <= c && c <= '9':
		return s.integer()
	case c == '(':
		return s.parenthesised(depth)
	case c == '[':
		return s.list(depth)
	}
	switch w := s.word(); w {
	case "":
		return nil, false
	case "None":
		return &ast.NameConstant{Value: py.None}, true
	case "True":
		return &ast.NameConstant{Value: py.True}, true
	case "False":
		return &ast.NameConstant{Value: py.False}, true
	case "np", "numpy", "tf":
		if s.peek() != '.' {
			return &ast.Name{Id: ast.Identifier(w), Ctx: ast.Load}, true
		}
		if !s.eat('.') || s.word() != "newaxis" {
			return nil, false
		}
		return &ast.Attribute{Value: &ast.Name{Id: ast.Identifier(w), Ctx: ast.Load}, Attr: "newaxis", Ctx: ast.Load}, true
	default:
		if isKeyword(w) {
			return nil, false
		}
		return &ast.Name{Id: ast.Identifier(w), Ctx: ast.Load}, true
	}
}

// list reads a list display "[]", "[v]", "[v, w]", "[v, w,]".
func (s *scanner) list(depth int) (ast.Expr, bool) {
	s.pos++ // [
	if depth > s.depth {
		s.depth = depth
	}
	if depth > maxDepth {
		return nil, false
	}
	elts := []ast.Expr{}
	for {
		s.blank()
		if s.peek() == ']' {
			break // "[]" or after a trailing comma
		}
		e, ok := s.value(depth + 1)
		if !ok {
			return nil, false
		}
		elts = append(elts, e)
		s.blank()
		if !s.eat(',') {
			break
		}
	}
	if !s.eat(']') {
		return nil, false
	}
	return &ast.List{Elts: elts, Ctx: ast.Load}, true
}

// parenthesised reads "(v)", which is v, or a tuple "()", "(v,)",
// "(v, w)", "(v, w,)".
func (s *scanner) parenthesised(depth int) (ast.Expr, bool) {
	s.pos++ // (
	if depth > s.depth {
		s.depth = depth
	}
	if depth > maxDepth {
		return nil, false
	}
	var elts []ast.Expr
	comma := false
	for {
		s.blank()
		if s.peek() == ')' && (comma || len(elts) == 0) {
			break // "()" or after a trailing comma
		}
		e, ok := s.value(depth + 1)
		if !ok {
			return nil, false
		}
		elts = append(elts, e)
		s.blank()
		if !s.eat(',') {
			break
		}
		comma = true
	}
	if !s.eat(')') {
		return nil, false
	}
	if len(elts) == 1 && !comma {
		return elts[0], true
	}
	return &ast.Tuple{Elts: elts, Ctx: ast.Load}, true
}

// integer reads a decimal literal without leading zeros.
func (s *scanner) integer() (ast.Expr, bool) {
	start := s.pos
	for c := s.peek(); '0' <= c && c <= '9'; c = s.peek() {
		s.pos++
	}
	digits := s.src[start:s.pos]
	if len(digits) > 1 && digits[0] == '0' {
		return nil, false
	}
	if c := s.peek(); c == '_' || c == '.' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
		return nil, false // 1_000, 1.5, 1e3, 1j, 0x1, 1if ...: gpython decides
	}
	n, ok := new(big.Int).SetString(digits, 10)
	if !ok {
		return nil, false
	}
	if n.IsInt64() {
		return &ast.Num{N: py.Int(n.Int64())}, true
	}
	return &ast.Num{N: (*py.BigInt)(n)}, true
}

// isKeyword reports whether w is a Python keyword: the 3.4 grammar's, and
// async and await (Python 3.7), which Parse refuses (see newKeyword).
func isKeyword(w string) bool {
	switch w {
	case "None", "True", "False", "and", "as", "assert", "break", "class", "continue", "def", "del",
		"elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is",
		"lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield",
		"async", "await":
		return true
	}
	return false
}
