package expr

import (
	"fmt"
	"strings"

	"github.com/floedb/floe/errkind"
)

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 500

// ParseText reads pyiceberg's row_filter syntax, e.g.
//
//	a < 10 and b in ('x', 'y') and c is not null and d like 'abc%'
//
// Comparisons (= == != <> < <= > >=, literal on either side), is [not]
// null, is [not] nan, [not] in (...), [not] like, and/or/not (not binds
// tightest, then and, then or), parentheses, true and false. Keywords ignore
// case. Identifiers are letters, digits, _ and $ (not first), or anything in
// double quotes ("" for a quote); dots separate nested names. Strings use
// single quotes (” for a quote). A LIKE pattern may only end in an
// unescaped % (starts with); without a % it is equality; \% is a literal %
// and \\ a backslash. Numbers without a point or exponent that fit are
// int64, others a Number holding their exact text. pyiceberg has no
// BETWEEN, and neither does this.
func ParseText(src string) (Expr, error) {
	toks, err := lex(src)
	if err != nil {
		return nil, err
	}
	p := &textParser{toks: toks}
	e, err := p.parseOr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.expected("and, or or the end of the filter", t)
	}
	return e, nil
}

type textParser struct {
	toks []token
	i    int
}

func (p *textParser) peek() token { return p.toks[p.i] }

func (p *textParser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *textParser) isKeyword(t token, kw string) bool {
	return t.kind == tokIdent && strings.EqualFold(t.text, kw)
}

func (p *textParser) acceptKeyword(kw string) bool {
	if p.isKeyword(p.peek(), kw) {
		p.i++
		return true
	}
	return false
}

func (p *textParser) expected(what string, got token) error {
	return &SyntaxError{got.pos, fmt.Sprintf("expected %s, found %s", what, got.describe())}
}

func (p *textParser) parseOr(depth int) (Expr, error) {
	left, err := p.parseAnd(depth)
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("or") {
		right, err := p.parseAnd(depth)
		if err != nil {
			return nil, err
		}
		left = &Or{Left: left, Right: right}
	}
	return left, nil
}

func (p *textParser) parseAnd(depth int) (Expr, error) {
	left, err := p.parseNot(depth)
	if err != nil {
		return nil, err
	}
	for p.acceptKeyword("and") {
		right, err := p.parseNot(depth)
		if err != nil {
			return nil, err
		}
		left = &And{Left: left, Right: right}
	}
	return left, nil
}

func (p *textParser) parseNot(depth int) (Expr, error) {
	if depth > maxDepth {
		return nil, &SyntaxError{p.peek().pos, fmt.Sprintf("filter nests deeper than %d levels", maxDepth)}
	}
	if p.acceptKeyword("not") {
		child, err := p.parseNot(depth + 1)
		if err != nil {
			return nil, err
		}
		return &Not{Child: child}, nil
	}
	return p.parsePrimary(depth)
}

func (p *textParser) parsePrimary(depth int) (Expr, error) {
	t := p.peek()
	switch {
	case t.kind == tokLParen:
		p.next()
		e, err := p.parseOr(depth + 1)
		if err != nil {
			return nil, err
		}
		if t := p.next(); t.kind != tokRParen {
			return nil, p.expected(")", t)
		}
		return e, nil
	case p.isKeyword(t, "true") || p.isKeyword(t, "false"):
		if p.toks[p.i+1].kind == tokOperator {
			return p.parseLiteralFirst()
		}
		p.next()
		if p.isKeyword(t, "true") {
			return AlwaysTrue{}, nil
		}
		return AlwaysFalse{}, nil
	case t.kind == tokString || t.kind == tokNumber:
		return p.parseLiteralFirst()
	case t.kind == tokIdent && !isKeyword(t.text) || t.kind == tokQuotedIdent:
		return p.parseColumnFirst()
	}
	return nil, p.expected("a column, a literal, not, true, false or (", t)
}

// parseLiteralFirst reads "10 > a", which pyiceberg accepts as "a < 10".
func (p *textParser) parseLiteralFirst() (Expr, error) {
	lit, err := p.parseLiteral()
	if err != nil {
		return nil, err
	}
	opTok := p.next()
	if opTok.kind != tokOperator {
		return nil, p.expected("a comparison operator", opTok)
	}
	col, err := p.parseColumn()
	if err != nil {
		return nil, err
	}
	return &Predicate{Op: comparisonOp(opTok.text).flip(), Column: col, Values: []any{lit}}, nil
}

func comparisonOp(text string) Op {
	switch text {
	case "<":
		return OpLt
	case "<=":
		return OpLtEq
	case ">":
		return OpGt
	case ">=":
		return OpGtEq
	case "!=", "<>":
		return OpNotEq
	}
	return OpEq
}

