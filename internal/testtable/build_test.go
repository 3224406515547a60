package testtable

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/parquet-go/parquet-go"
)

// TestBuildUnpartitioned checks what the builder promises, reading the
// files back with parquet-go and the metadata with floe's table package:
// every row lands once, with its field ids, in the row groups asked for,
// with several pages per column chunk, and the manifest's metrics bound
// every value.
func TestBuildUnpartitioned(t *testing.T) {
	rows := RandomRows(1, 2000)
	tbl, err := Build(t.TempDir(), Options{Rows: rows, RowsPerFile: 700, RowsPerRowGroup: 200})
	if err != nil {
		t.Fatal(err)
	}
	if len(tbl.Files) != 3 {
		t.Fatalf("%d files, want 3", len(tbl.Files))
	}
	if tbl.Files[0].Manifest != 0 || tbl.Files[2].Manifest != 1 {
		t.Errorf("files are in manifests %d and %d, want 0 and 1", tbl.Files[0].Manifest, tbl.Files[2].Manifest)
	}
	seen := make([]bool, len(rows))
	for _, f := range tbl.Files {
		for _, r := range f.Rows {
			if seen[r] {
				t.Fatalf("row %d written twice", r)
			}
			seen[r] = true
		}
		checkParquetFile(t, tbl, f)
	}
	for r, ok := range seen {
		if !ok {
			t.Fatalf("row %d not written", r)
		}
	}
	checkManifests(t, tbl)
}

