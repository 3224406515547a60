package rowstest

import (
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/reader/parquet"
)

// ReadFile reads a whole local data file with floe's reader, in file
// order: one row of Canonical values per file row, columns by field id.
func ReadFile(t testing.TB, path string, schema *iceberg.Schema) [][]any {
	t.Helper()
	path = strings.TrimPrefix(path, "file://")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, info.Size(), nil)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var cols []parquet.Column
	for _, fld := range schema.Fields {
		n := pf.NodeByFieldID(int32(fld.ID))
		if n == nil {
			t.Fatalf("%s: no column with field id %d (%s)", path, fld.ID, fld.Name)
		}
		cols = append(cols, parquet.Column{Node: n})
	}
	var rows [][]any
	for rg := range pf.RowGroups {
		br, err := pf.NewBatchReader(parquet.ReadRequest{Columns: cols, RowGroup: rg})
		if err != nil {
			t.Fatal(err)
		}
		for {
			batch, err := br.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			for i := 0; i < batch.NumRows; i++ {
				row := make([]any, len(schema.Fields))
				for j, fld := range schema.Fields {
					row[j] = Canonical(batch.Columns[j], i, fld.Type)
				}
				rows = append(rows, row)
			}
			batch.Release()
		}
		br.Close()
	}
	return rows
}

// CompareBySortOrder orders two rows of schema by a sort order as the
// spec defines it, with package iceberg's boxed transforms and Compare:
// each field's transform of its source value, nulls first or last
// whatever the direction, then the direction. Sorted writers are checked
// against it, not against their own keys.
func CompareBySortOrder(t testing.TB, schema *iceberg.Schema, order *iceberg.SortOrder, a, b []any) int {
	t.Helper()
	for _, f := range order.Fields {
		src, ok := schema.FindField(f.SourceID)
		pos := slices.IndexFunc(schema.Fields, func(x iceberg.NestedField) bool { return x.ID == f.SourceID })
		if !ok || pos < 0 {
			t.Fatalf("sort field source %d is not a top-level column", f.SourceID)
		}
		rt, err := f.Transform.ResultType(src.Type)
		if err != nil {
			t.Fatal(err)
		}
		apply := func(v any) any {
			if v == nil {
				return nil
			}
			out, err := f.Transform.Apply(src.Type, v)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		va, vb := apply(a[pos]), apply(b[pos])
		switch {
		case va == nil && vb == nil:
			continue
		case va == nil || vb == nil:
			if (va == nil) == (f.NullOrder == "nulls-first") {
				return -1
			}
			return 1
		}
		c := iceberg.Compare(rt, va, vb)
		if f.Direction == "desc" {
			c = -c
		}
		if c != 0 {
			return c
		}
	}
	return 0
}

// CheckSorted fails unless rows are in order by the sort order.
func CheckSorted(t testing.TB, what string, schema *iceberg.Schema, order *iceberg.SortOrder, rows [][]any) {
	t.Helper()
	for i := 1; i < len(rows); i++ {
		if CompareBySortOrder(t, schema, order, rows[i-1], rows[i]) > 0 {
			t.Fatalf("%s: row %d %v comes after row %d %v", what, i, rows[i], i-1, rows[i-1])
		}
	}
}
