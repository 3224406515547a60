package iceberg

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
)

const testTable = "db.events"

func opt(id int, name string, t Type) NestedField { return NestedField{ID: id, Name: name, Type: t} }
func req(id int, name string, t Type) NestedField {
	return NestedField{ID: id, Name: name, Type: t, Required: true}
}
func structOf(fields ...NestedField) *StructType { return &StructType{Fields: fields} }

func union(t *testing.T, cur, want *Schema, last int) (*Schema, int, bool) {
	t.Helper()
	got, newLast, changed, err := UnionByName(cur, want, last, testTable)
	if err != nil {
		t.Fatalf("UnionByName: %v", err)
	}
	return got, newLast, changed
}

// refused checks a refusal names the table and the dotted column, and says
// why in words containing reason.
func refused(t *testing.T, cur, want *Schema, last int, column, reason string) {
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

func mustField(t *testing.T, s *Schema, name string) NestedField {
	t.Helper()
	f, ok := s.FindFieldByName(name)
	if !ok {
		t.Fatalf("no column %q in %v", name, s)
	}
	return f
}

func fieldNames(fields []NestedField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return names
}

func TestUnionByNameAddsTopLevelColumnsAfterLastColumnID(t *testing.T) {
	cur := NewSchema(3, []NestedField{req(1, "id", LongType{}), opt(2, "name", StringType{})}, 1)
	want := NewSchema(0, []NestedField{
		opt(0, "score", DoubleType{}),
		req(0, "id", LongType{}),
		{Name: "note", Type: StringType{}, Doc: "free text"},
	})
	// Ids 3..5 belonged to columns since dropped: new columns start at 6.
	got, last, changed := union(t, cur, want, 5)
	if !changed || last != 7 || got.ID != 4 {
		t.Fatalf("changed=%v last=%d schema id=%d; want true, 7, 4", changed, last, got.ID)
	}
	if names := fieldNames(got.Fields); !slices.Equal(names, []string{"id", "name", "score", "note"}) {
		t.Errorf("field order %v", names)
	}
	if f := mustField(t, got, "score"); f.ID != 6 || f.Required || f.Type != (DoubleType{}) {
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
	cur := NewSchema(0, []NestedField{
		req(1, "id", LongType{}),
		opt(2, "events", &ListType{ElementID: 3, Element: structOf(
			opt(4, "kind", StringType{}),
			opt(5, "detail", structOf(opt(6, "code", IntType{}))),
		)}),
		opt(7, "attrs", &MapType{KeyID: 8, Key: StringType{}, ValueID: 9, Value: structOf(
			opt(10, "x", IntType{}),
			opt(11, "inner", structOf(opt(12, "y", IntType{}))),
		)}),
	})
	want := NewSchema(0, []NestedField{
		opt(0, "tags", &ListType{Element: StringType{}}),
		opt(0, "attrs", &MapType{Key: StringType{}, Value: structOf(
			opt(0, "inner", structOf(opt(0, "z", StringType{}), opt(0, "y", IntType{}))),
		)}),
		opt(0, "events", &ListType{Element: structOf(
			opt(0, "extra", DoubleType{}),
			opt(0, "detail", structOf(opt(0, "code", IntType{}), opt(0, "reason", StringType{}))),
		)}),
		req(0, "id", LongType{}),
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
	elem := got.Fields[1].Type.(*ListType).Element.(*StructType)
	if names := fieldNames(elem.Fields); !slices.Equal(names, []string{"kind", "detail", "extra"}) {
		t.Errorf("events.element fields %v", names)
	}
	inner := mustField(t, got, "attrs.value.inner").Type.(*StructType)
	if names := fieldNames(inner.Fields); !slices.Equal(names, []string{"y", "z"}) {
		t.Errorf("attrs.value.inner fields %v", names)
	}
	again, againLast, againChanged := union(t, got, want, last)
	if againChanged || againLast != last || again != got {
		t.Errorf("second union changed=%v last=%d", againChanged, againLast)
	}
}

func TestUnionByNameNumbersANewStructsFieldsAfterIt(t *testing.T) {
	cur := NewSchema(0, []NestedField{opt(1, "a", IntType{})})
	want := NewSchema(0, []NestedField{
		opt(1, "a", IntType{}),
		opt(0, "s", structOf(
			opt(0, "p", IntType{}),
			opt(0, "q", structOf(opt(0, "r", IntType{}))),
			opt(0, "t", &ListType{Element: structOf(opt(0, "u", IntType{}))}),
			opt(0, "m", &MapType{Key: StringType{}, Value: structOf(opt(0, "v", IntType{}))}),
		)),
		opt(0, "y", IntType{}),
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
	cur := NewSchema(0, []NestedField{
		req(1, "a", IntType{}),
		req(2, "l", &ListType{ElementID: 3, Element: IntType{}, ElementRequired: true}),
		req(4, "m", &MapType{KeyID: 5, Key: StringType{}, ValueID: 6, Value: IntType{}, ValueRequired: true}),
		req(7, "s", structOf(req(8, "b", IntType{}))),
	})
	want := NewSchema(0, []NestedField{
		opt(0, "a", IntType{}),
		req(0, "l", &ListType{Element: IntType{}}),
		req(0, "m", &MapType{Key: StringType{}, Value: IntType{}}),
		req(0, "s", structOf(opt(0, "b", IntType{}))),
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
	cur := NewSchema(0, []NestedField{opt(1, "a", IntType{}), opt(2, "l", &ListType{ElementID: 3, Element: IntType{}})})
	want := NewSchema(0, []NestedField{req(0, "a", IntType{}), opt(0, "l", &ListType{Element: IntType{}, ElementRequired: true})})
	got, last, changed := union(t, cur, want, 3)
	if changed || got != cur || last != 3 {
		t.Errorf("changed=%v last=%d schema %v; want the table's schema unchanged", changed, last, got)
	}
}

func TestUnionByNameKeepsColumnsWantedLacks(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		req(1, "id", LongType{}),
		opt(2, "old", StringType{}),
		{ID: 3, Name: "region", Type: StringType{}, Required: true, InitialDefault: "eu", WriteDefault: "eu"},
		opt(4, "s", structOf(opt(5, "gone", IntType{}), opt(6, "kept", IntType{}))),
	})
	want := NewSchema(0, []NestedField{req(0, "id", LongType{}), opt(0, "s", structOf(opt(0, "kept", IntType{}))), opt(0, "new", IntType{})})
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
	want = NewSchema(0, []NestedField{req(0, "id", LongType{})})
	if _, _, changed := union(t, cur, want, 6); changed {
		t.Error("a wanted schema with fewer columns changed the table")
	}
}

func TestUnionByNameRefusesDroppingARequiredColumn(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		req(1, "id", LongType{}),
		opt(2, "s", structOf(req(3, "must", IntType{}), opt(4, "may", IntType{}))),
	})
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "s", structOf(req(0, "must", IntType{})))}), 4, "id", "missing from the wanted schema")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", LongType{}), opt(0, "s", structOf(opt(0, "may", IntType{})))}), 4, "s.must", "missing from the wanted schema")
	// Without the optional struct at all, its required field is no concern.
	union(t, cur, NewSchema(0, []NestedField{req(0, "id", LongType{})}), 4)
}

