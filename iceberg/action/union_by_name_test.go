package action

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
)

const testTable = "db.events"

// fixturesDir holds the real tables (testdata/fixtures/INDEX.md).
const fixturesDir = "../../testdata/fixtures"

func opt(id int, name string, t iceberg.Type) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: t}
}
func req(id int, name string, t iceberg.Type) iceberg.NestedField {
	return iceberg.NestedField{ID: id, Name: name, Type: t, Required: true}
}
func structOf(fields ...iceberg.NestedField) *iceberg.StructType {
	return &iceberg.StructType{Fields: fields}
}

func union(t *testing.T, cur, want *iceberg.Schema, last int) (*iceberg.Schema, int, bool) {
	t.Helper()
	got, newLast, changed, err := UnionByName(cur, want, last, testTable)
	if err != nil {
		t.Fatalf("UnionByName: %v", err)
	}
	return got, newLast, changed
}

// refused checks a refusal names the table and the dotted column, and says
// why in words containing reason.
func refused(t *testing.T, cur, want *iceberg.Schema, last int, column, reason string) {
	t.Helper()
	got, _, _, err := UnionByName(cur, want, last, testTable)
	if err == nil {
		t.Fatalf("UnionByName accepted it, giving %v; want a refusal of %s", got, column)
	}
	var sue *SchemaUpdateError
	if !errors.As(err, &sue) {
		t.Fatalf("error %v is a %T, not a *SchemaUpdateError", err, err)
	}
	msg := err.Error()
	if sue.Table != testTable || sue.Column != column || !strings.Contains(msg, testTable) || !strings.Contains(msg, `"`+column+`"`) {
		t.Errorf("error %q names table %q column %q; want %q and %q", msg, sue.Table, sue.Column, testTable, column)
	}
	if !strings.Contains(msg, reason) {
		t.Errorf("error %q does not say %q", msg, reason)
	}
}

func mustField(t *testing.T, s *iceberg.Schema, name string) iceberg.NestedField {
	t.Helper()
	f, ok := s.FindFieldByName(name)
	if !ok {
		t.Fatalf("no column %q in %v", name, s)
	}
	return f
}

func fieldNames(fields []iceberg.NestedField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

func TestUnionByNameAddsTopLevelColumnsAfterLastColumnID(t *testing.T) {
	cur := iceberg.NewSchema(3, []iceberg.NestedField{req(1, "id", iceberg.LongType{}), opt(2, "name", iceberg.StringType{})}, 1)
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(0, "score", iceberg.DoubleType{}),
		req(0, "id", iceberg.LongType{}),
		{Name: "note", Type: iceberg.StringType{}, Doc: "free text"},
	})
	// Ids 3..5 belonged to columns since dropped: new columns start at 6.
	got, last, changed := union(t, cur, want, 5)
	if !changed || last != 7 || got.ID != 4 {
		t.Fatalf("changed=%v last=%d schema id=%d; want true, 7, 4", changed, last, got.ID)
	}
	if names := fieldNames(got.Fields); !slices.Equal(names, []string{"id", "name", "score", "note"}) {
		t.Errorf("field order %v", names)
	}
	if f := mustField(t, got, "score"); f.ID != 6 || f.Required || f.Type != (iceberg.DoubleType{}) {
		t.Errorf("score = %v", f)
	}
	if f := mustField(t, got, "note"); f.ID != 7 || f.Doc != "free text" {
		t.Errorf("note = %v doc %q", f, f.Doc)
	}
	if !slices.Equal(got.IdentifierFieldIDs, []int{1}) {
		t.Errorf("identifier fields %v", got.IdentifierFieldIDs)
	}
	// The input schemas are left as they were.
	if len(cur.Fields) != 2 || want.Fields[0].ID != 0 {
		t.Errorf("inputs modified: %v / %v", cur, want)
	}
}

func TestUnionByNameAddsColumnsThreeDeepInListAndMapStructs(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		req(1, "id", iceberg.LongType{}),
		opt(2, "events", &iceberg.ListType{ElementID: 3, Element: structOf(
			opt(4, "kind", iceberg.StringType{}),
			opt(5, "detail", structOf(opt(6, "code", iceberg.IntType{}))),
		)}),
		opt(7, "attrs", &iceberg.MapType{KeyID: 8, Key: iceberg.StringType{}, ValueID: 9, Value: structOf(
			opt(10, "x", iceberg.IntType{}),
			opt(11, "inner", structOf(opt(12, "y", iceberg.IntType{}))),
		)}),
	})
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(0, "tags", &iceberg.ListType{Element: iceberg.StringType{}}),
		opt(0, "attrs", &iceberg.MapType{Key: iceberg.StringType{}, Value: structOf(
			opt(0, "inner", structOf(opt(0, "z", iceberg.StringType{}), opt(0, "y", iceberg.IntType{}))),
		)}),
		opt(0, "events", &iceberg.ListType{Element: structOf(
			opt(0, "extra", iceberg.DoubleType{}),
			opt(0, "detail", structOf(opt(0, "code", iceberg.IntType{}), opt(0, "reason", iceberg.StringType{}))),
		)}),
		req(0, "id", iceberg.LongType{}),
	})
	got, last, changed := union(t, cur, want, 15)
	if !changed || last != 20 {
		t.Fatalf("changed=%v last=%d; want true, 20", changed, last)
	}
	// Existing structs are walked in the table's order, each struct's new
	// fields numbered after its existing fields' additions.
	for name, id := range map[string]int{
		"id": 1, "events": 2, "events.element": 3, "events.element.kind": 4,
		"events.element.detail": 5, "events.element.detail.code": 6,
		"events.element.detail.reason": 16, "events.element.extra": 17,
		"attrs": 7, "attrs.key": 8, "attrs.value": 9, "attrs.value.x": 10,
		"attrs.value.inner": 11, "attrs.value.inner.y": 12, "attrs.value.inner.z": 18,
		"tags": 19, "tags.element": 20,
	} {
		if f := mustField(t, got, name); f.ID != id {
			t.Errorf("%s has id %d, want %d", name, f.ID, id)
		}
	}
	elem := got.Fields[1].Type.(*iceberg.ListType).Element.(*iceberg.StructType)
	if names := fieldNames(elem.Fields); !slices.Equal(names, []string{"kind", "detail", "extra"}) {
		t.Errorf("events.element fields %v", names)
	}
	inner := mustField(t, got, "attrs.value.inner").Type.(*iceberg.StructType)
	if names := fieldNames(inner.Fields); !slices.Equal(names, []string{"y", "z"}) {
		t.Errorf("attrs.value.inner fields %v", names)
	}
	again, againLast, againChanged := union(t, got, want, last)
	if againChanged || againLast != last || again != got {
		t.Errorf("second union changed=%v last=%d", againChanged, againLast)
	}
}

