package expr

import (
	"regexp"
	"strings"
)

// Python's numeric literals (PEP 515, Python 3.6), as the pattern of its
// tokenize module spells them, alternatives in its order: digits may be
// grouped by single underscores, between digits and after a base prefix.
const (
	digitPart   = `[0-9](?:_?[0-9])*`
	exponent    = `[eE][-+]?` + digitPart
	pointFloat  = `(?:` + digitPart + `\.(?:` + digitPart + `)?|\.` + digitPart + `)(?:` + exponent + `)?`
	floatNumber = `(?:` + pointFloat + `|` + digitPart + exponent + `)`
	imagNumber  = `(?:` + digitPart + `[jJ]|` + floatNumber + `[jJ])`
	intNumber   = `(?:0[xX](?:_?[0-9a-fA-F])+|0[bB](?:_?[01])+|0[oO](?:_?[0-7])+|0(?:_?0)*|[1-9](?:_?[0-9])*)`
)

// numberLiteral matches a numeric literal at the start of a string.
var numberLiteral = regexp.MustCompile(`^(?:` + imagNumber + `|` + floatNumber + `|` + intNumber + `)`)

// joinDigitGroups returns text with the underscores that group the digits
// of its numeric literals (x[1_000], x[0x_ff]) taken out, each literal
// followed by as many spaces as it lost, so that every other token keeps
// its position. The 3.4 grammar conform parses with has no digit groups;
// the Pythons NumPy 1.24 runs on (3.8 to 3.11) read 1_000 as 1000. An
// underscore Python does not take in a literal (1__0, 1_, 0_7) is left
// where it is, and the parser refuses it as Python does. Strings,
// comments and names are skipped whole.
func joinDigitGroups(text string) string {
	if !strings.Contains(text, "_") {
		return text
	}
	var b []byte // the rewritten text, made at the first group
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '#':
			i = skipComment(text, i)
		case c == '\'' || c == '"':
			i = skipString(text, i)
		case isNameByte(c) && !isDigit(c):
			i = skipName(text, i)
		case strings.HasPrefix(text[i:], "..."):
			i += 3
		case isDigit(c) || c == '.' && i+1 < len(text) && isDigit(text[i+1]):
			lit := numberLiteral.FindString(text[i:])
			if strings.Contains(lit, "_") {
				if b == nil {
					b = []byte(text)
				}
				joined := strings.ReplaceAll(lit, "_", "")
				copy(b[i:], joined)
				for k := i + len(joined); k < i+len(lit); k++ {
					b[k] = ' '
				}
			}
			i += max(len(lit), 1)
		default:
			i++
		}
	}
	if b == nil {
		return text
	}
	return string(b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// isNameByte reports whether c may be part of a name: an ASCII letter,
// digit or underscore, or any byte of a non-ASCII character.
func isNameByte(c byte) bool {
	return c == '_' || c >= 0x80 || isDigit(c) || 'a' <= c|0x20 && c|0x20 <= 'z'
}

// skipComment returns the position of the newline that ends the comment
// at text[i], or the end of text.
func skipComment(text string, i int) int {
	if n := strings.IndexByte(text[i:], '\n'); n >= 0 {
		return i + n
	}
	return len(text)
}

// skipName returns the position after the name (or string prefix) at
// text[i]: ASCII letters, digits, underscores and any non-ASCII byte.
func skipName(text string, i int) int {
	for i < len(text) && isNameByte(text[i]) {
		i++
	}
	return i
}

// skipString returns the position after the string literal that opens at
// text[i] (a backslash escapes the next byte, as the tokenizer reads raw
// strings too); an unterminated single-quoted one ends at its line's end,
// a triple-quoted one at the end of text: the parser reports either.
func skipString(text string, i int) int {
	q := text[i]
	if strings.HasPrefix(text[i:], string([]byte{q, q, q})) {
		for k := i + 3; k < len(text); k++ {
			switch {
			case text[k] == '\\':
				k++
			case strings.HasPrefix(text[k:], string([]byte{q, q, q})):
				return k + 3
			}
		}
		return len(text)
	}
	for k := i + 1; k < len(text); k++ {
		switch text[k] {
		case '\\':
			k++
		case q:
			return k + 1
		case '\n':
			return k
		}
	}
	return len(text)
}
