package committest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/writer/ops"
)

// DuckDB, GlareDB and BigQuery write locations such as
// file://wh/default.db/cities: file:// and then a path relative to where
// they ran, not a host named "wh". A table recorded so (built here by
// creating it through an explicit map of exactly that prefix, then
// appending and deleting by position) reads after a move both with an
// explicit --map of the prefix as written and with no map at all
// (relocation); appending to the moved table writes inside it.
func TestFileURIRelativeLocations(t *testing.T) {
	ctx := context.Background()
	const recorded = "file://wh/default.db/cities"
	base := t.TempDir()
	first := filepath.Join(base, "first")
	opts := table.Options{LocationMap: map[string]string{recorded: first}}
	files, err := opts.FileIO(recorded)
	if err != nil {
		t.Fatalf("a map of the prefix as written: %v", err)
	}
	tbl, err := table.Create(ctx, files, recorded, testtable.Schema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if tbl.Metadata.Location != recorded {
		t.Fatalf("location %s", tbl.Metadata.Location)
	}
	schema := tbl.Metadata.CurrentSchema()
	all := append(rowsIn(1, 0, 20), rowsIn(2, 100, 20)...)
	for _, rows := range [][][]any{all[:20], all[20:]} {
		if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, rows), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := ops.DeleteRows(ctx, tbl, rowstest.Pred(t, expr.OpLt, "id", int64(3)), ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
		t.Fatal(err)
	}
	want := rowstest.KeepRows(schema, all, func(r []any) bool { return r[0].(int64) < 3 })
	rowstest.SortRows(schema, want)

	moved := filepath.Join(base, "moved")
	if err := os.Rename(first, moved); err != nil {
		t.Fatal(err)
	}
	for name, opts := range map[string]table.Options{
		"explicit map": {LocationMap: map[string]string{recorded: moved}, NoRelocate: true},
		"relocation":   {},
	} {
		got := rowstest.TableRows(t, moved, opts)
		rowstest.CompareRows(t, name, schema, want, got)
	}
	again, err := table.Open(ctx, moved, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	extra := rowsIn(3, 200, 5)
	if _, err := ops.Append(ctx, again, rowstest.Reader(t, schema, extra), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	want = append(want, extra...)
	rowstest.SortRows(schema, want)
	rowstest.CompareRows(t, "after an append to the moved table", schema, want, rowstest.TableRows(t, moved, table.Options{}))
	if _, err := os.Stat(first); err == nil {
		t.Errorf("the append wrote to %s, where the table no longer is", first)
	}
}
