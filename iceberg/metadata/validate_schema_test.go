package metadata

import (
	"testing"

	"github.com/floedb/floe/errkind"
)

// TestParseRefusesDuplicateNamesAndIDs: a schema with two sibling fields of
// one name read as {"i":1,"i":null}, and one with a field id used twice
// bound columns to whichever came first. Both are refused when the metadata
// is parsed, naming the fields, as corrupt metadata.
func TestParseRefusesDuplicateNamesAndIDs(t *testing.T) {
	field := func(id int, name string, typ any) doc {
		return doc{"id": id, "name": name, "required": false, "type": typ}
	}
	schema := func(fields ...any) []any {
		return []any{doc{"type": "struct", "schema-id": 0, "fields": fields}}
	}
	cases := []struct {
		name   string
		fields []any
		want   string
	}{
		{"top-level names", []any{field(1, "i", "int"), field(2, "i", "int")},
			`schema 0: fields 1 and 2 are both named "i"`},
		{"names in a struct", []any{field(1, "s", doc{"type": "struct", "fields": []any{field(2, "a", "int"), field(3, "a", "long")}})},
			`schema 0: fields 2 and 3 are both named "s.a"`},
		{"names in a list's struct", []any{field(1, "l", doc{"type": "list", "element-id": 2, "element-required": false,
			"element": doc{"type": "struct", "fields": []any{field(3, "x", "int"), field(4, "x", "int")}}})},
			`schema 0: fields 3 and 4 are both named "l.element.x"`},
		{"top-level ids", []any{field(1, "a", "int"), field(1, "b", "int")},
			`schema 0: field id 1 is used by both a and b`},
		{"a nested id", []any{field(1, "a", "int"), field(2, "s", doc{"type": "struct", "fields": []any{field(1, "b", "int")}})},
			`schema 0: field id 1 is used by both a and s.b`},
		{"a map's value id", []any{field(1, "a", "int"), field(2, "m", doc{"type": "map", "key-id": 3, "key": "string",
			"value-id": 1, "value": "int", "value-required": false})},
			`schema 0: field id 1 is used by both a and m.value`},
	}
	for _, c := range cases {
		d := rollbackTable()
		d["schemas"] = schema(c.fields...)
		checkError(t, c.name, encode(t, d), c.want)
		if _, err := Parse(encode(t, d)); errkind.Of(err) != errkind.Corrupt {
			t.Errorf("%s: kind %v, want corrupt (%v)", c.name, errkind.Of(err), err)
		}
	}

	// Names that differ only in case, and the same name in different
	// structs, are allowed: Iceberg is case-sensitive and names are per
	// struct.
	d := rollbackTable()
	d["schemas"] = schema(field(1, "i", "int"), field(2, "I", "int"),
		field(3, "s", doc{"type": "struct", "fields": []any{field(4, "i", "int")}}))
	d["last-column-id"] = 4
	if _, err := Parse(encode(t, d)); err != nil {
		t.Errorf("distinct names refused: %v", err)
	}
}