func TestUnionByNameNumbersANewStructsFieldsAfterIt(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{})})
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(1, "a", iceberg.IntType{}),
		opt(0, "s", structOf(
			opt(0, "p", iceberg.IntType{}),
			opt(0, "q", structOf(opt(0, "r", iceberg.IntType{}))),
			opt(0, "t", &iceberg.ListType{Element: structOf(opt(0, "u", iceberg.IntType{}))}),
			opt(0, "m", &iceberg.MapType{Key: iceberg.StringType{}, Value: structOf(opt(0, "v", iceberg.IntType{}))}),
		)),
		opt(0, "y", iceberg.IntType{}),
	})
	got, last, _ := union(t, cur, want, 5)
	for name, id := range map[string]int{
		"s": 6, "s.p": 7, "s.q": 8, "s.t": 9, "s.m": 10,
		"s.q.r": 11, "s.t.element": 12, "s.t.element.u": 13,
		"s.m.key": 14, "s.m.value": 15, "s.m.value.v": 16, "y": 17,
	} {
		if f := mustField(t, got, name); f.ID != id {
			t.Errorf("%s has id %d, want %d", name, f.ID, id)
		}
	}
	if last != 17 {
		t.Errorf("last column id %d, want 17", last)
	}
}

func TestUnionByNameMakesColumnsOptional(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		req(1, "a", iceberg.IntType{}),
		req(2, "l", &iceberg.ListType{ElementID: 3, Element: iceberg.IntType{}, ElementRequired: true}),
		req(4, "m", &iceberg.MapType{KeyID: 5, Key: iceberg.StringType{}, ValueID: 6, Value: iceberg.IntType{}, ValueRequired: true}),
		req(7, "s", structOf(req(8, "b", iceberg.IntType{}))),
	})
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(0, "a", iceberg.IntType{}),
		req(0, "l", &iceberg.ListType{Element: iceberg.IntType{}}),
		req(0, "m", &iceberg.MapType{Key: iceberg.StringType{}, Value: iceberg.IntType{}}),
		req(0, "s", structOf(opt(0, "b", iceberg.IntType{}))),
	})
	got, last, changed := union(t, cur, want, 8)
	if !changed || last != 8 {
		t.Fatalf("changed=%v last=%d", changed, last)
	}
	for name, required := range map[string]bool{"a": false, "l": true, "l.element": false, "m": true, "m.value": false, "s": true, "s.b": false} {
		if f := mustField(t, got, name); f.Required != required {
			t.Errorf("%s required=%v, want %v", name, f.Required, required)
		}
	}
}

func TestUnionByNameLeavesOptionalColumnsOptionalWhenWantedRequiresThem(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{}), opt(2, "l", &iceberg.ListType{ElementID: 3, Element: iceberg.IntType{}})})
	want := iceberg.NewSchema(0, []iceberg.NestedField{req(0, "a", iceberg.IntType{}), opt(0, "l", &iceberg.ListType{Element: iceberg.IntType{}, ElementRequired: true})})
	got, last, changed := union(t, cur, want, 3)
	if changed || got != cur || last != 3 {
		t.Errorf("changed=%v last=%d schema %v; want the table's schema unchanged", changed, last, got)
	}
}

func TestUnionByNameKeepsColumnsWantedLacks(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		req(1, "id", iceberg.LongType{}),
		opt(2, "old", iceberg.StringType{}),
		{ID: 3, Name: "region", Type: iceberg.StringType{}, Required: true, InitialDefault: "eu", WriteDefault: "eu"},
		opt(4, "s", structOf(opt(5, "gone", iceberg.IntType{}), opt(6, "kept", iceberg.IntType{}))),
	})
	want := iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.LongType{}), opt(0, "s", structOf(opt(0, "kept", iceberg.IntType{}))), opt(0, "new", iceberg.IntType{})})
	got, _, changed := union(t, cur, want, 6)
	if !changed {
		t.Fatal("adding new did not change the schema")
	}
	if names := fieldNames(got.Fields); !slices.Equal(names, []string{"id", "old", "region", "s", "new"}) {
		t.Errorf("fields %v", names)
	}
	if f := mustField(t, got, "s.gone"); f.ID != 5 {
		t.Errorf("s.gone = %v", f)
	}
	// Dropping only optional columns (and one with a write-default) is no
	// change at all.
	want = iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.LongType{})})
	if _, _, changed := union(t, cur, want, 6); changed {
		t.Error("a wanted schema with fewer columns changed the table")
	}
}