func TestUnionByNameRefusesTypeChanges(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		opt(1, "a", StringType{}),
		opt(2, "l", &ListType{ElementID: 3, Element: structOf(opt(4, "price", DecimalType{Precision: 10, Scale: 2}))}),
		opt(5, "d", DateType{}),
		opt(6, "s", structOf(opt(7, "x", IntType{}))),
		opt(8, "ts", TimestampType{}),
		opt(9, "f", FixedType{Length: 4}),
	})
	for _, c := range []struct {
		column string
		field  NestedField
		reason string
	}{
		{"a", opt(0, "a", IntType{}), "cannot change type from string to int"},
		{"l.element.price", opt(0, "l", &ListType{Element: structOf(opt(0, "price", DecimalType{Precision: 12, Scale: 3}))}), "from decimal(10, 2) to decimal(12, 3)"},
		{"l.element.price", opt(0, "l", &ListType{Element: structOf(opt(0, "price", DoubleType{}))}), "from decimal(10, 2) to double"},
		{"d", opt(0, "d", TimestampType{}), "from date to timestamp"},
		{"d", opt(0, "d", TimestampNsType{}), "from date to timestamp_ns"},
		{"s", opt(0, "s", IntType{}), "from a struct to int"},
		{"a", opt(0, "a", structOf(opt(0, "x", IntType{}))), "from string to a struct"},
		{"ts", opt(0, "ts", TimestamptzType{}), "from timestamp to timestamptz"},
		{"f", opt(0, "f", FixedType{Length: 8}), "from fixed[4] to fixed[8]"},
		{"l", opt(0, "l", &MapType{Key: StringType{}, Value: IntType{}}), "from a list to a map"},
	} {
		t.Run(c.column+" "+c.field.Type.String(), func(t *testing.T) {
			refused(t, cur, NewSchema(0, []NestedField{c.field}), 9, c.column, c.reason)
		})
	}
}

