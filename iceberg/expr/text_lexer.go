package expr

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/floedb/floe/errkind"
)

type tokenKind uint8

const (
	tokEOF tokenKind = iota
	tokIdent
	tokQuotedIdent
	tokString
	tokNumber
	tokOperator // < <= > >= = == != <>
	tokLParen
	tokRParen
	tokComma
	tokDot
)

type token struct {
	kind tokenKind
	text string // identifier name, unescaped string, number or operator text
	pos  int    // byte offset in the input
}

func (t token) describe() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return fmt.Sprintf("string '%s'", t.text)
	case tokQuotedIdent:
		return fmt.Sprintf("identifier %q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

var keywords = []string{"and", "or", "not", "is", "in", "null", "nan", "like", "true", "false"}

func isKeyword(s string) bool {
	for _, k := range keywords {
		if strings.EqualFold(s, k) {
			return true
		}
	}
	return false
}

// SyntaxError reports where a row filter stopped making sense.
type SyntaxError struct {
	Pos int // byte offset in the input
	Msg string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("row filter: at position %d: %s", e.Pos, e.Msg)
}

// Unwrap gives a syntax error its kind: the caller's filter is wrong.
func (e *SyntaxError) Unwrap() error { return errkind.InvalidArgument }

func lex(src string) ([]token, error) {
	// Names and strings must survive the JSON form, which is UTF-8.
	if !utf8.ValidString(src) {
		for i, r := range src {
			if r == utf8.RuneError {
				return nil, &SyntaxError{i, "invalid UTF-8"}
			}
		}
	}
	var toks []token
	i := 0
	for i < len(src) {
		c := src[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
			continue
		case c == '(':
			toks = append(toks, token{tokLParen, "(", start})
			i++
		case c == ')':
			toks = append(toks, token{tokRParen, ")", start})
			i++
		case c == ',':
			toks = append(toks, token{tokComma, ",", start})
			i++
		case c == '.' && !(i+1 < len(src) && isDigit(src[i+1])):
			toks = append(toks, token{tokDot, ".", start})
			i++
		case c == '<' || c == '>' || c == '=' || c == '!':
			op := string(c)
			if i+1 < len(src) {
				two := src[i : i+2]
				if two == "<=" || two == ">=" || two == "==" || two == "!=" || two == "<>" {
					op = two
				}
			}
			if op == "!" {
				return nil, &SyntaxError{start, "expected != after !"}
			}
			toks = append(toks, token{tokOperator, op, start})
			i += len(op)
		case c == '\'' || c == '"':
			text, n, ok := scanQuoted(src[i:], c)
			if !ok {
				what := "string"
				if c == '"' {
					what = "quoted identifier"
				}
				return nil, &SyntaxError{start, "unterminated " + what}
			}
			kind := tokString
			if c == '"' {
				kind = tokQuotedIdent
				if text == "" {
					return nil, &SyntaxError{start, "empty quoted identifier"}
				}
			}
			toks = append(toks, token{kind, text, start})
			i += n
		case isDigit(c) || c == '.' || c == '-' || c == '+':
			n := scanNumber(src[i:])
			if n == 0 {
				return nil, &SyntaxError{start, fmt.Sprintf("expected a number after %q", c)}
			}
			toks = append(toks, token{tokNumber, src[i : i+n], start})
			i += n
		case isIdentStart(c):
			j := i + 1
			for j < len(src) && isIdentPart(src[j]) {
				j++
			}
			toks = append(toks, token{tokIdent, src[i:j], start})
			i = j
		case c == '&' || c == '|':
			// C's and SQL dialects' spellings of the connectives.
			word := map[byte]string{'&': "and", '|': "or"}[c]
			n := 1
			if i+1 < len(src) && src[i+1] == c {
				n = 2
			}
			return nil, &SyntaxError{start, fmt.Sprintf("unexpected %q: use %s", src[i:i+n], word)}
		default:
			return nil, &SyntaxError{start, fmt.Sprintf("unexpected character %q", rune(src[i]))}
		}
	}
	return append(toks, token{tokEOF, "", len(src)}), nil
}

func isDigit(c byte) bool      { return c >= '0' && c <= '9' }
func isIdentStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || isDigit(c) || c == '$' }

// scanQuoted reads a quote-delimited run where a doubled quote stands for
// one, returning the unescaped text and the bytes consumed.
func scanQuoted(s string, quote byte) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		if s[i] != quote {
			b.WriteByte(s[i])
			continue
		}
		if i+1 < len(s) && s[i+1] == quote {
			b.WriteByte(quote)
			i++
			continue
		}
		return b.String(), i + 1, true
	}
	return "", 0, false
}

// scanNumber gives the length of [+-]?(digits[.digits*]|.digits)([eE][+-]?digits)?
// at the start of s, or 0.
func scanNumber(s string) int {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits := 0
	for i < len(s) && isDigit(s[i]) {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		k := j
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		if k > j {
			i = k
		}
	}
	return i
}
