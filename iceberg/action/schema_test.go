package action_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// Schema evolution on tables other engines wrote: Hive's migrated v1
// table of nested structs, lists and maps (last-column-id 21), Spark's v2
// mytable_partitioned (id int required, name string, bir date;
// identity(name)), Impala's v3 table of every type with defaults, and
// small hand-built tables for partition and sort sources.

func hiveNested(t *testing.T) *metadata.Metadata {
	return readFixtureMetadata(t, "impala_iceberg_migrated_complex_test", "v2.metadata.json")
}

func sparkPartitioned(t *testing.T) *metadata.Metadata {
	return readFixtureMetadata(t, "duckdb_equality_deletes/warehouse/mydb/mytable_partitioned", "v6.metadata.json")
}

func impalaAllTypes(t *testing.T) *metadata.Metadata {
	return readFixtureMetadata(t, "impala_iceberg_v3_all_types", "v4.metadata.json")
}

// handBuilt is a table of the given format version whose current schema
// has fields (JSON), with partition specs and a default sort order.
func handBuilt(t *testing.T, version int, fields, specs, sortFields string, identifiers ...int) *metadata.Metadata {
	t.Helper()
	ids, _ := jsonList(identifiers)
	raw := fmt.Sprintf(`{"format-version": %d, "table-uuid": "8c7c1f3e-3a5b-4b8e-9c36-6a4f2f0d9e11",
		"location": "/tmp/t", "last-sequence-number": 0, "last-updated-ms": 1700000000000,
		"last-column-id": 20, "current-schema-id": 0, "next-row-id": 0,
		"schemas": [{"type": "struct", "schema-id": 0, "identifier-field-ids": %s, "fields": %s}],
		"default-spec-id": 0, "partition-specs": %s, "last-partition-id": 1010,
		"default-sort-order-id": 1, "sort-orders": [{"order-id": 0, "fields": []}, {"order-id": 1, "fields": %s}],
		"properties": {}, "snapshots": [], "refs": {}}`, version, ids, fields, specs, sortFields)
	md, err := metadata.Parse([]byte(raw))
	if err != nil {
		t.Fatalf("hand-built metadata: %v", err)
	}
	return md
}

func jsonList(ids []int) (string, error) {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return "[" + strings.Join(parts, ",") + "]", nil
}

func us() *action.UpdateSchema { return new(action.UpdateSchema) }

// evolveSchema builds u on md, applies its updates and replays them
// through their REST JSON form (replay): the metadata must be what was
// built, and valid.
func evolveSchema(t *testing.T, md *metadata.Metadata, u *action.UpdateSchema) (*metadata.Metadata, []metadata.Update) {
	t.Helper()
	updates, err := u.Build(md)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	c := metadata.Edit(md)
	if err := c.Apply(updates...); err != nil {
		t.Fatalf("updates %v do not apply: %v", updates, err)
	}
	if len(updates) > 0 {
		replay(t, c)
	}
	if err := c.Metadata().Validate(); err != nil {
		t.Fatalf("the evolved metadata is invalid: %v", err)
	}
	return c.Metadata(), updates
}

// refusedSchema checks u's Build fails as an invalid argument about
// column whose message holds every one of words.
func refusedSchema(t *testing.T, md *metadata.Metadata, u *action.UpdateSchema, column string, words ...string) {
	t.Helper()
	updates, err := u.Build(md)
	if err == nil {
		t.Fatalf("built %v, want a refusal about %q", updates, column)
	}
	if !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("%v is not an invalid argument", err)
	}
	var sue *action.SchemaUpdateError
	if !errors.As(err, &sue) || sue.Column != column {
		t.Fatalf("%v: want a *SchemaUpdateError about column %q", err, column)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%v: does not say %q", err, w)
		}
	}
}

func column(t *testing.T, md *metadata.Metadata, name string) iceberg.NestedField {
	t.Helper()
	f, ok := md.CurrentSchema().FindFieldByName(name)
	if !ok {
		t.Fatalf("no column %q in %v", name, md.CurrentSchema())
	}
	return f
}

func topNames(s *iceberg.Schema) string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return strings.Join(names, ",")
}

