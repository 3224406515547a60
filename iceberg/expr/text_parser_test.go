package expr

import (
	"errors"
	"strings"
	"testing"
)

func TestParseTextTrees(t *testing.T) {
	cases := []struct{ in, want string }{
		{"a < 10", "a < 10"},
		{"a < 10 and b in ('x', 'y') and c is not null and d like 'abc%'",
			"(((a < 10 and b in ('x', 'y')) and c is not null) and d like 'abc%')"},
		{"a = 1", "a = 1"},
		{"a == 1", "a = 1"},
		{"a != 1", "a != 1"},
		{"a <> 1", "a != 1"},
		{"a <= -2.5", "a <= -2.5"},
		// Numbers keep their digits, in JSON's spelling.
		{"a >= 1e3", "a >= 1e3"},
		{"a > 1.5E-2", "a > 1.5E-2"},
		{"a > .5", "a > 0.5"},
		{"a > -007.50", "a > -7.50"},
		{"a > 5.", "a > 5.0"},
		{"a = 1e999", "a = 1e999"},
		{"a = 3.14159265358979323846264", "a = 3.14159265358979323846264"},
		{"a > +7", "a > 7"},
		{"10 > a", "a < 10"},
		{"10 <= a", "a >= 10"},
		{"'x' = a", "a = 'x'"},
		{"a is null", "a is null"},
		{"a IS NOT NULL", "a is not null"},
		{"a is nan", "a is nan"},
		{"a is not NaN", "a is not nan"},
		{"a in (1, 2, 3)", "a in (1, 2, 3)"},
		{"a not in ('p', 'q')", "a not in ('p', 'q')"},
		{"a like 'ab%'", "a like 'ab%'"},
		{"a not like 'ab%'", "a not like 'ab%'"},
		{"a like 'ab'", "a = 'ab'"},
		{"a not like 'ab'", "a != 'ab'"},
		{`a like '50\%%'`, `a like '50\%%'`},
		{"a = 'it''s'", "a = 'it''s'"},
		{"a = true", "a = true"},
		{"TRUE", "true"},
		{"false", "false"},
		{"not a = 1", "not (a = 1)"},
		{"not not a = 1", "not (not (a = 1))"},
		{"a = 1 or b = 2 and c = 3", "(a = 1 or (b = 2 and c = 3))"},
		{"(a = 1 or b = 2) and c = 3", "((a = 1 or b = 2) and c = 3)"},
		{"not a = 1 and b = 2", "(not (a = 1) and b = 2)"},
		{"a = 1 AND b = 2 Or c = 3", "((a = 1 and b = 2) or c = 3)"},
		{`"my col" = 1`, `"my col" = 1`},
		{`"and" = 1`, `"and" = 1`},
		{`"a""b" = 1`, `"a""b" = 1`},
		{"s.inner.x > 0", "s.inner.x > 0"},
		{`s."in ner".x > 0`, `s."in ner".x > 0`},
		{"col$1 = 1", "col$1 = 1"},
		{"a = 9223372036854775807", "a = 9223372036854775807"},
		{"a = 9223372036854775808", "a = 9223372036854775808"}, // beyond int64, exact
	}
	for _, c := range cases {
		e, err := ParseText(c.in)
		if err != nil {
			t.Errorf("ParseText(%q): %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("ParseText(%q) = %s, want %s", c.in, got, c.want)
		}
		again, err := ParseText(e.String())
		if err != nil || again.String() != e.String() {
			t.Errorf("re-parse of %q gave %v, %v", e.String(), again, err)
		}
	}
}

func TestParseTextLiteralTypes(t *testing.T) {
	e, err := ParseText("a in (1, 2.0, 'x', true)")
	if err != nil {
		t.Fatal(err)
	}
	p := e.(*Predicate)
	if p.Op != OpIn || p.Column != "a" {
		t.Fatalf("got %+v", p)
	}
	want := []any{int64(1), Number{"2.0"}, "x", true}
	for i, v := range want {
		if p.Values[i] != v {
			t.Errorf("value %d = %#v, want %#v", i, p.Values[i], v)
		}
	}
	e, _ = ParseText(`a like 'x\\y%'`)
	if got := e.(*Predicate).Values[0]; got != `x\y` {
		t.Errorf("escaped backslash gave %q", got)
	}
}

func TestParseTextErrors(t *testing.T) {
	cases := []struct {
		in      string
		pos     int
		message string
	}{
		{"", 0, "expected a column, a literal"},
		{"a <", 3, "expected a literal"},
		{"a < 10 and", 10, "expected a column"},
		{"a like '%abc'", 7, "LIKE pattern '%abc' is not supported"},
		{"a like 'a%c%'", 7, "not supported"},
		{"a is maybe", 5, "expected null or nan"},
		{"a in ()", 6, "expected a literal"},
		{"a in (1, 2", 10, "expected , or )"},
		{"a = 'open", 4, "unterminated string"},
		{`"open = 1`, 0, "unterminated quoted identifier"},
		{"(a = 1", 6, "expected )"},
		{"a = 1)", 5, "expected and, or or the end"},
		{"a between 1 and 2", 2, "expected a comparison operator"},
		{"a ! 1", 2, "expected !="},
		{"a = #", 4, "unexpected character"},
		{"and = 1", 0, "expected a column"},
		{`"" = 1`, 0, "empty quoted identifier"},
		{`"a." = 1`, 0, "empty part"},
		{"`a` = 1", 0, "unexpected character"},
		{"1 = 2", 4, "expected a column name"},
		{strings.Repeat("(", 600) + "a = 1" + strings.Repeat(")", 600), 501, "deeper than"},
	}
	for _, c := range cases {
		_, err := ParseText(c.in)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("ParseText(%q) error = %v, want a SyntaxError", c.in, err)
			continue
		}
		if se.Pos != c.pos || !strings.Contains(se.Msg, c.message) {
			t.Errorf("ParseText(%q) = %v, want position %d and %q", c.in, err, c.pos, c.message)
		}
	}
}