func TestUnionByNameRefusesDroppingARequiredColumn(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		req(1, "id", iceberg.LongType{}),
		opt(2, "s", structOf(req(3, "must", iceberg.IntType{}), opt(4, "may", iceberg.IntType{}))),
	})
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "s", structOf(req(0, "must", iceberg.IntType{})))}), 4, "id", "missing from the wanted schema")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.LongType{}), opt(0, "s", structOf(opt(0, "may", iceberg.IntType{})))}), 4, "s.must", "missing from the wanted schema")
	// Without the optional struct at all, its required field is no concern.
	union(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.LongType{})}), 4)
}

func TestUnionByNameRefusesTypeChanges(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(1, "a", iceberg.StringType{}),
		opt(2, "l", &iceberg.ListType{ElementID: 3, Element: structOf(opt(4, "price", iceberg.DecimalType{Precision: 10, Scale: 2}))}),
		opt(5, "d", iceberg.DateType{}),
		opt(6, "s", structOf(opt(7, "x", iceberg.IntType{}))),
		opt(8, "ts", iceberg.TimestampType{}),
		opt(9, "f", iceberg.FixedType{Length: 4}),
	})
	for _, c := range []struct {
		column string
		field  iceberg.NestedField
		reason string
	}{
		{"a", opt(0, "a", iceberg.IntType{}), "cannot change type from string to int"},
		{"l.element.price", opt(0, "l", &iceberg.ListType{Element: structOf(opt(0, "price", iceberg.DecimalType{Precision: 12, Scale: 3}))}), "from decimal(10, 2) to decimal(12, 3)"},
		{"l.element.price", opt(0, "l", &iceberg.ListType{Element: structOf(opt(0, "price", iceberg.DoubleType{}))}), "from decimal(10, 2) to double"},
		{"d", opt(0, "d", iceberg.TimestampType{}), "from date to timestamp"},
		{"d", opt(0, "d", iceberg.TimestampNsType{}), "from date to timestamp_ns"},
		{"s", opt(0, "s", iceberg.IntType{}), "from a struct to int"},
		{"a", opt(0, "a", structOf(opt(0, "x", iceberg.IntType{}))), "from string to a struct"},
		{"ts", opt(0, "ts", iceberg.TimestamptzType{}), "from timestamp to timestamptz"},
		{"f", opt(0, "f", iceberg.FixedType{Length: 8}), "from fixed[4] to fixed[8]"},
		{"l", opt(0, "l", &iceberg.MapType{Key: iceberg.StringType{}, Value: iceberg.IntType{}}), "from a list to a map"},
	} {
		t.Run(c.column+" "+c.field.Type.String(), func(t *testing.T) {
			refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{c.field}), 9, c.column, c.reason)
		})
	}
}

func TestUnionByNamePromotes(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}, InitialDefault: int32(-1), WriteDefault: int32(7)},
		{ID: 2, Name: "f", Type: iceberg.FloatType{}, InitialDefault: float32(1.5)},
		opt(3, "d", iceberg.DecimalType{Precision: 9, Scale: 2}),
		opt(4, "u", iceberg.UnknownType{}),
		opt(5, "l", &iceberg.ListType{ElementID: 6, Element: iceberg.IntType{}}),
		opt(7, "nu", iceberg.UnknownType{}),
	})
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(0, "i", iceberg.LongType{}),
		opt(0, "f", iceberg.DoubleType{}),
		opt(0, "d", iceberg.DecimalType{Precision: 18, Scale: 2}),
		opt(0, "u", iceberg.StringType{}),
		opt(0, "l", &iceberg.ListType{Element: iceberg.LongType{}}),
		opt(0, "nu", structOf(opt(0, "a", iceberg.IntType{}), opt(0, "b", &iceberg.ListType{Element: iceberg.IntType{}}))),
	})
	got, last, changed := union(t, cur, want, 7)
	if !changed || last != 10 {
		t.Fatalf("changed=%v last=%d; want true, 10", changed, last)
	}
	i := mustField(t, got, "i")
	if i.Type != (iceberg.LongType{}) || i.InitialDefault != int64(-1) || i.WriteDefault != int64(7) {
		t.Errorf("i = %v defaults %#v %#v; want long with int64 defaults", i, i.InitialDefault, i.WriteDefault)
	}
	if f := mustField(t, got, "f"); f.Type != (iceberg.DoubleType{}) || f.InitialDefault != float64(1.5) {
		t.Errorf("f = %v default %#v", f, f.InitialDefault)
	}
	for name, typ := range map[string]iceberg.Type{"d": iceberg.DecimalType{Precision: 18, Scale: 2}, "u": iceberg.StringType{}, "l.element": iceberg.LongType{}} {
		if f := mustField(t, got, name); f.Type != typ {
			t.Errorf("%s is %v, want %v", name, f.Type, typ)
		}
	}
	// An unknown column that becomes a struct has only held nulls: its
	// children are new columns.
	for name, id := range map[string]int{"nu": 7, "nu.a": 8, "nu.b": 9, "nu.b.element": 10} {
		if f := mustField(t, got, name); f.ID != id {
			t.Errorf("%s has id %d, want %d", name, f.ID, id)
		}
	}
	if _, err := json.Marshal(got); err != nil {
		t.Errorf("promoted schema does not encode: %v", err)
	}
	// The table keeps its wider types when data of the narrower ones comes.
	if _, _, changed := union(t, got, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "i", iceberg.IntType{}), opt(0, "f", iceberg.FloatType{}), opt(0, "d", iceberg.DecimalType{Precision: 9, Scale: 2}), opt(0, "u", iceberg.UnknownType{})}), last); changed {
		t.Error("narrower wanted types changed the table")
	}
}