func TestUnionByNamePromotes(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		{ID: 1, Name: "i", Type: IntType{}, InitialDefault: int32(-1), WriteDefault: int32(7)},
		{ID: 2, Name: "f", Type: FloatType{}, InitialDefault: float32(1.5)},
		opt(3, "d", DecimalType{Precision: 9, Scale: 2}),
		opt(4, "u", UnknownType{}),
		opt(5, "l", &ListType{ElementID: 6, Element: IntType{}}),
		opt(7, "nu", UnknownType{}),
	})
	want := NewSchema(0, []NestedField{
		opt(0, "i", LongType{}),
		opt(0, "f", DoubleType{}),
		opt(0, "d", DecimalType{Precision: 18, Scale: 2}),
		opt(0, "u", StringType{}),
		opt(0, "l", &ListType{Element: LongType{}}),
		opt(0, "nu", structOf(opt(0, "a", IntType{}), opt(0, "b", &ListType{Element: IntType{}}))),
	})
	got, last, changed := union(t, cur, want, 7)
	if !changed || last != 10 {
		t.Fatalf("changed=%v last=%d; want true, 10", changed, last)
	}
	i := mustField(t, got, "i")
	if i.Type != (LongType{}) || i.InitialDefault != int64(-1) || i.WriteDefault != int64(7) {
		t.Errorf("i = %v defaults %#v %#v; want long with int64 defaults", i, i.InitialDefault, i.WriteDefault)
	}
	if f := mustField(t, got, "f"); f.Type != (DoubleType{}) || f.InitialDefault != float64(1.5) {
		t.Errorf("f = %v default %#v", f, f.InitialDefault)
	}
	for name, typ := range map[string]Type{"d": DecimalType{Precision: 18, Scale: 2}, "u": StringType{}, "l.element": LongType{}} {
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
	if _, _, changed := union(t, got, NewSchema(0, []NestedField{opt(0, "i", IntType{}), opt(0, "f", FloatType{}), opt(0, "d", DecimalType{Precision: 9, Scale: 2}), opt(0, "u", UnknownType{})}), last); changed {
		t.Error("narrower wanted types changed the table")
	}
}

func TestUnionByNameCarriesNestedDefaultsThroughChanges(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		// {} with sub-field x: a struct default is null or {}, per the spec.
		{ID: 1, Name: "s", Type: structOf(opt(2, "x", IntType{})), InitialDefault: []any{nil}, WriteDefault: []any{nil}},
		{ID: 3, Name: "l", Type: &ListType{ElementID: 4, Element: IntType{}}, InitialDefault: []any{int32(1), nil}},
		{ID: 5, Name: "m", Type: &MapType{KeyID: 6, Key: StringType{}, ValueID: 7, Value: FloatType{}}, WriteDefault: MapValue{Keys: []any{"a"}, Values: []any{float32(0.5)}}},
	})
	want := NewSchema(0, []NestedField{
		opt(0, "s", structOf(opt(0, "y", StringType{}), opt(0, "x", LongType{}))),
		opt(0, "l", &ListType{Element: LongType{}}),
		opt(0, "m", &MapType{Key: StringType{}, Value: DoubleType{}}),
	})
	got, _, _ := union(t, cur, want, 7)
	s := mustField(t, got, "s")
	if !slices.Equal(s.InitialDefault.([]any), []any{nil, nil}) || len(s.WriteDefault.([]any)) != 2 {
		t.Errorf("s defaults %#v %#v; want two null sub-values", s.InitialDefault, s.WriteDefault)
	}
	if l := mustField(t, got, "l"); !slices.Equal(l.InitialDefault.([]any), []any{int64(1), nil}) {
		t.Errorf("l initial-default %#v", l.InitialDefault)
	}
	if m := mustField(t, got, "m").WriteDefault.(MapValue); m.Keys[0] != "a" || m.Values[0] != float64(0.5) {
		t.Errorf("m write-default %#v", m)
	}
	encoded, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var back Schema
	if err := json.Unmarshal(encoded, &back); err != nil {
		t.Fatalf("%s: %v", encoded, err)
	}
	if again, _ := json.Marshal(&back); string(again) != string(encoded) {
		t.Errorf("round trip changed the schema:\n%s\n%s", encoded, again)
	}
}

