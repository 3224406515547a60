package action_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
)

// FuzzUpdateSchema chains operations chosen by the fuzz bytes over the
// columns of real tables' schemas. Build must never panic; a refusal is an
// invalid argument naming a column; whatever builds applies, replays as
// JSON to the same metadata, validates, and built again on its own result
// changes nothing more than a schema switch.
func FuzzUpdateSchema(f *testing.F) {
	var tables []*metadata.Metadata
	for _, p := range [][2]string{
		{"impala_iceberg_migrated_complex_test", "v2.metadata.json"},
		{"duckdb_equality_deletes/warehouse/mydb/mytable_partitioned", "v6.metadata.json"},
		{"impala_iceberg_v3_all_types", "v4.metadata.json"},
		{"impala_test_default_part", "v6.metadata.json"},
	} {
		raw, err := os.ReadFile(filepath.Join("..", "..", "testdata", "fixtures", p[0], "metadata", p[1]))
		if err != nil {
			f.Fatal(err)
		}
		md, err := metadata.Parse(raw)
		if err != nil {
			f.Fatal(err)
		}
		tables = append(tables, md)
	}
	for i := range tables {
		f.Add([]byte{byte(i), 0, 1, 2, 3, 4, 5, 6, 7, 8})
		f.Add([]byte{byte(i), 9, 3, 1, 10, 2, 0, 4, 5, 5, 2, 2, 2})
		f.Add([]byte{byte(i), 13, 8, 4, 7, 1, 1, 12, 0, 0, 15, 3, 3})
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 || len(data) > 64 {
			return
		}
		md := tables[int(data[0])%len(tables)]
		names := columnNames(md.CurrentSchema())
		u := new(action.UpdateSchema)
		for i := 1; i+2 < len(data); i += 3 {
			a, b := names[int(data[i+1])%len(names)], names[int(data[i+2])%len(names)]
			n := fmt.Sprintf("c%d", i)
			switch data[i] % 16 {
			case 0:
				u.AddColumn(a+"."+n, iceberg.IntType{})
			case 1:
				u.AddColumn(n, &iceberg.StructType{Fields: []iceberg.NestedField{{Name: "x", Type: &iceberg.ListType{Element: iceberg.LongType{}}}}})
			case 2:
				u.DeleteColumn(a)
			case 3:
				u.RenameColumn(a, n)
			case 4:
				u.UpdateColumn(a, iceberg.LongType{})
			case 5:
				u.UpdateColumn(a, iceberg.DoubleType{})
			case 6:
				u.MakeColumnOptional(a)
			case 7:
				u.RequireColumn(a)
			case 8:
				u.MoveFirst(a)
			case 9:
				u.MoveBefore(a, b)
			case 10:
				u.MoveAfter(a, b)
			case 11:
				u.UpdateColumnDoc(a, n)
			case 12:
				u.SetIdentifierFields(a)
			case 13:
				u.UpdateColumn(a, iceberg.TimestampType{})
			case 14:
				u.CaseSensitive(data[i+1]%2 == 0)
			case 15:
				u.AddColumn(n, iceberg.IntType{}, action.ColumnOptions{Required: true, InitialDefault: int32(data[i+1])})
			}
		}
		updates, err := u.Build(md)
		u.NullFreeFields(md)
		if err != nil {
			var sue *action.SchemaUpdateError
			if !errors.Is(err, errkind.InvalidArgument) || !errors.As(err, &sue) {
				t.Fatalf("refusal %v is not an invalid argument naming a column", err)
			}
			return
		}
		next, _ := evolveSchema(t, md, u)
		if len(updates) == 0 {
			return
		}
		again, err := u.Build(next)
		if err != nil {
			// Names mean the columns of the schema an update starts from;
			// on its own result some are renamed, deleted or added.
			return
		}
		for _, up := range again {
			if _, add := up.(metadata.AddSchema); add && sameAsCurrent(t, next, again) {
				t.Fatalf("rebuilding on its own result added an equal schema: %v", again)
			}
		}
	})
}

// columnNames lists every dotted name of a schema, as FindFieldByName
// takes them.
func columnNames(s *iceberg.Schema) []string {
	var out []string
	var walk func(prefix string, t iceberg.Type)
	add := func(prefix, name string, t iceberg.Type) {
		full := name
		if prefix != "" {
			full = prefix + "." + name
		}
		out = append(out, full)
		walk(full, t)
	}
	walk = func(prefix string, t iceberg.Type) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for _, f := range t.Fields {
				add(prefix, f.Name, f.Type)
			}
		case *iceberg.ListType:
			add(prefix, "element", t.Element)
		case *iceberg.MapType:
			add(prefix, "key", t.Key)
			add(prefix, "value", t.Value)
		}
	}
	walk("", s.AsStruct())
	return out
}

func sameAsCurrent(t *testing.T, md *metadata.Metadata, updates []metadata.Update) bool {
	c := metadata.Edit(md)
	if err := c.Apply(updates...); err != nil {
		t.Fatal(err)
	}
	form := func(s *iceberg.Schema) string {
		b, _ := iceberg.NewSchema(0, s.Fields, s.IdentifierFieldIDs...).MarshalJSON()
		return string(b)
	}
	return form(c.Metadata().CurrentSchema()) == form(md.CurrentSchema())
}