func TestUnionByNameCarriesNestedDefaultsThroughChanges(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		// {} with sub-field x: a struct default is null or {}, per the spec.
		{ID: 1, Name: "s", Type: structOf(opt(2, "x", iceberg.IntType{})), InitialDefault: []any{nil}, WriteDefault: []any{nil}},
		{ID: 3, Name: "l", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.IntType{}}, InitialDefault: []any{int32(1), nil}},
		{ID: 5, Name: "m", Type: &iceberg.MapType{KeyID: 6, Key: iceberg.StringType{}, ValueID: 7, Value: iceberg.FloatType{}}, WriteDefault: iceberg.MapValue{Keys: []any{"a"}, Values: []any{float32(0.5)}}},
	})
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(0, "s", structOf(opt(0, "y", iceberg.StringType{}), opt(0, "x", iceberg.LongType{}))),
		opt(0, "l", &iceberg.ListType{Element: iceberg.LongType{}}),
		opt(0, "m", &iceberg.MapType{Key: iceberg.StringType{}, Value: iceberg.DoubleType{}}),
	})
	got, _, _ := union(t, cur, want, 7)
	s := mustField(t, got, "s")
	if !slices.Equal(s.InitialDefault.([]any), []any{nil, nil}) || len(s.WriteDefault.([]any)) != 2 {
		t.Errorf("s defaults %#v %#v; want two null sub-values", s.InitialDefault, s.WriteDefault)
	}
	if l := mustField(t, got, "l"); !slices.Equal(l.InitialDefault.([]any), []any{int64(1), nil}) {
		t.Errorf("l initial-default %#v", l.InitialDefault)
	}
	if m := mustField(t, got, "m").WriteDefault.(iceberg.MapValue); m.Keys[0] != "a" || m.Values[0] != float64(0.5) {
		t.Errorf("m write-default %#v", m)
	}
	encoded, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back iceberg.Schema
	if err := json.Unmarshal(encoded, &back); err != nil {
		t.Fatalf("%s: %v", encoded, err)
	}
	if again, _ := json.Marshal(&back); string(again) != string(encoded) {
		t.Errorf("round trip changed the schema:\n%s\n%s", encoded, again)
	}
}

func TestUnionByNameRefusesANewRequiredColumnWithoutDefaults(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{}), opt(2, "s", structOf(opt(3, "x", iceberg.IntType{})))})
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "b", iceberg.IntType{})}), 3, "b", "cannot add a required column")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "s", structOf(req(0, "y", iceberg.IntType{})))}), 3, "s.y", "cannot add a required column")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "b", Type: iceberg.IntType{}, Required: true, InitialDefault: int32(0)}}), 3, "b", "write-default")
	// A required struct that old rows read as {} needs defaults on its
	// required fields too.
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "n", Type: structOf(req(0, "r", iceberg.IntType{})), Required: true, InitialDefault: []any{nil}, WriteDefault: []any{nil}}}), 3, "n.r", "cannot add a required column")

	// With both defaults it is accepted and keeps them.
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		{Name: "b", Type: iceberg.IntType{}, Required: true, InitialDefault: int32(0), WriteDefault: int32(1), Doc: "bee"},
		// Required fields inside a new optional struct read as part of a
		// null struct in old rows: no defaults needed.
		opt(0, "n", structOf(req(0, "r", iceberg.IntType{}))),
	})
	got, last, _ := union(t, cur, want, 3)
	b := mustField(t, got, "b")
	if !b.Required || b.ID != 4 || b.InitialDefault != int32(0) || b.WriteDefault != int32(1) || b.Doc != "bee" {
		t.Errorf("b = %v defaults %v %v doc %q", b, b.InitialDefault, b.WriteDefault, b.Doc)
	}
	if r := mustField(t, got, "n.r"); !r.Required || r.ID != 6 || last != 6 {
		t.Errorf("n.r = %v, last %d", r, last)
	}
}

func TestUnionByNameRefusesBadDefaultsOnNewColumns(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{})})
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "b", Type: iceberg.IntType{}, InitialDefault: "seven"}}), 1, "b", "initial-default")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "u", Type: iceberg.UnknownType{}, WriteDefault: int32(1)}}), 1, "u", "must default to null")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "d", iceberg.DecimalType{Precision: 40, Scale: 2})}), 1, "d", "precision must be 1..38")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "", iceberg.IntType{})}), 1, "", "needs a name")
}