func TestUnionByNameRefusesANewRequiredColumnWithoutDefaults(t *testing.T) {
	cur := NewSchema(0, []NestedField{opt(1, "a", IntType{}), opt(2, "s", structOf(opt(3, "x", IntType{})))})
	refused(t, cur, NewSchema(0, []NestedField{req(0, "b", IntType{})}), 3, "b", "cannot add a required column")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "s", structOf(req(0, "y", IntType{})))}), 3, "s.y", "cannot add a required column")
	refused(t, cur, NewSchema(0, []NestedField{{Name: "b", Type: IntType{}, Required: true, InitialDefault: int32(0)}}), 3, "b", "write-default")
	// A required struct that old rows read as {} needs defaults on its
	// required fields too.
	refused(t, cur, NewSchema(0, []NestedField{{Name: "n", Type: structOf(req(0, "r", IntType{})), Required: true, InitialDefault: []any{nil}, WriteDefault: []any{nil}}}), 3, "n.r", "cannot add a required column")

	// With both defaults it is accepted and keeps them.
	want := NewSchema(0, []NestedField{
		{Name: "b", Type: IntType{}, Required: true, InitialDefault: int32(0), WriteDefault: int32(1), Doc: "bee"},
		// Required fields inside a new optional struct read as part of a
		// null struct in old rows: no defaults needed.
		opt(0, "n", structOf(req(0, "r", IntType{}))),
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
	cur := NewSchema(0, []NestedField{opt(1, "a", IntType{})})
	refused(t, cur, NewSchema(0, []NestedField{{Name: "b", Type: IntType{}, InitialDefault: "seven"}}), 1, "b", "initial-default")
	refused(t, cur, NewSchema(0, []NestedField{{Name: "u", Type: UnknownType{}, WriteDefault: int32(1)}}), 1, "u", "must default to null")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "d", DecimalType{Precision: 40, Scale: 2})}), 1, "d", "precision must be 1..38")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "", IntType{})}), 1, "", "needs a name")
}