func TestUpdateSchemaAddsColumnsAtAnyDepthWithFreshIDs(t *testing.T) {
	md := hiveNested(t)
	point := &iceberg.StructType{Fields: []iceberg.NestedField{
		{ID: 1, Name: "x", Type: iceberg.DoubleType{}, Required: true},
		{ID: 2, Name: "tags", Type: &iceberg.ListType{ElementID: 3, Element: iceberg.StringType{}}},
		{ID: 4, Name: "attrs", Type: &iceberg.MapType{KeyID: 5, Key: iceberg.StringType{}, ValueID: 6, Value: iceberg.IntType{}, ValueRequired: true}},
	}}
	next, updates := evolveSchema(t, md, us().
		AddColumn("struct_1_col.note", iceberg.StringType{}, action.ColumnOptions{Doc: "added by floe"}).
		AddColumn("struct_2_col.struct_3_col.ratio", iceberg.FloatType{}).
		AddColumn("point", point))
	// The table's name mapping (Hive's, by another numbering than the
	// schema's; matched by id as Java matches it) maps the new columns.
	if len(updates) != 3 {
		t.Fatalf("updates %v, want add-schema, set-current-schema and set-properties", updates)
	}
	nm, err := next.NameMapping()
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := nm.Find("point"); !ok || *f.FieldID != 24 || len(f.Fields) != 3 || *f.Fields[1].Fields[0].FieldID != 28 {
		t.Errorf("point is mapped as %+v", f)
	}
	s := next.CurrentSchema()
	if s.ID != 1 || next.CurrentSchemaID != 1 {
		t.Errorf("new schema id %d, current %d; want 1", s.ID, next.CurrentSchemaID)
	}
	// Ids count on from last-column-id 21: each column, then its type's
	// fields (a struct's own fields before what they hold).
	want := map[string]int{"struct_1_col.note": 22, "struct_2_col.struct_3_col.ratio": 23, "point": 24,
		"point.x": 25, "point.tags": 26, "point.attrs": 27, "point.tags.element": 28, "point.attrs.key": 29, "point.attrs.value": 30}
	for name, id := range want {
		if f := column(t, next, name); f.ID != id {
			t.Errorf("%s has id %d, want %d", name, f.ID, id)
		}
	}
	if next.LastColumnID != 30 {
		t.Errorf("last-column-id %d, want 30", next.LastColumnID)
	}
	if f := column(t, next, "struct_1_col.note"); f.Doc != "added by floe" || f.Required {
		t.Errorf("note is %+v", f)
	}
	if f := column(t, next, "point.attrs"); !f.Type.(*iceberg.MapType).ValueRequired {
		t.Error("the new map lost its required value")
	}
	// The new nested column goes at the end of its struct; existing
	// columns keep their ids.
	s3 := column(t, next, "struct_2_col.struct_3_col").Type.(*iceberg.StructType)
	if last := s3.Fields[len(s3.Fields)-1]; last.Name != "ratio" || s3.Fields[0].ID != 14 {
		t.Errorf("struct_3_col is %v", s3)
	}
}

func TestUpdateSchemaAddsToListElementAndMapValueStructs(t *testing.T) {
	md := handBuilt(t, 2, `[{"id": 1, "name": "id", "required": true, "type": "long"},
		{"id": 2, "name": "points", "required": false, "type": {"type": "list", "element-id": 3, "element-required": true,
			"element": {"type": "struct", "fields": [{"id": 4, "name": "x", "required": true, "type": "double"}]}}},
		{"id": 5, "name": "by_name", "required": false, "type": {"type": "map", "key-id": 6, "key": "string", "value-id": 7, "value-required": false,
			"value": {"type": "struct", "fields": [{"id": 8, "name": "n", "required": false, "type": "int"}]}}}]`,
		`[{"spec-id": 0, "fields": []}]`, `[]`)
	next, _ := evolveSchema(t, md, us().
		AddColumn("points.y", iceberg.DoubleType{}).
		AddColumn("by_name.m", iceberg.LongType{}).
		AddColumn("points.element.z", iceberg.DoubleType{}).
		MoveFirst("points.element.z"))
	elem := column(t, next, "points.element").Type.(*iceberg.StructType)
	if got := fmt.Sprint(elem.Fields[0].Name, elem.Fields[1].Name, elem.Fields[2].Name); got != "zxy" {
		t.Errorf("points' element fields are %v", elem)
	}
	if f := column(t, next, "by_name.value.m"); f.ID != 22 {
		t.Errorf("by_name.value.m has id %d, want 22", f.ID)
	}
	refusedSchema(t, md, us().AddColumn("by_name.key.k", iceberg.IntType{}), "by_name.key.k", "only structs")
	refusedSchema(t, md, us().AddColumn("id.x", iceberg.IntType{}), "id.x", "only structs")
	refusedSchema(t, md, us().AddColumn("nope.x", iceberg.IntType{}), "nope.x", "no such column")
}

func TestUpdateSchemaRenamesAndMovesOnSparkTable(t *testing.T) {
	md := sparkPartitioned(t)
	// Names mean the table's columns: "name" is still "name" after the
	// rename is recorded, as in Java.
	next, _ := evolveSchema(t, md, us().
		RenameColumn("name", "full_name").
		MoveFirst("bir").
		MoveAfter("id", "name").
		AddColumn("email", iceberg.StringType{}).
		MoveBefore("email", "name"))
	if got := topNames(next.CurrentSchema()); got != "bir,email,full_name,id" {
		t.Errorf("columns %s", got)
	}
	// The partition source is an id: the renamed column stays the source.
	if f := column(t, next, "full_name"); f.ID != 2 || next.DefaultSpec().Fields[0].SourceID != 2 {
		t.Errorf("full_name has id %d; spec %v", f.ID, next.DefaultSpec())
	}
	refusedSchema(t, md, us().RenameColumn("id", "name"), "name", "two columns")
	refusedSchema(t, md, us().RenameColumn("nope", "x"), "nope", "no such column")
	refusedSchema(t, md, us().MoveAfter("id", "id"), "id", "itself")
	refusedSchema(t, md, us().MoveBefore("id", "nope"), "nope", "no such column")
}

