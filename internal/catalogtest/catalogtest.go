// Package catalogtest is what the catalogs' tests share: a small table
// schema, appending rows through floe's write path, and reading the ids
// back through a scan.
package catalogtest

import (
	"context"
	"slices"
	"testing"

	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// IDSchema is the catalogs' test schema: a required id and who wrote it.
var IDSchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
	{ID: 2, Name: "writer", Type: iceberg.StringType{}},
})

// Append appends rows of tbl's current schema with ops.Append, under
// token (none when empty).
func Append(t testing.TB, tbl *table.Table, rows [][]any, token string) (ops.Result, error) {
	t.Helper()
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows)
	defer rr.Release()
	return ops.Append(context.Background(), tbl, rr, table.CommitOptions{Token: token})
}

// MustAppend is Append failing the test on an error.
func MustAppend(t testing.TB, tbl *table.Table, rows [][]any, token string) ops.Result {
	t.Helper()
	res, err := Append(t, tbl, rows, token)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// IDs scans tbl and returns the first column (the id), sorted.
func IDs(t testing.TB, tbl *table.Table) []int64 {
	t.Helper()
	var out []int64
	for _, row := range rowstest.ScanRows(t, tbl, scan.Options{}) {
		out = append(out, row[0].(int64))
	}
	slices.Sort(out)
	return out
}

// Load loads a table of cat, failing the test on an error.
func Load(t testing.TB, cat catalog.Catalog, id catalog.Identifier) *table.Table {
	t.Helper()
	tbl, err := cat.LoadTable(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}