func TestUnionByNameChecksGivenFieldIDs(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(1, "a", iceberg.IntType{}),
		opt(2, "l", &iceberg.ListType{ElementID: 3, Element: structOf(opt(4, "x", iceberg.IntType{}))}),
		opt(5, "m", &iceberg.MapType{KeyID: 6, Key: iceberg.StringType{}, ValueID: 7, Value: iceberg.IntType{}}),
	})
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(9, "a", iceberg.IntType{})}), 9, "a", "wanted field id 9 differs from the table's id 1")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(2, "l", &iceberg.ListType{ElementID: 3, Element: structOf(opt(1, "x", iceberg.IntType{}))})}), 9, "l.element.x", "differs from the table's id 4")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "l", &iceberg.ListType{ElementID: 30, Element: structOf()})}), 9, "l.element", "differs from the table's id 3")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "m", &iceberg.MapType{KeyID: 7, Key: iceberg.StringType{}, ValueID: 6, Value: iceberg.IntType{}})}), 9, "m.key", "differs from the table's id 6")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "m", &iceberg.MapType{KeyID: 6, Key: iceberg.StringType{}, ValueID: 9, Value: iceberg.IntType{}})}), 9, "m.value", "differs from the table's id 7")
	// A renamed column keeps its id in the table; by name it is a new
	// column, and its id is the old column's.
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "renamed", iceberg.IntType{})}), 9, "renamed", `belongs to the table's column "a"`)
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(8, "b", iceberg.IntType{})}), 9, "b", "column since dropped")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(12, "b", iceberg.IntType{}), opt(12, "c", iceberg.IntType{})}), 9, "c", `also given to column "b"`)
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(highestAssignableFieldID+1, "b", iceberg.IntType{})}), 9, "b", "reserves")

	// Ids ≤ 0 are "none given"; the table's own ids are accepted; a new
	// column's id above last-column-id is honoured, and fresh ids skip it.
	want := iceberg.NewSchema(0, []iceberg.NestedField{
		opt(1, "a", iceberg.IntType{}),
		opt(-1, "l", &iceberg.ListType{ElementID: 3, Element: structOf(opt(4, "x", iceberg.IntType{}), opt(0, "y", iceberg.IntType{}))}),
		opt(0, "n1", iceberg.IntType{}),
		opt(11, "n2", iceberg.IntType{}),
		opt(0, "n3", iceberg.IntType{}),
	})
	got, last, _ := union(t, cur, want, 9)
	for name, id := range map[string]int{"l.element.y": 10, "n1": 12, "n2": 11, "n3": 13} {
		if f := mustField(t, got, name); f.ID != id {
			t.Errorf("%s has id %d, want %d", name, f.ID, id)
		}
	}
	if last != 13 {
		t.Errorf("last column id %d, want 13", last)
	}
}

func TestUnionByNameRefusesChangesToMapKeysAndIdentifierFields(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{
		req(1, "id", iceberg.IntType{}),
		opt(2, "m", &iceberg.MapType{KeyID: 3, Key: structOf(req(4, "k", iceberg.IntType{})), ValueID: 5, Value: iceberg.IntType{}}),
		opt(6, "mi", &iceberg.MapType{KeyID: 7, Key: iceberg.IntType{}, ValueID: 8, Value: iceberg.IntType{}}),
	}, 1)
	key := func(fields ...iceberg.NestedField) iceberg.NestedField {
		return opt(0, "m", &iceberg.MapType{Key: structOf(fields...), Value: iceberg.IntType{}})
	}
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), key(req(0, "k", iceberg.IntType{}), opt(0, "k2", iceberg.IntType{}))}), 8, "m.key.k2", "cannot add a field to a map key")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), key(opt(0, "k", iceberg.IntType{}))}), 8, "m.key.k", "a map key cannot become optional")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), key(req(0, "k", iceberg.LongType{}))}), 8, "m.key.k", "a map key cannot change type")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), opt(0, "mi", &iceberg.MapType{Key: iceberg.LongType{}, Value: iceberg.IntType{}})}), 8, "mi.key", "a map key cannot change type")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), key(iceberg.NestedField{Name: "k", Type: iceberg.IntType{}, Required: true, Doc: "d"})}), 8, "m.key.k", "a map key cannot change its doc")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.IntType{}), key(iceberg.NestedField{Name: "k", Type: iceberg.IntType{}, Required: true, WriteDefault: int32(1)})}), 8, "m.key.k", "a map key cannot change its write-default")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "id", iceberg.IntType{})}), 8, "id", "an identifier field cannot become optional")
	// An identifier field may widen.
	got, _, _ := union(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{req(0, "id", iceberg.LongType{})}), 8)
	if f := mustField(t, got, "id"); f.Type != (iceberg.LongType{}) || !slices.Equal(got.IdentifierFieldIDs, []int{1}) {
		t.Errorf("id = %v, identifier fields %v", f, got.IdentifierFieldIDs)
	}
}