func TestUpdateSchemaRefusesMovesAcrossStructs(t *testing.T) {
	md := hiveNested(t)
	next, _ := evolveSchema(t, md, us().MoveBefore("struct_2_col.int_int_map_col", "struct_2_col.struct_3_col"))
	if s := column(t, next, "struct_2_col").Type.(*iceberg.StructType); s.Fields[0].Name != "int_int_map_col" {
		t.Errorf("struct_2_col is %v", s)
	}
	refusedSchema(t, md, us().MoveAfter("struct_2_col.int_int_map_col", "struct_1_col.string_col"), "struct_2_col.int_int_map_col", "another struct")
	refusedSchema(t, md, us().MoveFirst("int_bigint_map_col.value"), "int_bigint_map_col.value", "cannot move")
}

func TestUpdateSchemaPromotesTypesAndTheirDefaults(t *testing.T) {
	md := impalaAllTypes(t)
	next, _ := evolveSchema(t, md, us().
		UpdateColumn("col_int", iceberg.LongType{}).
		UpdateColumn("col_float", iceberg.DoubleType{}).
		UpdateColumn("col_decimal", iceberg.DecimalType{Precision: 12, Scale: 2}).
		UpdateColumn("col_date", iceberg.TimestampType{}))
	cases := []struct {
		name    string
		typ     iceberg.Type
		initial any
	}{
		{"col_int", iceberg.LongType{}, int64(-1)},
		{"col_float", iceberg.DoubleType{}, float64(1.5)},
		{"col_date", iceberg.TimestampType{}, int64(19723) * 86_400_000_000}, // 2024-01-01
	}
	for _, c := range cases {
		f := column(t, next, c.name)
		if f.Type != c.typ || !reflect.DeepEqual(f.InitialDefault, c.initial) {
			t.Errorf("%s: %s with initial-default %#v, want %s with %#v", c.name, f.Type, f.InitialDefault, c.typ, c.initial)
		}
	}
	if f := column(t, next, "col_decimal"); f.Type != (iceberg.DecimalType{Precision: 12, Scale: 2}) || f.WriteDefault == nil {
		t.Errorf("col_decimal is %+v", f)
	}
	for _, c := range []struct {
		name string
		to   iceberg.PrimitiveType
	}{
		{"col_bigint", iceberg.IntType{}},
		{"col_double", iceberg.FloatType{}},
		{"col_string", iceberg.BinaryType{}},
		{"col_decimal", iceberg.DecimalType{Precision: 12, Scale: 3}},
		{"col_decimal", iceberg.DecimalType{Precision: 9, Scale: 2}},
		{"col_date", iceberg.TimestamptzType{}},
	} {
		refusedSchema(t, md, us().UpdateColumn(c.name, c.to), c.name, "cannot change type")
	}
	// date→timestamp is a v3 promotion.
	refusedSchema(t, sparkPartitioned(t), us().UpdateColumn("bir", iceberg.TimestampType{}), "bir", "needs format version 3")
	// A struct has no type to promote; map keys never change.
	refusedSchema(t, hiveNested(t), us().UpdateColumn("struct_1_col", iceberg.StringType{}), "struct_1_col", "cannot change type")
	refusedSchema(t, hiveNested(t), us().UpdateColumn("int_bigint_map_col.key", iceberg.LongType{}), "int_bigint_map_col.key", "map keys")
	// A list element and a map value promote.
	next, _ = evolveSchema(t, hiveNested(t), us().
		UpdateColumn("struct_1_col.int_array_col.element", iceberg.LongType{}).
		UpdateColumn("struct_2_col.int_int_map_col.value", iceberg.LongType{}))
	if f := column(t, next, "struct_1_col.int_array_col.element"); f.Type != (iceberg.LongType{}) || f.ID != 7 {
		t.Errorf("element is %+v", f)
	}
	if f := column(t, next, "struct_2_col.int_int_map_col.value"); f.Type != (iceberg.LongType{}) {
		t.Errorf("value is %+v", f)
	}
}