// TestBuildPartitioned checks that every file holds one partition tuple,
// the one the transforms give for each of its rows.
func TestBuildPartitioned(t *testing.T) {
	spec := iceberg.PartitionSpec{ID: 0, Fields: []iceberg.PartitionField{
		{SourceID: IDBool, Transform: iceberg.IdentityTransform{}},
		{SourceID: IDInt, Transform: iceberg.BucketTransform{N: 3}},
		{SourceID: IDString, Transform: iceberg.TruncateTransform{Width: 1}},
		{SourceID: IDTimestamp, Transform: iceberg.DayTransform{}},
	}}
	rows := RandomRows(2, 600)
	tbl, err := Build(t.TempDir(), Options{Rows: rows, Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	if got := tbl.Spec.Fields[1].Name; got != "i_bucket" || tbl.Spec.Fields[1].FieldID != 1001 {
		t.Errorf("second partition field is %q with id %d, want i_bucket, 1001", got, tbl.Spec.Fields[1].FieldID)
	}
	schema := tbl.Schema
	for _, f := range tbl.Files {
		for _, r := range f.Rows {
			for i, pf := range tbl.Spec.Fields {
				c := fieldIndex(schema, pf.SourceID)
				want, err := pf.Transform.Apply(schema.Fields[c].Type, rows[r][c])
				if err != nil {
					t.Fatal(err)
				}
				rt, _ := pf.Transform.ResultType(schema.Fields[c].Type)
				if iceberg.Compare(rt, want, f.Partition[i]) != 0 || (want == nil) != (f.Partition[i] == nil) {
					t.Fatalf("%s: row %d has %s = %v, the file's tuple %v", f.Path, r, pf.Name, want, f.Partition)
				}
			}
		}
		checkParquetFile(t, tbl, f)
	}
	checkManifests(t, tbl)
}

func TestBuildRejectsBadRows(t *testing.T) {
	bad := map[string][][]any{
		"short row":           {{int64(1)}},
		"wrong type":          {append([]any{int32(1)}, make([]any, 10)...)},
		"null required":       {make([]any, 11)},
		"negative wide dec":   {append(append([]any{int64(1)}, make([]any, 8)...), iceberg.DecimalFromInt64(-1, 4), nil)},
		"decimal wrong scale": {append(append([]any{int64(1)}, make([]any, 7)...), iceberg.DecimalFromInt64(1, 3), nil, nil)},
	}
	for name, rows := range bad {
		if _, err := Build(t.TempDir(), Options{Rows: rows}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := Build(t.TempDir(), Options{Rows: RandomRows(1, 10), MetricsMode: "truncate(x)"}); err == nil {
		t.Error("bad metrics mode: no error")
	}
}

func fieldIndex(s *iceberg.Schema, id int) int {
	for i, f := range s.Fields {
		if f.ID == id {
			return i
		}
	}
	return -1
}

// checkParquetFile reads one data file back with parquet-go.
func checkParquetFile(t *testing.T, tbl *Table, df DataFile) {
	t.Helper()
	osf, err := os.Open(df.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer osf.Close()
	pf, err := parquet.OpenFile(osf, df.Size)
	if err != nil {
		t.Fatal(err)
	}
	leaves := pf.Schema().Columns()
	ids := map[int]int{} // leaf → field index in the table schema
	for leaf := range leaves {
		col := pf.Root().Column(leaves[leaf][0])
		id := col.ID()
		if id == 0 {
			t.Fatalf("%s: column %v has no field id", df.Path, leaves[leaf])
		}
		ids[leaf] = fieldIndex(tbl.Schema, id)
	}
	if len(pf.RowGroups()) != len(df.RowGroups) {
		t.Fatalf("%s: %d row groups, want %d", df.Path, len(pf.RowGroups()), len(df.RowGroups))
	}
	offsets := pf.OffsetIndexes()
	next := 0
	for g, rg := range pf.RowGroups() {
		if rg.NumRows() != int64(df.RowGroups[g]) {
			t.Errorf("%s: row group %d has %d rows, want %d", df.Path, g, rg.NumRows(), df.RowGroups[g])
		}
		// Pages are cut by row count (40, 60 or 80 rows by default), and
		// every page has its bounds in the column index.
		for leaf, c := range ids {
			step := pageRows(40, c)
			want := (df.RowGroups[g] + step - 1) / step
			if n := len(offsets[g*len(leaves)+leaf].PageLocations); n != want {
				t.Errorf("%s: row group %d, column %s: %d pages, want %d", df.Path, g, tbl.Schema.Fields[c].Name, n, want)
			}
			if n := len(pf.ColumnIndexes()[g*len(leaves)+leaf].NullPages); n != want {
				t.Errorf("%s: row group %d, column %s: column index of %d pages, want %d", df.Path, g, tbl.Schema.Fields[c].Name, n, want)
			}
		}
		rr := rg.Rows()
		buf := make([]parquet.Row, 64)
		for {
			n, err := rr.ReadRows(buf)
			for _, row := range buf[:n] {
				want := tbl.Rows[df.Rows[next]]
				next++
				for _, v := range row {
					c := ids[v.Column()]
					f := tbl.Schema.Fields[c]
					if want[c] == nil {
						if !v.IsNull() {
							t.Fatalf("%s: row %d column %s: %v, want null", df.Path, next-1, f.Name, v)
						}
						continue
					}
					pv, err := parquetValue(f.Type, want[c])
					if err != nil {
						t.Fatal(err)
					}
					if v.IsNull() || !bytes.Equal(v.Bytes(), pv.Bytes()) {
						t.Fatalf("%s: row %d column %s: %v, want %v", df.Path, next-1, f.Name, v, want[c])
					}
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		rr.Close()
	}
	if next != len(df.Rows) {
		t.Errorf("%s: %d rows read, want %d", df.Path, next, len(df.Rows))
	}
}

// checkManifests plans the table with floe's table package and checks each
// file's metrics against its rows.
func checkManifests(t *testing.T, tbl *Table) {
	t.Helper()
	ctx := context.Background()
	opened, err := table.Open(ctx, tbl.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := opened.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != len(tbl.Files) {
		t.Fatalf("plan has %d files, want %d", len(plan.Tasks), len(tbl.Files))
	}
	byPath := map[string]DataFile{}
	for _, f := range tbl.Files {
		byPath[f.Path] = f
	}
	for _, task := range plan.Tasks {
		f, ok := byPath[task.File.FilePath]
		if !ok {
			t.Fatalf("plan names unknown file %s", task.File.FilePath)
		}
		df := task.File
		if df.RecordCount != int64(len(f.Rows)) {
			t.Errorf("%s: record count %d, want %d", f.Path, df.RecordCount, len(f.Rows))
		}
		for c, field := range tbl.Schema.Fields {
			var nulls int64
			var lo, hi any
			if b, ok := df.Metrics.Maps().LowerBounds[field.ID]; ok {
				if lo, err = iceberg.ValueFromBytes(field.Type, b); err != nil {
					t.Fatal(err)
				}
			}
			if b, ok := df.Metrics.Maps().UpperBounds[field.ID]; ok {
				if hi, err = iceberg.ValueFromBytes(field.Type, b); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range f.Rows {
				v := tbl.Rows[r][c]
				if v == nil {
					nulls++
					continue
				}
				if isNaN(v) {
					continue
				}
				if lo == nil {
					t.Fatalf("%s: %s has a value but no lower bound", f.Path, field.Name)
				}
				if iceberg.Compare(field.Type, lo, v) > 0 || hi != nil && iceberg.Compare(field.Type, v, hi) > 0 {
					t.Fatalf("%s: %s value %v is outside the bounds [%v, %v]", f.Path, field.Name, v, lo, hi)
				}
			}
			if df.Metrics.Maps().NullValueCounts[field.ID] != nulls || df.Metrics.Maps().ValueCounts[field.ID] != int64(len(f.Rows)) {
				t.Errorf("%s: %s counts %d nulls of %d values, want %d of %d", f.Path, field.Name,
					df.Metrics.Maps().NullValueCounts[field.ID], df.Metrics.Maps().ValueCounts[field.ID], nulls, len(f.Rows))
			}
			if s, ok := hi.(string); ok && len([]rune(s)) > 16 {
				t.Errorf("%s: upper bound of %s is not truncated: %q", f.Path, field.Name, s)
			}
		}
	}
}

func TestTruncateBounds(t *testing.T) {
	cases := []struct {
		lower, upper string
		lo, hi       string
		hasUpper     bool
	}{
		{"abc", "abd", "abc", "abd", true},
		{"abcdefghij", "abcdefghij", "abc", "abd", true},
		{"ÿÿÿÿ", "ÿÿÿÿ", "ÿÿÿ", "ÿÿĀ", true},
		{"a", "\U0010FFFF\U0010FFFF\U0010FFFF\U0010FFFF", "a", "", false},
		{"a", "m\U0010FFFF\U0010FFFF\U0010FFFF", "a", "n", true},
		{"a", "\uD7FF\uD7FF\uD7FF\uD7FF", "a", "\uD7FF\uD7FF\uE000", true},
	}
	for _, c := range cases {
		lo, hi, ok := truncateBounds(c.lower, c.upper, 3)
		if lo != c.lo || ok != c.hasUpper || ok && hi != c.hi {
			t.Errorf("truncate(%q, %q) = %q, %v, %v; want %q, %q, %v", c.lower, c.upper, lo, hi, ok, c.lo, c.hi, c.hasUpper)
		}
	}
}