func TestSimplification(t *testing.T) {
	a, _ := NewPredicate(OpLt, "a", int64(1))
	cases := []struct {
		got  Expr
		want string
	}{
		{NewAnd(AlwaysTrue{}, a), "a < 1"},
		{NewAnd(a, AlwaysTrue{}), "a < 1"},
		{NewAnd(a, AlwaysFalse{}), "false"},
		{NewOr(a, AlwaysTrue{}), "true"},
		{NewOr(AlwaysFalse{}, a), "a < 1"},
		{NewNot(NewNot(a)), "a < 1"},
		{NewNot(AlwaysTrue{}), "false"},
		{NewNot(AlwaysFalse{}), "true"},
		{NewAnd(a, a), "(a < 1 and a < 1)"},
	}
	for i, c := range cases {
		if c.got.String() != c.want {
			t.Errorf("case %d: %s, want %s", i, c.got, c.want)
		}
	}
}

func TestNewPredicateChecks(t *testing.T) {
	bad := []func() (*Predicate, error){
		func() (*Predicate, error) { return NewPredicate(OpLt, "a") },
		func() (*Predicate, error) { return NewPredicate(OpIsNull, "a", int64(1)) },
		func() (*Predicate, error) { return NewPredicate(OpIn, "a") },
		func() (*Predicate, error) { return NewPredicate(OpEq, "", int64(1)) },
		func() (*Predicate, error) { return NewPredicate(OpEq, "a", nil) },
		func() (*Predicate, error) { return NewPredicate(OpEq, "a", int32(1)) },
		func() (*Predicate, error) { return NewPredicate(OpStartsWith, "a", int64(1)) },
	}
	for i, f := range bad {
		if _, err := f(); err == nil {
			t.Errorf("case %d: no error", i)
		}
	}
}
