package ops

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// Deleting by a filter on a column the name mapping leaves out: in files
// without field ids it reads null, whatever the manifests' metrics say
// of the column of that name (no nulls at all here) and however the
// schema marks it (required). "l is null" holds for every row, so every
// row goes; "l = <a value the metrics hold>" for none.
func TestDeleteRowsByUnmappedColumn(t *testing.T) {
	ctx := context.Background()
	fields := append([]iceberg.NestedField(nil), testtable.Schema().Fields...)
	fields[testtable.IDLong-1].Required = true
	schema := iceberg.NewSchema(0, fields)
	rows := testtable.RandomRows(5, 400)
	for _, r := range rows {
		if r[testtable.IDLong-1] == nil {
			r[testtable.IDLong-1] = int64(3)
		}
	}
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			built, err := testtable.Build(t.TempDir(), testtable.Options{
				Schema: schema, Rows: rows, RowsPerFile: 100, WithoutFieldIDs: true, MetricsMode: "full",
				Properties: map[string]string{"schema.name-mapping.default": `[{"field-id": 1, "names": ["id"]}, {"field-id": 2, "names": ["i"]}]`},
			})
			if err != nil {
				t.Fatal(err)
			}
			tbl, err := table.Open(ctx, built.MetadataPath, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			some, err := expr.NewPredicate(expr.OpEq, "l", rows[0][testtable.IDLong-1])
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DeleteRows(ctx, tbl, some, RowOptions{Mode: mode}); err != nil {
				t.Fatal(err)
			}
			if got := tableRows(t, tbl.MetadataLocation, table.Options{}); len(got) != len(rows) {
				t.Fatalf("l = a written value deleted rows: %d left of %d", len(got), len(rows))
			}
			if _, err := DeleteRows(ctx, tbl, pred(t, expr.OpIsNull, "l"), RowOptions{Mode: mode}); err != nil {
				t.Fatal(err)
			}
			if got := tableRows(t, tbl.MetadataLocation, table.Options{}); len(got) != 0 {
				t.Fatalf("l is null left %d rows", len(got))
			}
		})
	}
}
