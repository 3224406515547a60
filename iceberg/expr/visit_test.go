package expr

import (
	"testing"

	"github.com/floedb/floe/iceberg"
)

// printer rebuilds the text form through the visitor, so the test sees
// every node in its place.
type printer struct{}

func (printer) True() string                                { return "true" }
func (printer) False() string                               { return "false" }
func (printer) And(l, r string) string                      { return "(" + l + " and " + r + ")" }
func (printer) Or(l, r string) string                       { return "(" + l + " or " + r + ")" }
func (printer) Not(c string) (string, error)                { return "not " + parenthesize(c), nil }
func (printer) Predicate(p *BoundPredicate) (string, error) { return p.String(), nil }

func TestVisitWalksEveryNode(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "a", Type: iceberg.IntType{}},
		{ID: 2, Name: "b", Type: iceberg.StringType{}},
	})
	for _, text := range []string{"a = 1", "(a < 1 or b = 'x')", "(a > 2 and not (b like 'p%'))", "true", "false"} {
		e, err := ParseText(text)
		if err != nil {
			t.Fatal(err)
		}
		bound, err := Bind(e, schema, false)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Visit[string](bound, printer{})
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if got != bound.String() {
			t.Errorf("%s: visited as %s, want %s", text, got, bound.String())
		}
	}
}

func TestVisitRejectsUnboundAndNil(t *testing.T) {
	p, _ := NewPredicate(OpEq, "a", int64(1))
	if _, err := Visit[string](&And{Left: AlwaysTrue{}, Right: p}, printer{}); err == nil {
		t.Errorf("unbound predicate: %v", err)
	}
	if _, err := Visit[string](&Or{Left: nil, Right: AlwaysTrue{}}, printer{}); err == nil {
		t.Error("nil child: no error")
	}
}