func TestUpdateSchemaDocsDefaultsAndRequiredness(t *testing.T) {
	md := impalaAllTypes(t)
	next, _ := evolveSchema(t, md, us().
		UpdateColumnDoc("col_int", "an int").
		UpdateColumnDefault("col_int", int32(7)).
		AddColumn("added", iceberg.IntType{}, action.ColumnOptions{Required: true, InitialDefault: int32(5)}).
		AddColumn("later", iceberg.StringType{}, action.ColumnOptions{WriteDefault: "w"}))
	if f := column(t, next, "col_int"); f.Doc != "an int" || f.WriteDefault != int32(7) || f.InitialDefault != int32(-1) {
		t.Errorf("col_int is %+v", f)
	}
	if f := column(t, next, "added"); !f.Required || f.InitialDefault != int32(5) || f.WriteDefault != int32(5) {
		t.Errorf("added is %+v", f)
	}
	if f := column(t, next, "later"); f.InitialDefault != nil || f.WriteDefault != "w" {
		t.Errorf("later is %+v", f)
	}
	refusedSchema(t, md, us().AddColumn("r", iceberg.IntType{}, action.ColumnOptions{Required: true}), "r", "without an initial-default")
	refusedSchema(t, md, us().AddColumn("r", iceberg.IntType{}).RequireColumn("r"), "r", "without an initial-default")
	refusedSchema(t, md, us().UpdateColumnDefault("col_int", "x"), "col_int", "write-default")
	refusedSchema(t, md, us().AddColumn("v", iceberg.VariantType{}, action.ColumnOptions{InitialDefault: []byte{1}}), "v", "default to null")
	refusedSchema(t, md, us().AddColumn("s", &iceberg.StructType{Fields: []iceberg.NestedField{{Name: "n", Type: iceberg.IntType{}, WriteDefault: "x"}}}), "s.n", "write-default")
	// Java's allowIncompatibleChanges lets a required column come without
	// a default.
	next, _ = evolveSchema(t, md, us().AllowIncompatibleChanges().AddColumn("r", iceberg.IntType{}, action.ColumnOptions{Required: true}))
	if f := column(t, next, "r"); !f.Required || f.InitialDefault != nil {
		t.Errorf("r is %+v", f)
	}
	// Defaults and v3 types are refused before format version 3.
	v2 := sparkPartitioned(t)
	refusedSchema(t, v2, us().AddColumn("d", iceberg.IntType{}, action.ColumnOptions{InitialDefault: int32(1)}), "d", "format version 3")
	refusedSchema(t, v2, us().UpdateColumnDefault("id", int32(1)), "id", "format version 3")
	refusedSchema(t, v2, us().AddColumn("ns", iceberg.TimestampNsType{}), "ns", "format version 3")
	refusedSchema(t, v2, us().AddColumn("s", &iceberg.StructType{Fields: []iceberg.NestedField{{Name: "u", Type: iceberg.UnknownType{}}}}), "s.u", "format version 3")
}

func TestUpdateSchemaRequireColumnIsNullFree(t *testing.T) {
	md := sparkPartitioned(t)
	u := us().RequireColumn("name").RequireColumn("id").MakeColumnOptional("bir")
	next, _ := evolveSchema(t, md, u)
	if !column(t, next, "name").Required || column(t, next, "bir").Required {
		t.Errorf("schema %v", next.CurrentSchema())
	}
	var nf action.NullFree = u
	if got := nf.NullFreeFields(md); !reflect.DeepEqual(got, []int{2}) {
		t.Errorf("null-free fields %v, want [2] (id is already required)", got)
	}
	// On the evolved table name is required already: nothing to check.
	if got := u.NullFreeFields(next); len(got) != 0 {
		t.Errorf("null-free fields on the evolved table %v", got)
	}
	if got := us().RequireColumn("name").MakeColumnOptional("name").NullFreeFields(md); len(got) != 0 {
		t.Errorf("required then optional again: null-free fields %v", got)
	}
	nested := hiveNested(t)
	if got := us().RequireColumn("struct_1_col.int_array_col.element").NullFreeFields(nested); !reflect.DeepEqual(got, []int{7}) {
		t.Errorf("list element: null-free fields %v", got)
	}
}

func TestUpdateSchemaDeletes(t *testing.T) {
	md := hiveNested(t)
	next, _ := evolveSchema(t, md, us().DeleteColumn("struct_2_col.struct_3_col").DeleteColumn("int_bigint_map_col"))
	if _, ok := next.CurrentSchema().FindFieldByName("struct_2_col.struct_3_col.float_col"); ok {
		t.Error("a column inside the deleted struct is still there")
	}
	if got := topNames(next.CurrentSchema()); got != "struct_1_col,struct_2_col" {
		t.Errorf("columns %s", got)
	}
	if next.LastColumnID != 21 {
		t.Errorf("last-column-id %d: deleting never lowers it", next.LastColumnID)
	}
	refusedSchema(t, md, us().DeleteColumn("struct_1_col.int_array_col.element"), "struct_1_col.int_array_col.element", "delete the list or map")
	refusedSchema(t, md, us().DeleteColumn("nope"), "nope", "no such column")
	refusedSchema(t, md, us().AddColumn("struct_1_col.x", iceberg.IntType{}).DeleteColumn("struct_1_col"), "struct_1_col", "adds columns to")
	refusedSchema(t, md, us().DeleteColumn("struct_1_col").AddColumn("struct_1_col.x", iceberg.IntType{}), "struct_1_col.x", "deleted by this update")
	refusedSchema(t, md, us().RenameColumn("struct_1_col", "s").DeleteColumn("struct_1_col"), "struct_1_col", "changes")
	refusedSchema(t, md, us().DeleteColumn("struct_1_col").RenameColumn("struct_1_col.string_col", "s"), "struct_1_col.string_col", "deleted by this update")
	refusedSchema(t, md, us().MoveFirst("struct_2_col").DeleteColumn("struct_2_col"), "struct_2_col", "deleted by this update")
}