func TestUnionByNameChecksGivenFieldIDs(t *testing.T) {
	cur := NewSchema(0, []NestedField{
		opt(1, "a", IntType{}),
		opt(2, "l", &ListType{ElementID: 3, Element: structOf(opt(4, "x", IntType{}))}),
		opt(5, "m", &MapType{KeyID: 6, Key: StringType{}, ValueID: 7, Value: IntType{}}),
	})
	refused(t, cur, NewSchema(0, []NestedField{opt(9, "a", IntType{})}), 9, "a", "wanted field id 9 differs from the table's id 1")
	refused(t, cur, NewSchema(0, []NestedField{opt(2, "l", &ListType{ElementID: 3, Element: structOf(opt(1, "x", IntType{}))})}), 9, "l.element.x", "differs from the table's id 4")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "l", &ListType{ElementID: 30, Element: structOf()})}), 9, "l.element", "differs from the table's id 3")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "m", &MapType{KeyID: 7, Key: StringType{}, ValueID: 6, Value: IntType{}})}), 9, "m.key", "differs from the table's id 6")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "m", &MapType{KeyID: 6, Key: StringType{}, ValueID: 9, Value: IntType{}})}), 9, "m.value", "differs from the table's id 7")
	// A renamed column keeps its id in the table; by name it is a new
	// column, and its id is the old column's.
	refused(t, cur, NewSchema(0, []NestedField{opt(1, "renamed", IntType{})}), 9, "renamed", `belongs to the table's column "a"`)
	refused(t, cur, NewSchema(0, []NestedField{opt(8, "b", IntType{})}), 9, "b", "column since dropped")
	refused(t, cur, NewSchema(0, []NestedField{opt(12, "b", IntType{}), opt(12, "c", IntType{})}), 9, "c", `also given to column "b"`)
	refused(t, cur, NewSchema(0, []NestedField{opt(highestAssignableFieldID+1, "b", IntType{})}), 9, "b", "reserves")

	// Ids ≤ 0 are "none given"; the table's own ids are accepted; a new
	// column's id above last-column-id is honoured, and fresh ids skip it.
	want := NewSchema(0, []NestedField{
		opt(1, "a", IntType{}),
		opt(-1, "l", &ListType{ElementID: 3, Element: structOf(opt(4, "x", IntType{}), opt(0, "y", IntType{}))}),
		opt(0, "n1", IntType{}),
		opt(11, "n2", IntType{}),
		opt(0, "n3", IntType{}),
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
	cur := NewSchema(0, []NestedField{
		req(1, "id", IntType{}),
		opt(2, "m", &MapType{KeyID: 3, Key: structOf(req(4, "k", IntType{})), ValueID: 5, Value: IntType{}}),
		opt(6, "mi", &MapType{KeyID: 7, Key: IntType{}, ValueID: 8, Value: IntType{}}),
	}, 1)
	key := func(fields ...NestedField) NestedField {
		return opt(0, "m", &MapType{Key: structOf(fields...), Value: IntType{}})
	}
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), key(req(0, "k", IntType{}), opt(0, "k2", IntType{}))}), 8, "m.key.k2", "cannot add a field to a map key")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), key(opt(0, "k", IntType{}))}), 8, "m.key.k", "a map key cannot become optional")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), key(req(0, "k", LongType{}))}), 8, "m.key.k", "a map key cannot change type")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), opt(0, "mi", &MapType{Key: LongType{}, Value: IntType{}})}), 8, "mi.key", "a map key cannot change type")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), key(NestedField{Name: "k", Type: IntType{}, Required: true, Doc: "d"})}), 8, "m.key.k", "a map key cannot change its doc")
	refused(t, cur, NewSchema(0, []NestedField{req(0, "id", IntType{}), key(NestedField{Name: "k", Type: IntType{}, Required: true, WriteDefault: int32(1)})}), 8, "m.key.k", "a map key cannot change its write-default")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "id", IntType{})}), 8, "id", "an identifier field cannot become optional")
	// An identifier field may widen.
	got, _, _ := union(t, cur, NewSchema(0, []NestedField{req(0, "id", LongType{})}), 8)
	if f := mustField(t, got, "id"); f.Type != (LongType{}) || !slices.Equal(got.IdentifierFieldIDs, []int{1}) {
		t.Errorf("id = %v, identifier fields %v", f, got.IdentifierFieldIDs)
	}
}

func TestUnionByNameUpdatesDocsAndWriteDefaultsButNotInitialDefaults(t *testing.T) {
	cur := NewSchema(2, []NestedField{
		{ID: 1, Name: "a", Type: IntType{}, Doc: "old", InitialDefault: int32(1), WriteDefault: int32(2)},
		{ID: 2, Name: "b", Type: LongType{}},
	})
	got, _, changed := union(t, cur, NewSchema(0, []NestedField{{Name: "a", Type: IntType{}, Doc: "new", InitialDefault: int32(1), WriteDefault: int32(3)}}), 2)
	a := mustField(t, got, "a")
	if !changed || got.ID != 3 || a.Doc != "new" || a.WriteDefault != int32(3) || a.InitialDefault != int32(1) {
		t.Errorf("changed=%v id=%d a=%v doc %q defaults %v %v", changed, got.ID, a, a.Doc, a.InitialDefault, a.WriteDefault)
	}
	// A wanted int write-default for the table's long column is widened.
	got, _, _ = union(t, cur, NewSchema(0, []NestedField{{Name: "b", Type: IntType{}, WriteDefault: int32(5)}}), 2)
	if b := mustField(t, got, "b"); b.WriteDefault != int64(5) {
		t.Errorf("b write-default %#v, want int64(5)", b.WriteDefault)
	}
	refused(t, cur, NewSchema(0, []NestedField{{Name: "a", Type: IntType{}, InitialDefault: int32(9)}}), 2, "a", "initial-default cannot change")
	refused(t, cur, NewSchema(0, []NestedField{{Name: "b", Type: LongType{}, InitialDefault: int64(0)}}), 2, "b", "initial-default cannot change")
	refused(t, cur, NewSchema(0, []NestedField{{Name: "b", Type: LongType{}, WriteDefault: "x"}}), 2, "b", "not a valid long value")
}

