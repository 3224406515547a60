package action_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// These tests replay schema changes that Impala and NiFi made to the fixture
// tables: the schemas those engines wrote are the expected answers.

func readFixtureMetadata(t *testing.T, table, file string) *metadata.Metadata {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", table, "metadata", file))
	if err != nil {
		t.Fatal(err)
	}
	m, err := metadata.Parse(raw)
	if err != nil {
		t.Fatalf("%s/%s: %v", table, file, err)
	}
	return m
}

// withoutIDs copies a schema with every field id 0, as a schema taken from
// data without field ids would come.
func withoutIDs(s *iceberg.Schema) *iceberg.Schema {
	var strip func(t iceberg.Type) iceberg.Type
	strip = func(t iceberg.Type) iceberg.Type {
		switch t := t.(type) {
		case *iceberg.StructType:
			fields := make([]iceberg.NestedField, len(t.Fields))
			for i, f := range t.Fields {
				fields[i] = f
				fields[i].ID = 0
				fields[i].Type = strip(f.Type)
			}
			return &iceberg.StructType{Fields: fields}
		case *iceberg.ListType:
			return &iceberg.ListType{Element: strip(t.Element), ElementRequired: t.ElementRequired}
		case *iceberg.MapType:
			return &iceberg.MapType{Key: strip(t.Key), Value: strip(t.Value), ValueRequired: t.ValueRequired}
		}
		return t
	}
	return iceberg.NewSchema(0, strip(s.AsStruct()).(*iceberg.StructType).Fields)
}

func schemaJSON(t *testing.T, s *iceberg.Schema) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Impala added twelve columns with v3 defaults to a one-column table;
// bringing schema 0 up to schema 1 by name (ids unknown) must give exactly
// what Impala wrote: ids 2..13 in order, every default kept.
func TestUnionByNameReplaysImpalaV3AddedColumnsWithDefaults(t *testing.T) {
	m := readFixtureMetadata(t, "impala_iceberg_v3_all_types", "v4.metadata.json")
	before, after := m.SchemaByID(0), m.SchemaByID(1)
	got, last, changed, err := action.UnionByName(before, withoutIDs(after), before.HighestFieldID(), "iceberg_v3_all_types")
	if err != nil {
		t.Fatal(err)
	}
	if !changed || last != m.LastColumnID {
		t.Errorf("changed=%v last-column-id %d, Impala's %d", changed, last, m.LastColumnID)
	}
	if g, w := schemaJSON(t, got), schemaJSON(t, after); g != w {
		t.Errorf("union gave\n%s\nImpala wrote\n%s", g, w)
	}
	// The table as it is now already has every column.
	if _, _, changed, err := action.UnionByName(after, withoutIDs(after), m.LastColumnID, "iceberg_v3_all_types"); err != nil || changed {
		t.Errorf("union of the current schema with itself: changed=%v err=%v", changed, err)
	}
}

// NiFi's table renamed s to str (schema 1) and then added j (schema 2),
// with identifier fields i and d throughout.
func TestUnionByNameReplaysEqualityDeleteTableEvolution(t *testing.T) {
	const table = "iceberg_v2_equality_delete_schema_evolution"
	m := readFixtureMetadata(t, "impala_iceberg_v2_equality_delete_schema_evolution", "v6.metadata.json")
	s0, s1, s2 := m.SchemaByID(0), m.SchemaByID(1), m.SchemaByID(2)

	for _, want := range []*iceberg.Schema{s2, withoutIDs(s2)} {
		got, last, changed, err := action.UnionByName(s1, want, 3, table)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := schemaJSON(t, got), schemaJSON(t, s2); !changed || last != m.LastColumnID || g != w {
			t.Errorf("changed=%v last=%d\n%s\nthe table has\n%s", changed, last, g, w)
		}
	}

	// A rename cannot be seen by name: with the ids given it is refused,
	// naming the column the id belongs to.
	_, _, _, err := action.UnionByName(s0, s1, 3, table)
	var sue *action.SchemaUpdateError
	if !errors.As(err, &sue) || sue.Table != table || sue.Column != "str" || !strings.Contains(err.Error(), `column "s"`) {
		t.Errorf("rename with ids given: %v", err)
	}
	// Without ids, str is a new column and s stays.
	got, last, _, err := action.UnionByName(s0, withoutIDs(s1), 3, table)
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := got.FindFieldByName("s"); s.ID != 3 || last != 4 {
		t.Errorf("s = %v, last %d", s, last)
	}
	if str, _ := got.FindFieldByName("str"); str.ID != 4 || str.Required {
		t.Errorf("str = %v", str)
	}
	if len(got.IdentifierFieldIDs) != 2 || got.IdentifierFieldIDs[0] != 1 || got.IdentifierFieldIDs[1] != 2 {
		t.Errorf("identifier fields %v", got.IdentifierFieldIDs)
	}
}

