package scan

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// Files without field ids read through a partial name mapping: a column
// the mapping leaves out reads as its initial-default or null in every
// such file, though the file holds a column of that name and the
// manifests keep metrics for its field id (as a migration that matched
// columns by name writes them). Filtered scans must agree with the
// unfiltered scan filtered afterwards: no pruning level may judge such a
// column by those metrics or statistics, nor fold "is null" by its
// required flag.

// fpMappedSchema is the standard schema with l required (it reads null
// where unmapped, which its required flag must not hide) and dt given an
// initial-default.
func fpMappedSchema(dtDefault int32) *iceberg.Schema {
	fields := append([]iceberg.NestedField(nil), testtable.Schema().Fields...)
	for i := range fields {
		switch fields[i].ID {
		case testtable.IDLong:
			fields[i].Required = true
		case testtable.IDDate:
			fields[i].InitialDefault = dtDefault
		}
	}
	return iceberg.NewSchema(0, fields)
}

// fpMappingJSON maps every column of schema but those in unmapped by its
// name.
func fpMappingJSON(t *testing.T, schema *iceberg.Schema, unmapped map[int]bool) string {
	t.Helper()
	type entry struct {
		ID    int      `json:"field-id"`
		Names []string `json:"names"`
	}
	m := []entry{}
	for _, f := range schema.Fields {
		if !unmapped[f.ID] {
			m = append(m, entry{f.ID, []string{f.Name}})
		}
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// fpRowsWithoutNulls fills the nulls of column c, so that it may be
// required.
func fpRowsWithoutNulls(rows [][]any, c int) [][]any {
	for _, r := range rows {
		if r[c] == nil {
			r[c] = int64(7)
		}
	}
	return rows
}

func TestFilterPropertyUnmappedColumns(t *testing.T) {
	seed, perTable := fpSettings(t)
	dtDefault := int32(19800)
	schema := fpMappedSchema(dtDefault)
	col := func(id int) int { return fpFieldIndex(schema, mustField(t, schema, id).Name) }
	layouts := []struct {
		name     string
		unmapped map[int]bool
		spec     iceberg.PartitionSpec
		mode     string
	}{
		{"full mapping", map[int]bool{}, iceberg.PartitionSpec{}, "full"},
		// l (required), d, dt (defaulted), s, wdec unmapped; b unmapped
		// too, but an identity partition supplies it.
		{"partial mapping, identity(b)", map[int]bool{
			testtable.IDLong: true, testtable.IDDouble: true, testtable.IDDate: true,
			testtable.IDString: true, testtable.IDWideDecimal: true, testtable.IDBool: true,
		}, iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: testtable.IDBool, Transform: iceberg.IdentityTransform{}}}}, "full"},
		{"partial mapping, truncate(8)", map[int]bool{
			testtable.IDLong: true, testtable.IDInt: true, testtable.IDTimestamp: true, testtable.IDDecimal: true,
		}, iceberg.PartitionSpec{}, "truncate(8)"},
	}
	for li, layout := range layouts {
		t.Run(layout.name, func(t *testing.T) {
			rows := fpRowsWithoutNulls(testtable.RandomRows(seed+uint64(10+li), 1500), col(testtable.IDLong))
			opts := testtable.Options{
				Schema: schema, Rows: rows, RowsPerFile: 400, RowsPerRowGroup: 100, RowsPerPage: 30,
				MetricsMode: layout.mode, WithoutFieldIDs: true, FormatVersion: 3, Spec: layout.spec,
				Properties: map[string]string{"schema.name-mapping.default": fpMappingJSON(t, schema, layout.unmapped)},
			}
			identity := map[int]bool{}
			for _, pf := range layout.spec.Fields {
				identity[pf.SourceID] = true
			}
			readAs := func(row []any) []any {
				out := append([]any(nil), row...)
				for c, f := range schema.Fields {
					if layout.unmapped[f.ID] && !identity[f.ID] {
						out[c] = f.InitialDefault
					}
				}
				return out
			}
			ft := fpBuildReadAs(t, opts, readAs)
			// Literals come from the values written, which the metrics
			// describe, and from what the columns read as.
			for c, f := range schema.Fields {
				if f.InitialDefault != nil {
					ft.values[c] = append(ft.values[c], f.InitialDefault)
				}
			}
			r := rand.New(rand.NewPCG(seed, uint64(100+li)))
			failures := 0
			for i := 0; i < perTable && failures < 5; i++ {
				c := fpCase{root: fpGenerate(r, ft, 0), json: i%2 == 1, threads: 1 + i%2}
				c.columns = fpProjection(r, ft.schema)
				if !fpCheck(t, ft, c) {
					failures++
				}
			}
			// The predicates the bug report named, on the required
			// unmapped column, whatever the generator drew.
			for _, text := range []string{"l is null", "l is not null", "not (l is null)", "dt = 19800", "dt is null"} {
				got, err := fpScan(ft, Options{Filter: textFilter(text), Columns: []string{"id"}}, []string{"id"})
				if err != nil {
					t.Fatalf("%s: %v", text, err)
				}
				want := 0
				for _, row := range ft.rows {
					if fpHolds(text, row, schema) {
						want++
					}
				}
				if len(got) != want {
					t.Errorf("%s: %d rows, want %d", text, len(got), want)
				}
			}
		})
	}
}