func TestUpdateSchemaAddingANameInUse(t *testing.T) {
	md := sparkPartitioned(t)
	refusedSchema(t, md, us().AddColumn("bir", iceberg.StringType{}), "bir", "the name exists")
	// A name with a dot is added by its parent (Java's addColumn(parent,
	// name, type)) and named in full afterwards.
	dotted, _ := evolveSchema(t, md, us().AddColumnTo("", "a.b", iceberg.IntType{}).MoveFirst("a.b").SetIdentifierFields("id"))
	if f := dotted.CurrentSchema().Fields[0]; f.Name != "a.b" || f.ID != 4 {
		t.Errorf("the first column is %+v", f)
	}
	refusedSchema(t, md, us().AddColumn("x", iceberg.StringType{}).AddColumn("x", iceberg.IntType{}), "x", "twice")
	// As in Java, a column deleted by the same update frees its name: the
	// new column is another column, with a new id.
	next, _ := evolveSchema(t, md, us().DeleteColumn("bir").AddColumn("bir", iceberg.StringType{}).MoveFirst("bir"))
	if f := column(t, next, "bir"); f.ID != 4 || f.Type != (iceberg.StringType{}) || next.CurrentSchema().Fields[0].ID != 4 {
		t.Errorf("bir is %+v in %v, want a new string column 4, first", f, next.CurrentSchema())
	}
	// Moves name the added column, as Java's findForMove does.
	nested, _ := evolveSchema(t, hiveNested(t), us().
		DeleteColumn("struct_1_col.string_col").
		AddColumn("struct_1_col.string_col", iceberg.IntType{}).
		MoveAfter("struct_1_col.string_col", "struct_1_col.int_array_col"))
	if s := column(t, nested, "struct_1_col").Type.(*iceberg.StructType); s.Fields[1].ID != 22 || s.Fields[1].Type != (iceberg.IntType{}) {
		t.Errorf("struct_1_col is %v", s)
	}
}

func TestUpdateSchemaRefusesBreakingPartitionAndSortSources(t *testing.T) {
	refusedSchema(t, sparkPartitioned(t), us().DeleteColumn("name"), "name", "cannot delete", `partition field "name"`, "spec 0")

	fields := `[{"id": 1, "name": "a", "required": false, "type": "date"},
		{"id": 2, "name": "b", "required": false, "type": "date"},
		{"id": 3, "name": "c", "required": false, "type": "date"},
		{"id": 4, "name": "s", "required": false, "type": {"type": "struct", "fields": [{"id": 5, "name": "n", "required": false, "type": "int"}]}},
		{"id": 6, "name": "free", "required": false, "type": "date"}]`
	// Spec 0 (no longer the default) partitions by identity(a); spec 1 by
	// day(b) and bucket(s.n); the default sort order sorts by c.
	specs := `[{"spec-id": 1, "fields": [{"name": "b_day", "transform": "day", "source-id": 2, "field-id": 1001},
		{"name": "n_bucket", "transform": "bucket[4]", "source-id": 5, "field-id": 1002}]},
		{"spec-id": 0, "fields": [{"name": "a", "transform": "identity", "source-id": 1, "field-id": 1000}]}]`
	md := handBuilt(t, 3, fields, specs, `[{"transform": "identity", "source-id": 3, "direction": "asc", "null-order": "nulls-first"}]`)
	md.DefaultSpecID = 1

	refusedSchema(t, md, us().DeleteColumn("a"), "a", "cannot delete", `partition field "a"`, "spec 0")
	refusedSchema(t, md, us().DeleteColumn("b"), "b", `partition field "b_day"`, "spec 1")
	refusedSchema(t, md, us().DeleteColumn("s"), "s.n", "cannot delete", `partition field "n_bucket"`)
	refusedSchema(t, md, us().DeleteColumn("c"), "c", "cannot delete", "sort field 0", "sort order 1")
	// identity(a) of a timestamp is another value than of its date.
	refusedSchema(t, md, us().UpdateColumn("a", iceberg.TimestampType{}), "a", "values would change")
	// day(b) is the same day either way; sorting by c orders rows alike.
	next, _ := evolveSchema(t, md, us().
		UpdateColumn("b", iceberg.TimestampType{}).
		UpdateColumn("c", iceberg.TimestampNsType{}).
		UpdateColumn("s.n", iceberg.LongType{}).
		RenameColumn("a", "a2").
		DeleteColumn("free"))
	if f := column(t, next, "b"); f.Type != (iceberg.TimestampType{}) {
		t.Errorf("b is %+v", f)
	}
}