// The migrated Hive table nests maps and lists three structs deep; new
// columns go in at every level and take ids from its last-column-id 21.
func TestUnionByNameExtendsNestedFixtureSchema(t *testing.T) {
	m := readFixtureMetadata(t, "impala_iceberg_migrated_complex_test", "v2.metadata.json")
	cur := m.CurrentSchema()
	var wantJSON = `{"type":"struct","fields":[
	 {"id":0,"name":"struct_2_col","required":false,"type":{"type":"struct","fields":[
	  {"id":0,"name":"struct_3_col","required":false,"type":{"type":"struct","fields":[
	   {"id":0,"name":"bigint_array_col","required":false,"type":{"type":"list","element-id":0,"element":"long","element-required":false}},
	   {"id":0,"name":"new_leaf","required":false,"type":"string","doc":"added three deep"}]}},
	  {"id":0,"name":"int_int_map_col","required":false,"type":{"type":"map","key-id":0,"key":"int","value-id":0,"value":"long","value-required":false}}]}},
	 {"id":0,"name":"extra","required":false,"type":{"type":"map","key-id":0,"key":"string","value-id":0,"value-required":false,
	  "value":{"type":"struct","fields":[{"id":0,"name":"a","required":true,"type":"int"},{"id":0,"name":"b","required":false,"type":{"type":"list","element-id":0,"element":"double","element-required":true}}]}}}]}`
	var want iceberg.Schema
	if err := json.Unmarshal([]byte(wantJSON), &want); err != nil {
		t.Fatal(err)
	}
	got, last, changed, err := action.UnionByName(cur, &want, m.LastColumnID, "iceberg_migrated_complex_test")
	if err != nil {
		t.Fatal(err)
	}
	if !changed || last != 28 || got.ID != cur.ID+1 {
		t.Fatalf("changed=%v last=%d id=%d", changed, last, got.ID)
	}
	// Every column the table had keeps its id, name and, but for the one
	// promoted, its primitive type.
	for id := 1; id <= m.LastColumnID; id++ {
		old, _ := cur.FindField(id)
		now, ok := got.FindField(id)
		oldName, _ := cur.FullName(id)
		nowName, _ := got.FullName(id)
		if !ok || nowName != oldName || !iceberg.IsNested(old.Type) && id != 21 && now.Type != old.Type {
			t.Errorf("column %d was %s %v, is %s %v", id, oldName, old, nowName, now)
		}
	}
	for name, check := range map[string]func(iceberg.NestedField) bool{
		"struct_2_col.struct_3_col.new_leaf":  func(f iceberg.NestedField) bool { return f.ID == 22 && f.Doc == "added three deep" },
		"struct_2_col.int_int_map_col.value":  func(f iceberg.NestedField) bool { return f.ID == 21 && f.Type == iceberg.LongType{} },
		"extra":                               func(f iceberg.NestedField) bool { return f.ID == 23 },
		"extra.key":                           func(f iceberg.NestedField) bool { return f.ID == 24 },
		"extra.value":                         func(f iceberg.NestedField) bool { return f.ID == 25 },
		"extra.value.a":                       func(f iceberg.NestedField) bool { return f.ID == 26 && f.Required },
		"extra.value.b":                       func(f iceberg.NestedField) bool { return f.ID == 27 },
		"extra.value.b.element":               func(f iceberg.NestedField) bool { return f.ID == 28 && f.Required },
		"struct_1_col.bool_int_map_col.value": func(f iceberg.NestedField) bool { return f.ID == 9 },
	} {
		if f, ok := got.FindFieldByName(name); !ok || !check(f) {
			t.Errorf("%s = %v", name, f)
		}
	}
	// The evolved schema encodes and reads back as it was.
	var back iceberg.Schema
	if err := json.Unmarshal([]byte(schemaJSON(t, got)), &back); err != nil || schemaJSON(t, &back) != schemaJSON(t, got) {
		t.Errorf("round trip: %v", err)
	}
	if _, _, changed, err := action.UnionByName(got, &want, last, "iceberg_migrated_complex_test"); err != nil || changed {
		t.Errorf("second union: changed=%v err=%v", changed, err)
	}
}
