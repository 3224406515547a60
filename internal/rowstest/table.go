package rowstest

import (
	"context"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// ByBool partitions testtable's schema by its boolean column.
var ByBool = &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
	{SourceID: testtable.IDBool, FieldID: 1000, Name: "b", Transform: iceberg.IdentityTransform{}},
}}

// NewTable creates a table of testtable's schema in a fresh directory.
func NewTable(t testing.TB, version int, spec *iceberg.PartitionSpec, props map[string]string) *table.Table {
	t.Helper()
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "tbl"), testtable.Schema(), spec, nil, props, version)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// WriteRecords hands rows of schema to w, batch rows at a time (at least
// one batch, empty when rows is), and closes it.
func WriteRecords(t testing.TB, w interface {
	Write(arrow.RecordBatch) error
	Close() ([]manifest.DataFile, error)
}, schema *iceberg.Schema, rows [][]any, batch int) []manifest.DataFile {
	t.Helper()
	batch = max(batch, 1)
	for b := 0; b == 0 || b < len(rows); b += batch {
		rec := BuildRecord(t, schema, rows[b:min(b+batch, len(rows))])
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	files, err := w.Close()
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// TableRows reads every row of the table's current snapshot, opened
// afresh, through the reader, in Canonical values sorted by the first
// column.
func TableRows(t testing.TB, location string, opts table.Options) [][]any {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, opts)
	if err != nil {
		t.Fatal(err)
	}
	rows := ScanRows(t, tbl, scan.Options{Threads: 2})
	SortRows(tbl.Metadata.CurrentSchema(), rows)
	return rows
}

// ScanRows reads a scan of tbl's current schema's columns in Canonical
// values, in the order the scan returns them.
func ScanRows(t testing.TB, tbl *table.Table, opts scan.Options) [][]any {
	t.Helper()
	ctx := context.Background()
	schema := tbl.Metadata.CurrentSchema()
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		t.Fatalf("scan (filter %s): %v", opts.Filter, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows [][]any
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, len(schema.Fields))
			for j, f := range schema.Fields {
				row[j] = Canonical(rec.Column(j), i, f.Type)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("scan (filter %s): %v", opts.Filter, err)
	}
	return rows
}

// CheckRows compares a table's rows with the expected ones.
func CheckRows(t testing.TB, what string, tbl *table.Table, want [][]any) {
	t.Helper()
	got := TableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	CompareRows(t, what, tbl.Metadata.CurrentSchema(), want, got)
}

// Pred builds a predicate or fails the test.
func Pred(t testing.TB, op expr.Op, column string, values ...any) expr.Expr {
	t.Helper()
	p, err := expr.NewPredicate(op, column, values...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// FilesUnder lists every file below dir, relative to it, sorted.
func FilesUnder(t testing.TB, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
			rel, _ := filepath.Rel(dir, path)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// LiveFiles plans the current snapshot.
func LiveFiles(t testing.TB, tbl *table.Table) *table.Plan {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// CheckVectors checks a v3 table's deletion vectors: at most one per
// data file, and each holding every row of its file the reader no longer
// returns (the vectors it replaced were merged in).
func CheckVectors(t testing.TB, tbl *table.Table) {
	t.Helper()
	plan := LiveFiles(t, tbl)
	alive := RowsPerFile(t, tbl)
	seen := map[string]bool{}
	for _, d := range plan.DeleteFiles {
		if !d.IsDeletionVector() {
			t.Fatalf("%s is a %s delete file, not a deletion vector", d.File.FilePath, d.File.Content)
		}
		target := d.File.ReferencedDataFile
		if seen[target] {
			t.Fatalf("two deletion vectors for %s", target)
		}
		seen[target] = true
	}
	for _, task := range plan.Tasks {
		var vector int64
		for _, d := range task.Deletes {
			vector += d.File.RecordCount
		}
		if got := alive[task.Path] + vector; got != task.File.RecordCount {
			t.Fatalf("%s: %d rows read and %d in its vector, of %d", task.Path, alive[task.Path], vector, task.File.RecordCount)
		}
	}
}

// RowsPerFile counts the rows the reader returns from each data file.
func RowsPerFile(t testing.TB, tbl *table.Table) map[string]int64 {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{Columns: []string{"_file"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	out := map[string]int64{}
	for rr.Next() {
		col := rr.RecordBatch().Column(0).(*array.String)
		for i := 0; i < col.Len(); i++ {
			out[col.Value(i)]++
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func Reopen(t testing.TB, tbl *table.Table) *table.Table {
	t.Helper()
	fresh, err := table.Open(context.Background(), tbl.Metadata.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return fresh
}