func TestUnionByNameUpdatesDocsAndWriteDefaultsButNotInitialDefaults(t *testing.T) {
	cur := iceberg.NewSchema(2, []iceberg.NestedField{
		{ID: 1, Name: "a", Type: iceberg.IntType{}, Doc: "old", InitialDefault: int32(1), WriteDefault: int32(2)},
		{ID: 2, Name: "b", Type: iceberg.LongType{}},
	})
	got, _, changed := union(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "a", Type: iceberg.IntType{}, Doc: "new", InitialDefault: int32(1), WriteDefault: int32(3)}}), 2)
	a := mustField(t, got, "a")
	if !changed || got.ID != 3 || a.Doc != "new" || a.WriteDefault != int32(3) || a.InitialDefault != int32(1) {
		t.Errorf("changed=%v id=%d a=%v doc %q defaults %v %v", changed, got.ID, a, a.Doc, a.InitialDefault, a.WriteDefault)
	}
	// A wanted int write-default for the table's long column is widened.
	got, _, _ = union(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "b", Type: iceberg.IntType{}, WriteDefault: int32(5)}}), 2)
	if b := mustField(t, got, "b"); b.WriteDefault != int64(5) {
		t.Errorf("b write-default %#v, want int64(5)", b.WriteDefault)
	}
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "a", Type: iceberg.IntType{}, InitialDefault: int32(9)}}), 2, "a", "initial-default cannot change")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "b", Type: iceberg.LongType{}, InitialDefault: int64(0)}}), 2, "b", "initial-default cannot change")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{{Name: "b", Type: iceberg.LongType{}, WriteDefault: "x"}}), 2, "b", "not a valid long value")
}

func TestUnionByNameRefusesMalformedInput(t *testing.T) {
	cur := iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{}), opt(2, "b", iceberg.IntType{})})
	if _, _, _, err := UnionByName(nil, cur, 2, testTable); err == nil || !strings.Contains(err.Error(), testTable) {
		t.Errorf("nil table schema: %v", err)
	}
	if _, _, _, err := UnionByName(cur, nil, 2, testTable); err == nil {
		t.Error("nil wanted schema accepted")
	}
	if _, _, _, err := UnionByName(cur, cur, 1, testTable); err == nil || !strings.Contains(err.Error(), "last-column-id 1 is below field id 2") {
		t.Errorf("last-column-id below the schema's ids: %v", err)
	}
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "x", iceberg.IntType{}), opt(0, "x", iceberg.LongType{})}), 2, "x", "the wanted schema names two columns so")
	refused(t, iceberg.NewSchema(0, []iceberg.NestedField{opt(1, "a", iceberg.IntType{}), opt(1, "b", iceberg.IntType{})}), cur, 2, "b", "field id 1 is also given")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "l", &iceberg.ListType{})}), 2, "l.element", "without a type")
	refused(t, cur, iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "a", nil)}), 2, "a", "without a type")
	// A type that contains itself must end in an error, not a stack
	// overflow. (NewSchema would loop indexing it.)
	loop := &iceberg.StructType{}
	loop.Fields = []iceberg.NestedField{opt(0, "again", loop)}
	if _, _, _, err := UnionByName(cur, &iceberg.Schema{Fields: []iceberg.NestedField{opt(0, "loop", loop)}}, 2, testTable); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("cyclic type: %v", err)
	}
	// No id is left above the reserved range.
	refused(t, iceberg.NewSchema(0, nil), iceberg.NewSchema(0, []iceberg.NestedField{opt(0, "x", iceberg.IntType{})}), highestAssignableFieldID, "x", "no field id left")
}

// randomSchemas builds a random table schema and a wanted schema derived
// from it by dropping, optionalising, requiring, reordering and adding
// columns, with ids given or not.
type randomSchemas struct {
	rng    *rand.Rand
	nextID int
	names  int
}

func (g *randomSchemas) name() string { g.names++; return fmt.Sprintf("c%d", g.names) }

func (g *randomSchemas) primitive() iceberg.Type {
	types := []iceberg.Type{iceberg.BooleanType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{}, iceberg.DateType{}, iceberg.StringType{},
		iceberg.TimestampType{}, iceberg.DecimalType{Precision: 1 + g.rng.IntN(30), Scale: 0}, iceberg.FixedType{Length: 1 + g.rng.IntN(8)}, iceberg.UUIDType{}}
	return types[g.rng.IntN(len(types))]
}

// tableType numbers ids as a table would (any order will do: only
// uniqueness matters).
func (g *randomSchemas) tableType(depth int) iceberg.Type {
	id := func() int { g.nextID++; return g.nextID }
	if depth >= 3 || g.rng.IntN(3) > 0 {
		return g.primitive()
	}
	switch g.rng.IntN(3) {
	case 0:
		return &iceberg.StructType{Fields: g.tableFields(depth+1, 1+g.rng.IntN(3))}
	case 1:
		return &iceberg.ListType{ElementID: id(), Element: g.tableType(depth + 1), ElementRequired: g.rng.IntN(2) == 0}
	}
	return &iceberg.MapType{KeyID: id(), Key: g.primitive(), ValueID: id(), Value: g.tableType(depth + 1), ValueRequired: g.rng.IntN(2) == 0}
}

func (g *randomSchemas) tableFields(depth, n int) []iceberg.NestedField {
	fields := make([]iceberg.NestedField, n)
	for i := range fields {
		g.nextID++
		fields[i] = iceberg.NestedField{ID: g.nextID, Name: g.name(), Required: g.rng.IntN(3) == 0}
		fields[i].Type = g.tableType(depth)
		if fields[i].Required && g.rng.IntN(2) == 0 {
			fields[i].Type, fields[i].WriteDefault = iceberg.LongType{}, int64(g.rng.IntN(100))
		}
	}
	return fields
}