// fpHolds evaluates the few fixed predicates of the test above.
func fpHolds(text string, row []any, schema *iceberg.Schema) bool {
	l, dt := row[fpFieldIndex(schema, "l")], row[fpFieldIndex(schema, "dt")]
	switch text {
	case "l is null":
		return l == nil
	case "l is not null", "not (l is null)":
		return l != nil
	case "dt = 19800":
		return dt != nil && dt.(int32) == 19800
	case "dt is null":
		return dt == nil
	}
	panic(text)
}

func mustField(t *testing.T, s *iceberg.Schema, id int) iceberg.NestedField {
	t.Helper()
	f, ok := s.FindField(id)
	if !ok {
		t.Fatalf("no field %d", id)
	}
	return f
}

// TestFilterEmptyMapping: under an empty name mapping a file without
// field ids holds none of the table's columns; every row reads as the
// defaults (dt's initial-default, null elsewhere, required columns too),
// so a filter keeps every row or none.
func TestFilterEmptyMapping(t *testing.T) {
	schema := fpMappedSchema(19800)
	rows := fpRowsWithoutNulls(testtable.RandomRows(7, 300), 2)
	built, err := testtable.Build(t.TempDir(), testtable.Options{
		Schema: schema, Rows: rows, RowsPerFile: 100, WithoutFieldIDs: true, FormatVersion: 3, MetricsMode: "full",
		Properties: map[string]string{"schema.name-mapping.default": "[]"},
	})
	if err != nil {
		t.Fatal(err)
	}
	opened, err := table.Open(context.Background(), built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ft := &fpTable{built: built, opened: opened, schema: schema}
	all, none := len(rows), 0
	for _, c := range []struct {
		filter string
		want   int
	}{
		{"id is null", all}, {"id is not null", none}, {"id = 5", none}, {"id != 5", none},
		// A literal beyond the type holds for every value, never for a null.
		{"id != 99999999999999999999", none}, {"id < 99999999999999999999", none}, {"i not in (1, 99999999999)", none},
		{"l is null", all}, {"l is not null", none}, {"l > 0 or l is null", all},
		{"dt = '2024-03-18'", all}, {"dt > '2024-01-01' and dt is not null", all}, {"dt < '2024-01-01'", none}, {"dt is null", none},
		{"i is null", all}, {"s = 'a'", none}, {"not (s = 'a')", none}, {"d is not nan", none}, {"d is nan", none},
	} {
		for _, cols := range [][]string{{"id"}, {"i", "dt"}} {
			got, err := fpScan(ft, Options{Filter: textFilter(c.filter), Columns: cols}, cols)
			if err != nil {
				t.Fatalf("%s: %v", c.filter, err)
			}
			if len(got) != c.want {
				t.Errorf("%s (columns %v): %d rows, want %d", c.filter, cols, len(got), c.want)
			}
		}
		// The same filter added to a running scan, whose metrics check
		// rules files out before they open.
		s, err := New(context.Background(), opened, Options{Columns: []string{"i"}})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.AddFilter(textFilter(c.filter)); err != nil {
			t.Fatalf("%s: %v", c.filter, err)
		}
		rr, err := s.Reader(context.Background(), memory.NewGoAllocator())
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rr.Next() {
			n += int(rr.RecordBatch().NumRows())
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		if n != c.want {
			t.Errorf("runtime filter %s: %d rows, want %d", c.filter, n, c.want)
		}
	}
}
