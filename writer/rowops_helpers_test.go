package writer

import (
	"cmp"
	"context"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/scan"
)

// newTable creates a table of testtable's schema in a fresh directory.
func newTable(t testing.TB, version int, spec *iceberg.PartitionSpec, props map[string]string) *table.Table {
	t.Helper()
	tbl, err := table.Create(context.Background(), nil, filepath.Join(t.TempDir(), "tbl"), testtable.Schema(), spec, nil, props, version)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// writeTableFiles writes rows as data files of tbl's current schema and
// default spec, with Writer set by the table's properties, and returns
// their entries.
func writeTableFiles(t testing.TB, tbl *table.Table, rows [][]any) []manifest.DataFile {
	t.Helper()
	return writeTableBatches(t, tbl, rows, len(rows))
}

// writeTableBatches is writeTableFiles handing the writer batch rows at a
// time, so a small row group size in the table's properties cuts the
// files into many row groups.
func writeTableBatches(t testing.TB, tbl *table.Table, rows [][]any, batch int) []manifest.DataFile {
	t.Helper()
	md := tbl.Metadata
	opts, err := OptionsFromProperties(md.Properties, md.CurrentSchema())
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(context.Background(), tbl.IO, DataLocation(md), md.CurrentSchema(), md.DefaultSpec(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return writeRecords(t, w, md.CurrentSchema(), rows, batch)
}

// writeRecords hands rows of schema to w, batch rows at a time (at least
// one batch, empty when rows is), and closes it.
func writeRecords(t testing.TB, w interface {
	Write(arrow.RecordBatch) error
	Close() ([]manifest.DataFile, error)
}, schema *iceberg.Schema, rows [][]any, batch int) []manifest.DataFile {
	t.Helper()
	batch = max(batch, 1)
	for b := 0; b == 0 || b < len(rows); b += batch {
		rec := buildRecord(t, schema, rows[b:min(b+batch, len(rows))])
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

// appendInChunks appends rows in commits of chunk rows each, so every
// partition gets a data file per chunk.
func appendInChunks(t testing.TB, tbl *table.Table, rows [][]any, chunk int) {
	t.Helper()
	appendInBatches(t, tbl, rows, chunk, chunk)
}

// appendInBatches is appendInChunks writing each file batch rows at a
// time (see writeTableBatches).
func appendInBatches(t testing.TB, tbl *table.Table, rows [][]any, chunk, batch int) {
	t.Helper()
	for start := 0; start < len(rows); start += chunk {
		files := writeTableBatches(t, tbl, rows[start:min(start+chunk, len(rows))], batch)
		if _, err := tbl.Append(context.Background(), files, table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

// tableRows reads every row of the table's current snapshot, opened
// afresh, through the reader, in canonical values sorted by the first
// column.
func tableRows(t testing.TB, location string, opts table.Options) [][]any {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, opts)
	if err != nil {
		t.Fatal(err)
	}
	rows := scanRows(t, tbl, scan.Options{Threads: 2})
	sortRows(tbl.Metadata.CurrentSchema(), rows)
	return rows
}

// scanRows reads a scan of tbl's current schema's columns in canonical
// values, in the order the scan returns them.
func scanRows(t testing.TB, tbl *table.Table, opts scan.Options) [][]any {
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
				row[j] = canonical(rec.Column(j), i, f.Type)
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("scan (filter %s): %v", opts.Filter, err)
	}
	return rows
}

func sortRows(schema *iceberg.Schema, rows [][]any) {
	slices.SortFunc(rows, func(a, b []any) int {
		if a[0] == nil || b[0] == nil {
			return cmp.Compare(boolInt(a[0] != nil), boolInt(b[0] != nil))
		}
		return iceberg.Compare(schema.Fields[0].Type, a[0], b[0])
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keepRows is rows less those the predicate is true for, in a new slice
// sorted by the first column.
func keepRows(schema *iceberg.Schema, rows [][]any, deleted func(row []any) bool) [][]any {
	var out [][]any
	for _, r := range rows {
		if !deleted(r) {
			out = append(out, r)
		}
	}
	sortRows(schema, out)
	return out
}

// checkRows compares a table's rows with the expected ones.
func checkRows(t testing.TB, what string, tbl *table.Table, want [][]any) {
	t.Helper()
	got := tableRows(t, tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	compareRows(t, what, tbl.Metadata.CurrentSchema(), want, got)
}

// pred builds a predicate or fails the test.
func pred(t testing.TB, op expr.Op, column string, values ...any) expr.Expr {
	t.Helper()
	p, err := expr.NewPredicate(op, column, values...)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// filesUnderDir lists every file below dir, relative to it, sorted.
func filesUnderDir(t testing.TB, dir string) []string {
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

// liveFiles plans the current snapshot.
func liveFiles(t testing.TB, tbl *table.Table) *table.Plan {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// snapshotIDOf is the snapshot a commit's result names.
func snapshotIDOf(r table.CommitResult, err error) (int64, error) { return r.SnapshotID, err }