func (p *textParser) parseColumnFirst() (Expr, error) {
	col, err := p.parseColumn()
	if err != nil {
		return nil, err
	}
	pred := func(op Op, values ...any) *Predicate { return &Predicate{Op: op, Column: col, Values: values} }
	t := p.next()
	switch {
	case t.kind == tokOperator:
		lit, err := p.parseLiteral()
		if err != nil {
			return nil, err
		}
		return pred(comparisonOp(t.text), lit), nil
	case p.isKeyword(t, "is"):
		negated := p.acceptKeyword("not")
		switch {
		case p.acceptKeyword("null"):
			if negated {
				return pred(OpNotNull), nil
			}
			return pred(OpIsNull), nil
		case p.acceptKeyword("nan"):
			if negated {
				return pred(OpNotNaN), nil
			}
			return pred(OpIsNaN), nil
		}
		return nil, p.expected("null or nan", p.peek())
	case p.isKeyword(t, "in"):
		values, err := p.parseLiteralList()
		if err != nil {
			return nil, err
		}
		return pred(OpIn, values...), nil
	case p.isKeyword(t, "like"):
		return p.parseLike(col, false)
	case p.isKeyword(t, "not"):
		switch {
		case p.acceptKeyword("in"):
			values, err := p.parseLiteralList()
			if err != nil {
				return nil, err
			}
			return pred(OpNotIn, values...), nil
		case p.acceptKeyword("like"):
			return p.parseLike(col, true)
		}
		return nil, p.expected("in or like after not", p.peek())
	}
	return nil, p.expected("a comparison operator, is, in, not in, like or not like", t)
}

func (p *textParser) parseColumn() (string, error) {
	var parts []string
	for {
		t := p.next()
		switch {
		case t.kind == tokQuotedIdent || t.kind == tokIdent && !isKeyword(t.text):
			parts = append(parts, t.text)
		default:
			return "", p.expected("a column name", t)
		}
		if p.peek().kind != tokDot {
			col := strings.Join(parts, ".")
			// A dot inside a quoted name still separates nested names, so
			// "a..b" cannot be written.
			if strings.HasPrefix(col, ".") || strings.HasSuffix(col, ".") || strings.Contains(col, "..") {
				return "", &SyntaxError{t.pos, fmt.Sprintf("column name %q has an empty part", col)}
			}
			return col, nil
		}
		p.next()
	}
}

func (p *textParser) parseLiteralList() ([]any, error) {
	if t := p.next(); t.kind != tokLParen {
		return nil, p.expected("( to start the value list", t)
	}
	var values []any
	for {
		v, err := p.parseLiteral()
		if err != nil {
			return nil, err
		}
		values = append(values, v)
		switch t := p.next(); t.kind {
		case tokComma:
		case tokRParen:
			return values, nil
		default:
			return nil, p.expected(", or )", t)
		}
	}
}

func (p *textParser) parseLiteral() (any, error) {
	t := p.next()
	switch {
	case t.kind == tokString:
		return t.text, nil
	case t.kind == tokNumber:
		return parseNumber(t)
	case p.isKeyword(t, "true"):
		return true, nil
	case p.isKeyword(t, "false"):
		return false, nil
	case t.kind == tokQuotedIdent:
		// Double quotes name a column here, as in SQL; a user writing
		// "bob" almost always meant the string.
		return nil, &SyntaxError{t.pos, fmt.Sprintf("expected a literal, found the column name %q: strings take single quotes: '%s'",
			t.text, strings.ReplaceAll(t.text, "'", "''"))}
	}
	return nil, p.expected("a literal (a 'string', a number, true or false)", t)
}

func parseNumber(t token) (any, error) {
	v, err := numberLiteral(t.text)
	if err != nil {
		return nil, &SyntaxError{t.pos, err.Error()}
	}
	return v, nil
}

// parseLike turns a LIKE pattern into starts-with (trailing %) or equality
// (no %); Iceberg has no predicate for other patterns.
func (p *textParser) parseLike(col string, negated bool) (Expr, error) {
	t := p.next()
	if t.kind != tokString {
		return nil, p.expected("a 'pattern' after like", t)
	}
	var lit strings.Builder
	wildcard := false
	for i := 0; i < len(t.text); i++ {
		c := t.text[i]
		switch {
		case c == '\\' && i+1 < len(t.text) && (t.text[i+1] == '%' || t.text[i+1] == '\\'):
			i++
			lit.WriteByte(t.text[i])
		case c == '%' && i == len(t.text)-1:
			wildcard = true
		case c == '%':
			return nil, errkind.Wrap(errkind.Unsupported, &SyntaxError{t.pos, fmt.Sprintf("LIKE pattern '%s' is not supported: only a single trailing %% (starts with) is; write \\%% for a literal %%", t.text)})
		default:
			lit.WriteByte(c)
		}
	}
	op := OpEq
	if wildcard {
		op = OpStartsWith
	}
	if negated {
		op = op.Negate()
	}
	return &Predicate{Op: op, Column: col, Values: []any{lit.String()}}, nil
}
