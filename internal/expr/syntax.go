package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"
)

// normalizeNewlines turns "\r\n" and a lone "\r" into "\n", as Python's
// tokenizer does. gpython only splits lines at "\n".
func normalizeNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// syntaxError builds the invalid_spec error for a gpython parse error.
//
// gpython's message is nearly always "unexpected EOF while parsing" and its
// position is where its lexer stood when the parser gave up: just after the
// offending token, or at the offending character for lexer errors. This
// finds the start of the offending token instead, which is what Python
// points at. text is norm without its first skipped bytes; it is what was
// parsed.
func syntaxError(src, norm, text string, skipped int, perr error) error {
	line, off, detail, ok := errorPosition(perr)
	pos := len(text)
	if ok {
		pos = culprit(text, line, off, detail)
	}
	return syntaxErrorAt(src, norm, text, skipped, pos, detail)
}

// syntaxErrorAt builds the invalid_spec error for a syntax error at byte
// pos of text (see syntaxError), with detail, the reason when known.
func syntaxErrorAt(src, norm, text string, skipped, pos int, detail string) error {
	atEnd := strings.TrimLeft(text[pos:], " \t\n") == ""
	if atEnd {
		// Point just past the last non-blank character.
		pos = len(strings.TrimRight(text, " \t\n"))
	}
	abs := skipped + pos
	if pos == 0 && atEnd {
		abs = 0 // blank source: column 1
	}
	lineStart := strings.LastIndexByte(norm[:abs], '\n') + 1
	col := utf8.RuneCountInString(norm[lineStart:abs]) + 1
	where := fmt.Sprintf("column %d", col)
	if strings.Contains(strings.TrimRight(norm, " \t\n"), "\n") {
		where = fmt.Sprintf("line %d, column %d", strings.Count(norm[:abs], "\n")+1, col)
	}
	switch {
	case detail != "":
		detail = ": " + detail
	case atEnd:
		detail = ": unexpected end of input"
	}
	return engine.RuleGetItemSyntax.Errorf("syntax error at %s in %s%s", where, quoteSrc(src), detail)
}

// errorPosition extracts the 1-based line, the 0-based byte offset in that
// line and, for errors found by the lexer, the detail message from a gpython
// parse error.
func errorPosition(err error) (line, off int, detail string, ok bool) {
	e, isExc := err.(*py.Exception)
	if !isExc {
		return 0, 0, "", false
	}
	l, lok := e.Dict["lineno"].(py.Int)
	o, ook := e.Dict["offset"].(py.Int)
	if !lok || !ook {
		return 0, 0, "", false
	}
	msg := ""
	if args, isTuple := e.Args.(py.Tuple); isTuple && len(args) > 0 {
		if s, isStr := args[0].(py.String); isStr {
			msg = string(s)
		}
	}
	switch {
	case e.Base != py.SyntaxError:
		// A panic inside gpython's lexer, e.g. on a malformed number.
		detail = "invalid token"
	case msg == "unexpected EOF while parsing" || msg == "invalid syntax":
		// gpython's parser (or the lexer, on a character it does not
		// know) gives no useful message.
	default:
		detail = msg
	}
	return int(l), int(o), detail, true
}

// culprit returns the byte position in text of the start of the token or
// character the parser failed on, given gpython's error position.
func culprit(text string, line, off int, detail string) int {
	pos := bytePos(text, line, off)
	switch {
	case strings.Contains(detail, "string literal") && pos > 0 && off > 0:
		// The lexer stopped just after the opening quote: point at the
		// start of the string, prefix letters included.
		return stringStart(text, pos)
	case strings.Contains(detail, "string literal"):
		// An unterminated string spanning lines: the lexer stopped at
		// the end of the input.
		return len(text)
	case strings.HasPrefix(detail, "Decode error") && pos > 0:
		// The lexer stopped after the closing quote: point at it.
		return pos - 1
	case detail != "":
		// Other lexer errors leave the position at the bad token.
		return pos
	}
	if pos == 0 || pos > len(text) {
		return pos
	}
	if c := text[pos-1]; c == ' ' || c == '\t' || c == '\n' || c == '\\' {
		// No token ends here: the parser failed on what is at pos (the
		// end of the input or an unknown character).
		return pos
	}
	// Either the token ending at pos is bad, or what follows it (the end
	// of the input, the end of the line or an unknown character). Parse
	// the source up to pos with a trailing space: the end of input then
	// moves on by one, so an error at the same place means the token is
	// to blame.
	_, err := parser.ParseString(text[:pos]+" ", py.EvalMode)
	if err == nil {
		return pos
	}
	if l2, o2, _, ok := errorPosition(err); !ok || l2 != line || o2 != off {
		return pos
	}
	toks, _ := parser.LexString(text[:pos], py.EvalMode)
	start := pos
	for _, t := range toks {
		tl, tc, ok := tokenPos(t)
		if ok && tl >= 1 && (tl < line || tl == line && tc < off) {
			start = bytePos(text, tl, tc)
		}
	}
	return start
}

// tokenPos returns the line and column of a lexer token. LexToken keeps its
// position unexported; its String method ends with "line:col".
func tokenPos(t parser.LexToken) (line, col int, ok bool) {
	s := t.String()
	s = s[strings.LastIndexByte(s, ' ')+1:]
	if _, err := fmt.Sscanf(s, "%d:%d", &line, &col); err != nil {
		return 0, 0, false
	}
	return line, col, true
}

// stringStart returns the start of the string literal whose opening quotes
// end just before pos.
func stringStart(text string, pos int) int {
	p := pos
	for n := 0; n < 3 && p > 0 && (text[p-1] == '\'' || text[p-1] == '"'); n++ {
		p--
	}
	for n := 0; n < 2 && p > 0 && strings.IndexByte("rRbBuU", text[p-1]) >= 0; n++ {
		p--
	}
	return p
}

// bytePos converts a 1-based line and 0-based byte offset into a byte
// position in text, clamped to the text.
func bytePos(text string, line, off int) int {
	p := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(text[p:], '\n')
		if i < 0 {
			return len(text)
		}
		p += i + 1
	}
	p += off
	if p < 0 {
		return 0
	}
	if p > len(text) {
		return len(text)
	}
	return p
}

// newKeyword returns the syntax error of the first name in tree that is a
// keyword of the Python versions NumPy 1.24 runs on (3.8 to 3.11) but not
// of the 3.4 grammar gpython parses: async and await (keywords since 3.7),
// or nil. Python refuses such a subscript, so conform does too, rather
// than reading x[async] as an index array named async.
func newKeyword(src, norm, text string, skipped int, tree ast.Ast) error {
	var found *ast.Name
	ast.Walk(tree, func(n ast.Ast) bool {
		if name, ok := n.(*ast.Name); ok && found == nil && (name.Id == "async" || name.Id == "await") {
			found = name
		}
		return found == nil
	})
	if found == nil {
		return nil
	}
	pos := bytePos(text, found.Lineno, found.ColOffset)
	return syntaxErrorAt(src, norm, text, skipped, pos, fmt.Sprintf("%q is a keyword since Python 3.7", string(found.Id)))
}