func TestUpdateSchemaIdentifierFields(t *testing.T) {
	md := handBuilt(t, 2, `[{"id": 1, "name": "id", "required": true, "type": "long"},
		{"id": 2, "name": "key", "required": true, "type": {"type": "struct", "fields": [
			{"id": 3, "name": "region", "required": true, "type": "string"},
			{"id": 4, "name": "score", "required": true, "type": "double"}]}},
		{"id": 5, "name": "opt", "required": false, "type": {"type": "struct", "fields": [{"id": 6, "name": "k", "required": true, "type": "int"}]}},
		{"id": 7, "name": "l", "required": true, "type": {"type": "list", "element-id": 8, "element-required": true,
			"element": {"type": "struct", "fields": [{"id": 9, "name": "k", "required": true, "type": "int"}]}}},
		{"id": 10, "name": "maybe", "required": false, "type": "int"}]`,
		`[{"spec-id": 0, "fields": []}]`, `[]`, 1)
	next, _ := evolveSchema(t, md, us().SetIdentifierFields("id", "key.region"))
	if got := next.CurrentSchema().IdentifierFieldIDs; !reflect.DeepEqual(got, []int{1, 3}) {
		t.Errorf("identifier fields %v", got)
	}
	// Names are those of the evolved schema: a renamed or added column.
	next, _ = evolveSchema(t, md, us().RenameColumn("maybe", "m").RequireColumn("maybe").SetIdentifierFields("m"))
	if got := next.CurrentSchema().IdentifierFieldIDs; !reflect.DeepEqual(got, []int{10}) {
		t.Errorf("identifier fields %v", got)
	}
	refusedSchema(t, md, us().SetIdentifierFields("key"), "key", "primitive")
	refusedSchema(t, md, us().SetIdentifierFields("key.score"), "key.score", "double")
	refusedSchema(t, md, us().SetIdentifierFields("opt.k"), "opt.k", "optional struct opt")
	refusedSchema(t, md, us().SetIdentifierFields("l.element.k"), "l.element.k", "list or a map")
	refusedSchema(t, md, us().SetIdentifierFields("maybe"), "maybe", "must be required")
	refusedSchema(t, md, us().SetIdentifierFields("nope"), "nope", "no such column")
	// The table's identifier field id cannot go, nor become optional,
	// unless the identifier fields are set without it.
	refusedSchema(t, md, us().DeleteColumn("id"), "id", "identifier field")
	refusedSchema(t, md, us().MakeColumnOptional("id"), "id", "must be required")
	next, _ = evolveSchema(t, md, us().DeleteColumn("id").SetIdentifierFields("key.region"))
	if got := next.CurrentSchema().IdentifierFieldIDs; !reflect.DeepEqual(got, []int{3}) {
		t.Errorf("identifier fields %v", got)
	}
}

func TestUpdateSchemaReusesAnEqualSchemaAndChangesNothingWhenUnchanged(t *testing.T) {
	md := sparkPartitioned(t)
	if updates, err := us().UpdateColumn("id", iceberg.IntType{}).MakeColumnOptional("name").RequireColumn("id").Build(md); err != nil || len(updates) != 0 {
		t.Fatalf("a no-op update built %v, %v", updates, err)
	}
	renamed, _ := evolveSchema(t, md, us().RenameColumn("name", "n"))
	back, updates := evolveSchema(t, renamed, us().RenameColumn("n", "name"))
	if !reflect.DeepEqual(updates, []metadata.Update{metadata.SetCurrentSchema{SchemaID: 0}}) {
		t.Errorf("renaming back built %v, want set-current-schema 0", updates)
	}
	if back.CurrentSchemaID != 0 || len(back.Schemas) != 2 {
		t.Errorf("current schema %d of %d", back.CurrentSchemaID, len(back.Schemas))
	}
}