// newType is a type for an added column: no ids, as data brings it.
func (g *randomSchemas) newType(depth int) iceberg.Type {
	if depth >= 3 || g.rng.IntN(2) == 0 {
		return g.primitive()
	}
	switch g.rng.IntN(3) {
	case 0:
		fields := make([]iceberg.NestedField, 1+g.rng.IntN(3))
		for i := range fields {
			fields[i] = iceberg.NestedField{Name: g.name(), Type: g.newType(depth + 1), Required: g.rng.IntN(2) == 0}
		}
		return &iceberg.StructType{Fields: fields}
	case 1:
		return &iceberg.ListType{Element: g.newType(depth + 1), ElementRequired: g.rng.IntN(2) == 0}
	}
	return &iceberg.MapType{Key: iceberg.StringType{}, Value: g.newType(depth + 1)}
}

func (g *randomSchemas) givenID(id int) int {
	if g.rng.IntN(2) == 0 {
		return 0
	}
	return id
}

func (g *randomSchemas) wantedType(t iceberg.Type, inKey bool) iceberg.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		return &iceberg.StructType{Fields: g.wantedFields(t.Fields, inKey)}
	case *iceberg.ListType:
		return &iceberg.ListType{ElementID: g.givenID(t.ElementID), Element: g.wantedType(t.Element, inKey),
			ElementRequired: t.ElementRequired && (inKey || g.rng.IntN(3) > 0)}
	case *iceberg.MapType:
		return &iceberg.MapType{KeyID: g.givenID(t.KeyID), Key: g.wantedType(t.Key, true), ValueID: g.givenID(t.ValueID),
			Value: g.wantedType(t.Value, inKey), ValueRequired: t.ValueRequired && (inKey || g.rng.IntN(3) > 0)}
	}
	return t
}

func (g *randomSchemas) wantedFields(fields []iceberg.NestedField, inKey bool) []iceberg.NestedField {
	var out []iceberg.NestedField
	for _, f := range fields {
		if !inKey && (!f.Required || f.WriteDefault != nil) && g.rng.IntN(4) == 0 {
			continue // dropped
		}
		w := iceberg.NestedField{ID: g.givenID(f.ID), Name: f.Name, Type: g.wantedType(f.Type, inKey), Required: f.Required}
		if !inKey && g.rng.IntN(3) == 0 {
			w.Required = !w.Required
		}
		out = append(out, w)
	}
	if !inKey {
		for range g.rng.IntN(3) {
			out = append(out, iceberg.NestedField{Name: g.name(), Type: g.newType(0)})
		}
	}
	g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// columnsByPath lists every field at any depth by its path (names joined by
// a byte no name here holds), list elements and map keys and values included.
func columnsByPath(s *iceberg.Schema) map[string]iceberg.NestedField {
	out := map[string]iceberg.NestedField{}
	var walk func(prefix string, t iceberg.Type)
	add := func(prefix string, f iceberg.NestedField) {
		p := prefix + "\x1f" + f.Name
		out[p] = f
		walk(p, f.Type)
	}
	walk = func(prefix string, t iceberg.Type) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for _, f := range t.Fields {
				add(prefix, f)
			}
		case *iceberg.ListType:
			add(prefix, iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired})
		case *iceberg.MapType:
			add(prefix, iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true})
			add(prefix, iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired})
		}
	}
	for _, f := range s.Fields {
		add("", f)
	}
	return out
}

// checkUnion asserts what a successful union must satisfy whatever the
// inputs: every column of both schemas is there, the table's with their
// ids, new ones with ids above lastColumnID and below or at the new last,
// no id twice, and the union of the result with wanted is no change.
func checkUnion(t *testing.T, cur, want, got *iceberg.Schema, last, newLast int, changed bool) (added int) {
	t.Helper()
	curCols, wantCols, gotCols := columnsByPath(cur), columnsByPath(want), columnsByPath(got)
	for p, c := range curCols {
		g, ok := gotCols[p]
		if !ok {
			t.Fatalf("table column %q lost", p)
		}
		if g.ID != c.ID {
			t.Errorf("table column %q has id %d, was %d", p, g.ID, c.ID)
		}
		if w, inWant := wantCols[p]; g.Required != (c.Required && (!inWant || w.Required)) {
			t.Errorf("column %q required=%v (table %v, wanted %v)", p, g.Required, c.Required, w.Required)
		}
	}
	ids := map[int]string{}
	for p, g := range gotCols {
		if other, dup := ids[g.ID]; dup {
			t.Errorf("id %d given to %q and %q", g.ID, other, p)
		}
		ids[g.ID] = p
		if _, old := curCols[p]; old {
			continue
		}
		added++
		w, inWant := wantCols[p]
		if !inWant {
			t.Errorf("column %q is in neither schema", p)
		}
		if g.ID <= last || g.ID > newLast {
			t.Errorf("new column %q has id %d, outside (%d, %d]", p, g.ID, last, newLast)
		}
		if g.Required != w.Required {
			t.Errorf("new column %q required=%v, wanted %v", p, g.Required, w.Required)
		}
	}
	for p := range wantCols {
		if _, ok := gotCols[p]; !ok {
			t.Errorf("wanted column %q missing", p)
		}
	}
	if !changed && (got != cur || newLast != last) {
		t.Errorf("unchanged union gave a new schema or last-column-id %d", newLast)
	}
	if changed && got.ID != cur.ID+1 {
		t.Errorf("schema id %d after %d", got.ID, cur.ID)
	}
	again, againLast, againChanged, err := UnionByName(got, want, newLast, testTable)
	if err != nil || againChanged || again != got || againLast != newLast {
		t.Errorf("union with its own result: changed=%v err=%v", againChanged, err)
	}
	return added
}