func TestUnionByNameRefusesMalformedInput(t *testing.T) {
	cur := NewSchema(0, []NestedField{opt(1, "a", IntType{}), opt(2, "b", IntType{})})
	if _, _, _, err := UnionByName(nil, cur, 2, testTable); err == nil || !strings.Contains(err.Error(), testTable) {
		t.Errorf("nil table schema: %v", err)
	}
	if _, _, _, err := UnionByName(cur, nil, 2, testTable); err == nil {
		t.Error("nil wanted schema accepted")
	}
	if _, _, _, err := UnionByName(cur, cur, 1, testTable); err == nil || !strings.Contains(err.Error(), "last-column-id 1 is below field id 2") {
		t.Errorf("last-column-id below the schema's ids: %v", err)
	}
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "x", IntType{}), opt(0, "x", LongType{})}), 2, "x", "the wanted schema names two columns so")
	refused(t, NewSchema(0, []NestedField{opt(1, "a", IntType{}), opt(1, "b", IntType{})}), cur, 2, "b", "field id 1 is also given")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "l", &ListType{})}), 2, "l.element", "without a type")
	refused(t, cur, NewSchema(0, []NestedField{opt(0, "a", nil)}), 2, "a", "without a type")
	// A type that contains itself must end in an error, not a stack
	// overflow. (NewSchema would loop indexing it.)
	loop := &StructType{}
	loop.Fields = []NestedField{opt(0, "again", loop)}
	if _, _, _, err := UnionByName(cur, &Schema{Fields: []NestedField{opt(0, "loop", loop)}}, 2, testTable); err == nil || !strings.Contains(err.Error(), "nesting deeper") {
		t.Errorf("cyclic type: %v", err)
	}
	// No id is left above the reserved range.
	refused(t, NewSchema(0, nil), NewSchema(0, []NestedField{opt(0, "x", IntType{})}), highestAssignableFieldID, "x", "no field id left")
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

func (g *randomSchemas) primitive() Type {
	types := []Type{BooleanType{}, IntType{}, LongType{}, FloatType{}, DoubleType{}, DateType{}, StringType{},
		TimestampType{}, DecimalType{Precision: 1 + g.rng.IntN(30), Scale: 0}, FixedType{Length: 1 + g.rng.IntN(8)}, UUIDType{}}
	return types[g.rng.IntN(len(types))]
}

// tableType numbers ids as a table would (any order will do: only
// uniqueness matters).
func (g *randomSchemas) tableType(depth int) Type {
	id := func() int { g.nextID++; return g.nextID }
	if depth >= 3 || g.rng.IntN(3) > 0 {
		return g.primitive()
	}
	switch g.rng.IntN(3) {
	case 0:
		return &StructType{Fields: g.tableFields(depth+1, 1+g.rng.IntN(3))}
	case 1:
		return &ListType{ElementID: id(), Element: g.tableType(depth + 1), ElementRequired: g.rng.IntN(2) == 0}
	}
	return &MapType{KeyID: id(), Key: g.primitive(), ValueID: id(), Value: g.tableType(depth + 1), ValueRequired: g.rng.IntN(2) == 0}
}