// Build holds no state of an earlier build: on newer metadata (another
// column added meanwhile) the same update numbers its columns after the
// newer last-column-id and adds a schema after the newer one.
func TestUpdateSchemaBuildsAgainOnNewerMetadata(t *testing.T) {
	md := sparkPartitioned(t)
	u := us().AddColumn("email", iceberg.StringType{}).RenameColumn("name", "full_name")
	first, firstUpdates := evolveSchema(t, md, u)
	if f := column(t, first, "email"); f.ID != 4 || first.CurrentSchemaID != 1 {
		t.Fatalf("email has id %d in schema %d", f.ID, first.CurrentSchemaID)
	}
	again, err := u.Build(md)
	if err != nil || !reflect.DeepEqual(again, firstUpdates) {
		t.Fatalf("building again on the same metadata gave %v, %v", again, err)
	}
	newer, _ := evolveSchema(t, md, us().AddColumn("other", iceberg.LongType{}))
	second, _ := evolveSchema(t, newer, u)
	if got := topNames(second.CurrentSchema()); got != "id,full_name,bir,other,email" {
		t.Errorf("columns %s", got)
	}
	if f := column(t, second, "email"); f.ID != 5 || second.CurrentSchemaID != 2 || second.LastColumnID != 5 {
		t.Errorf("email has id %d in schema %d, last-column-id %d; want 5, 2, 5", f.ID, second.CurrentSchemaID, second.LastColumnID)
	}
	if f := column(t, second, "other"); f.ID != 4 {
		t.Errorf("other has id %d", f.ID)
	}
}

func TestUpdateSchemaUnionByName(t *testing.T) {
	md := hiveNested(t)
	wanted := iceberg.NewSchema(0, []iceberg.NestedField{
		{Name: "struct_1_col", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{Name: "string_col", Type: iceberg.StringType{}},
			{Name: "extra", Type: iceberg.LongType{}},
		}}},
		{Name: "struct_2_col", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{Name: "int_int_map_col", Type: &iceberg.MapType{Key: iceberg.IntType{}, Value: iceberg.LongType{}}},
		}}},
		{Name: "top", Type: iceberg.StringType{}},
	})
	next, _ := evolveSchema(t, md, us().AddColumn("first", iceberg.IntType{}).UnionByName(wanted).MoveFirst("top").RenameColumn("struct_1_col.string_col", "s"))
	if f := column(t, next, "first"); f.ID != 22 {
		t.Errorf("first has id %d", f.ID)
	}
	if f := column(t, next, "struct_1_col.extra"); f.ID != 23 {
		t.Errorf("extra has id %d", f.ID)
	}
	if f := column(t, next, "top"); f.ID != 24 || next.CurrentSchema().Fields[0].Name != "top" {
		t.Errorf("top has id %d; columns %s", f.ID, topNames(next.CurrentSchema()))
	}
	if f := column(t, next, "struct_2_col.int_int_map_col.value"); f.Type != (iceberg.LongType{}) {
		t.Errorf("the union did not promote the map's value: %+v", f)
	}
	if _, ok := next.CurrentSchema().FindFieldByName("struct_1_col.s"); !ok {
		t.Error("rename lost")
	}
	refusedSchema(t, md, us().DeleteColumn("struct_2_col.int_int_map_col").UnionByName(wanted), "struct_2_col.int_int_map_col.value", "deletes")
	refusedSchema(t, md, us().AddColumn("top", iceberg.IntType{}).UnionByName(wanted), "top", "twice")
	// A promotion by the union carries the defaults with it.
	promoted, _ := evolveSchema(t, impalaAllTypes(t), us().UnionByName(iceberg.NewSchema(0, []iceberg.NestedField{{Name: "col_int", Type: iceberg.LongType{}}})))
	if f := column(t, promoted, "col_int"); f.Type != (iceberg.LongType{}) || f.InitialDefault != int64(-1) || f.WriteDefault != int64(-999) {
		t.Errorf("col_int is %+v", f)
	}
	narrower := iceberg.NewSchema(0, []iceberg.NestedField{{Name: "int_bigint_map_col", Type: iceberg.StringType{}}})
	refusedSchema(t, md, us().UnionByName(narrower), "int_bigint_map_col", "cannot change type")
}

func TestUpdateSchemaCaseSensitivity(t *testing.T) {
	md := sparkPartitioned(t)
	refusedSchema(t, md, us().RenameColumn("NAME", "n"), "NAME", "no such column")
	next, _ := evolveSchema(t, md, us().CaseSensitive(false).RenameColumn("NAME", "n").UpdateColumn("ID", iceberg.LongType{}).SetIdentifierFields("ID"))
	if f := column(t, next, "n"); f.ID != 2 {
		t.Errorf("n is %+v", f)
	}
	if got := next.CurrentSchema().IdentifierFieldIDs; !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("identifier fields %v", got)
	}
}

func TestUpdateSchemaRecordsTheFirstError(t *testing.T) {
	md := sparkPartitioned(t)
	refusedSchema(t, md, us().RenameColumn("id", "").AddColumn("", iceberg.IntType{}), "id", "empty name")
	refusedSchema(t, md, us().AddColumn("x.", iceberg.IntType{}), "x.", "needs a name")
	// The table is named too.
	_, err := us().DeleteColumn("nope").Build(md)
	if err == nil || !strings.Contains(err.Error(), md.Location) {
		t.Errorf("%v does not name the table %s", err, md.Location)
	}
}