func TestUnionByNameRandomSchemas(t *testing.T) {
	for seed := range uint64(2000) {
		g := &randomSchemas{rng: rand.New(rand.NewPCG(seed, 7))}
		cur := iceberg.NewSchema(int(seed%5), g.tableFields(0, 1+g.rng.IntN(6)))
		last := g.nextID + g.rng.IntN(5) // ids of dropped columns
		want := iceberg.NewSchema(0, g.wantedFields(cur.Fields, false))
		got, newLast, changed, err := UnionByName(cur, want, last, testTable)
		if err != nil {
			t.Fatalf("seed %d: %v\ntable  %v\nwanted %v", seed, err, cur, want)
		}
		added := checkUnion(t, cur, want, got, last, newLast, changed)
		// Fresh ids are handed out one after another from last-column-id.
		if newLast != last+added {
			t.Errorf("seed %d: %d columns added, last-column-id %d → %d", seed, added, last, newLast)
		}
		if t.Failed() {
			t.Fatalf("seed %d\ntable  %v\nwanted %v\ngot    %v", seed, cur, want, got)
		}
	}
}

var fixtureIDPattern = regexp.MustCompile(`"(id|element-id|key-id|value-id)"\s*:\s*\d+`)

// fixtureSchemas gives every schema object of every fixture table's
// metadata files, as written.
func fixtureSchemas(tb testing.TB) [][]byte {
	tb.Helper()
	files, err := filepath.Glob(filepath.Join(fixturesDir, "*", "metadata", "*.metadata.json"))
	if err != nil || len(files) == 0 {
		tb.Fatalf("no fixture metadata: %v", err)
	}
	var out [][]byte
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		var m struct {
			Schema  json.RawMessage   `json:"schema"`
			Schemas []json.RawMessage `json:"schemas"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			tb.Fatalf("%s: %v", file, err)
		}
		if m.Schema != nil {
			out = append(out, m.Schema)
		}
		for _, s := range m.Schemas {
			out = append(out, s)
		}
	}
	return out
}

// FuzzUnionByName unions schemas parsed from fuzz bytes (seeded with every
// fixture schema, as is and with its ids removed); it must never panic, and
// whatever it accepts must satisfy checkUnion.
func FuzzUnionByName(f *testing.F) {
	schemas := fixtureSchemas(f)
	for i, a := range schemas {
		b := schemas[(i+1)%len(schemas)]
		f.Add(a, a, uint16(0))
		f.Add(a, fixtureIDPattern.ReplaceAll(b, []byte(`"$1": 0`)), uint16(3))
		f.Add(b, fixtureIDPattern.ReplaceAll(a, []byte(`"$1": 0`)), uint16(20))
	}
	f.Fuzz(func(t *testing.T, curJSON, wantJSON []byte, slack uint16) {
		var cur, want iceberg.Schema
		if json.Unmarshal(curJSON, &cur) != nil || json.Unmarshal(wantJSON, &want) != nil {
			return
		}
		// Mostly at or above the table's highest id, sometimes below it.
		last := cur.HighestFieldID() + int(slack%64) - 2
		got, newLast, changed, err := UnionByName(&cur, &want, last, testTable)
		if err != nil {
			if !strings.Contains(err.Error(), testTable) {
				t.Errorf("error %q does not name the table", err)
			}
			return
		}
		checkUnion(t, &cur, &want, got, last, newLast, changed)
		if _, err := json.Marshal(got); err != nil {
			t.Errorf("result does not encode: %v", err)
		}
	})
}

func TestUnionByNameAddsAndKeepsVariants(t *testing.T) {
	current := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true}})
	wanted := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{Name: "v", Type: iceberg.VariantType{}},
		{Name: "u", Type: iceberg.UnknownType{}},
	})
	updated, last, changed, err := UnionByName(current, wanted, 1, "t")
	if err != nil || !changed || last != 3 {
		t.Fatalf("union: %v, changed %v, last id %d", err, changed, last)
	}
	if f, ok := updated.FindFieldByName("v"); !ok || !iceberg.IsVariant(f.Type) || f.ID != 2 {
		t.Fatalf("v added as %+v", f)
	}
	if _, _, changed, err := UnionByName(updated, updated, last, "t"); err != nil || changed {
		t.Fatalf("a schema with a variant does not cover itself: %v, changed %v", err, changed)
	}
	// unknown may become a variant, as it may become any type; a variant
	// becomes nothing else.
	toVariant := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true}, {Name: "u", Type: iceberg.VariantType{}}})
	if _, _, _, err := UnionByName(updated, toVariant, last, "t"); err != nil {
		t.Fatalf("unknown to variant: %v", err)
	}
	toString := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true}, {Name: "v", Type: iceberg.StringType{}}})
	if _, _, _, err := UnionByName(updated, toString, last, "t"); err == nil {
		t.Fatal("a variant column became a string")
	}
}