func (g *randomSchemas) tableFields(depth, n int) []NestedField {
	fields := make([]NestedField, n)
	for i := range fields {
		g.nextID++
		fields[i] = NestedField{ID: g.nextID, Name: g.name(), Required: g.rng.IntN(3) == 0}
		fields[i].Type = g.tableType(depth)
		if fields[i].Required && g.rng.IntN(2) == 0 {
			fields[i].Type, fields[i].WriteDefault = LongType{}, int64(g.rng.IntN(100))
		}
	}
	return fields
}

// newType is a type for an added column: no ids, as data brings it.
func (g *randomSchemas) newType(depth int) Type {
	if depth >= 3 || g.rng.IntN(2) == 0 {
		return g.primitive()
	}
	switch g.rng.IntN(3) {
	case 0:
		fields := make([]NestedField, 1+g.rng.IntN(3))
		for i := range fields {
			fields[i] = NestedField{Name: g.name(), Type: g.newType(depth + 1), Required: g.rng.IntN(2) == 0}
		}
		return &StructType{Fields: fields}
	case 1:
		return &ListType{Element: g.newType(depth + 1), ElementRequired: g.rng.IntN(2) == 0}
	}
	return &MapType{Key: StringType{}, Value: g.newType(depth + 1)}
}

func (g *randomSchemas) givenID(id int) int {
	if g.rng.IntN(2) == 0 {
		return 0
	}
	return id
}

func (g *randomSchemas) wantedType(t Type, inKey bool) Type {
	switch t := t.(type) {
	case *StructType:
		return &StructType{Fields: g.wantedFields(t.Fields, inKey)}
	case *ListType:
		return &ListType{ElementID: g.givenID(t.ElementID), Element: g.wantedType(t.Element, inKey),
			ElementRequired: t.ElementRequired && (inKey || g.rng.IntN(3) > 0)}
	case *MapType:
		return &MapType{KeyID: g.givenID(t.KeyID), Key: g.wantedType(t.Key, true), ValueID: g.givenID(t.ValueID),
			Value: g.wantedType(t.Value, inKey), ValueRequired: t.ValueRequired && (inKey || g.rng.IntN(3) > 0)}
	}
	return t
}

func (g *randomSchemas) wantedFields(fields []NestedField, inKey bool) []NestedField {
	var out []NestedField
	for _, f := range fields {
		if !inKey && (!f.Required || f.WriteDefault != nil) && g.rng.IntN(4) == 0 {
			continue // dropped
		}
		w := NestedField{ID: g.givenID(f.ID), Name: f.Name, Type: g.wantedType(f.Type, inKey), Required: f.Required}
		if !inKey && g.rng.IntN(3) == 0 {
			w.Required = !w.Required
		}
		out = append(out, w)
	}
	if !inKey {
		for range g.rng.IntN(3) {
			out = append(out, NestedField{Name: g.name(), Type: g.newType(0)})
		}
	}
	g.rng.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

// columnsByPath lists every field at any depth by its path (names joined by
// a byte no name here holds), list elements and map keys and values included.
func columnsByPath(s *Schema) map[string]NestedField {
	out := map[string]NestedField{}
	var walk func(prefix string, t Type)
	add := func(prefix string, f NestedField) {
		p := prefix + "\x1f" + f.Name
		out[p] = f
		walk(p, f.Type)
	}
	walk = func(prefix string, t Type) {
		switch t := t.(type) {
		case *StructType:
			for _, f := range t.Fields {
				add(prefix, f)
			}
		case *ListType:
			add(prefix, NestedField{ID: t.ElementID, Name: "element", Type: t.Element, Required: t.ElementRequired})
		case *MapType:
			add(prefix, NestedField{ID: t.KeyID, Name: "key", Type: t.Key, Required: true})
			add(prefix, NestedField{ID: t.ValueID, Name: "value", Type: t.Value, Required: t.ValueRequired})
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
func checkUnion(t *testing.T, cur, want, got *Schema, last, newLast int, changed bool) (added int) {
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
		cur := NewSchema(int(seed%5), g.tableFields(0, 1+g.rng.IntN(6)))
		last := g.nextID + g.rng.IntN(5) // ids of dropped columns
		want := NewSchema(0, g.wantedFields(cur.Fields, false))
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
		var cur, want Schema
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