// Properties that name columns follow them (Java's SchemaUpdate): the
// name mapping learns new columns and new names beside the old ones, and
// per-column metrics settings are renamed or dropped.
func TestUpdateSchemaKeepsColumnPropertiesInStep(t *testing.T) {
	md := handBuilt(t, 2, `[{"id": 1, "name": "id", "required": true, "type": "long"},
		{"id": 2, "name": "s", "required": false, "type": {"type": "struct", "fields": [{"id": 3, "name": "a", "required": false, "type": "string"}]}},
		{"id": 4, "name": "b", "required": false, "type": "string"},
		{"id": 5, "name": "c", "required": false, "type": "string"}]`,
		`[{"spec-id": 0, "fields": []}]`, `[]`)
	md.Properties = map[string]string{
		metadata.PropertyNameMapping:                   `[{"field-id":1,"names":["id"]},{"field-id":2,"names":["s"],"fields":[{"field-id":3,"names":["a"]}]},{"field-id":4,"names":["b"]},{"field-id":5,"names":["c"]}]`,
		"write.metadata.metrics.column.s.a":            "full",
		"write.metadata.metrics.column.b":              "counts",
		"write.metadata.metrics.column.c":              "none",
		"write.parquet.bloom-filter-enabled.column.id": "true",
		"owner": "etl",
	}
	next, _ := evolveSchema(t, md, us().
		RenameColumn("s", "t").
		RenameColumn("b", "c").
		DeleteColumn("c").
		AddColumn("s.z", iceberg.IntType{}))
	want := map[string]string{
		metadata.PropertyNameMapping:                   `[{"field-id":1,"names":["id"]},{"field-id":2,"names":["s","t"],"fields":[{"field-id":3,"names":["a"]},{"field-id":21,"names":["z"]}]},{"field-id":4,"names":["b","c"]},{"field-id":5,"names":[]}]`,
		"write.metadata.metrics.column.t.a":            "full",
		"write.metadata.metrics.column.c":              "counts",
		"write.parquet.bloom-filter-enabled.column.id": "true",
		"owner": "etl",
	}
	if !reflect.DeepEqual(next.Properties, want) {
		t.Errorf("properties\n got %v\nwant %v", next.Properties, want)
	}
}

// Only a union by name means the same on any newer schema; every other
// operation names columns of the schema it was asked on.
func TestUpdateSchemaIsRebasableOnlyForUnionByName(t *testing.T) {
	wanted := iceberg.NewSchema(0, []iceberg.NestedField{{Name: "x", Type: iceberg.IntType{}}})
	var r action.Rebasable = us()
	if r.Rebasable() {
		t.Error("an empty update is rebasable")
	}
	if !us().CaseSensitive(false).UnionByName(wanted).Rebasable() {
		t.Error("a union by name is not rebasable")
	}
	if us().UnionByName(wanted).AddColumn("y", iceberg.IntType{}).Rebasable() {
		t.Error("a union with an addition is rebasable")
	}
	if us().RenameColumn("a", "b").Rebasable() {
		t.Error("a rename is rebasable")
	}
}

// Impala evolved its v2 table (identifier fields i, d; identity(d)) by a
// rename and then an added column, and its v3 table by a column with
// defaults: the same operations build on each version exactly the schema
// Impala wrote in the next.
func TestUpdateSchemaReplaysImpalasEvolution(t *testing.T) {
	const v2, v3 = "impala_iceberg_v2_equality_delete_schema_evolution", "impala_test_default_part"
	steps := []struct {
		table, from, to string
		u               *action.UpdateSchema
	}{
		{v2, "v3.metadata.json", "v4.metadata.json", us().RenameColumn("s", "str")},
		{v2, "v4.metadata.json", "v5.metadata.json", us().AddColumn("j", iceberg.IntType{})},
		// On v3, a column with an initial-default and no write-default
		// (edited into the file by hand upstream, INDEX.md quirk 7; as
		// Java's, AddColumn's write-default is the initial one unless
		// given, so it is removed after).
		{v3, "v2.metadata.json", "v3.metadata.json", us().
			AddColumn("j", iceberg.IntType{}, action.ColumnOptions{InitialDefault: int32(-1)}).
			UpdateColumnDefault("j", nil)},
	}
	for _, s := range steps {
		md, want := readFixtureMetadata(t, s.table, s.from), readFixtureMetadata(t, s.table, s.to)
		next, _ := evolveSchema(t, md, s.u)
		got, _ := next.CurrentSchema().MarshalJSON()
		expected, _ := want.CurrentSchema().MarshalJSON()
		if string(got) != string(expected) || next.LastColumnID != want.LastColumnID {
			t.Errorf("%s → %s: built %s (last-column-id %d), Impala wrote %s (%d)", s.from, s.to, got, next.LastColumnID, expected, want.LastColumnID)
		}
	}
}
