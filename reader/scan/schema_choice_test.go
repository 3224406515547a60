package scan_test

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// A column added after the last commit is read as null by a scan of the
// current snapshot or of a branch, as Java's scans and pyiceberg read it;
// time travel to the snapshot (by id or tag) reads the schema it was
// written with.
func TestCurrentReadsUseTheTableSchema(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.NewTable(t, 2, nil, nil)
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), testtable.RandomRows(1, 5))
	res, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	old := tbl.Metadata.CurrentSchema()
	wider := iceberg.NewSchema(0, append(append([]iceberg.NestedField(nil), old.Fields...),
		iceberg.NestedField{ID: 1000, Name: "added_later", Type: iceberg.StringType{}}))
	if err := tbl.UpdateSchemaByName(ctx, wider); err != nil {
		t.Fatal(err)
	}
	// A tag, in memory only: floe has no tag commands yet.
	tbl.Metadata.Refs["before"] = metadata.Ref{SnapshotID: res.SnapshotID, Type: metadata.RefTag}
	id := res.SnapshotID
	for _, c := range []struct {
		what string
		opts scan.Options
		cols int
	}{
		{"the current snapshot", scan.Options{}, len(old.Fields) + 1},
		{"the main branch", scan.Options{Ref: "main"}, len(old.Fields) + 1},
		{"the snapshot by id", scan.Options{SnapshotID: &id}, len(old.Fields)},
		{"the tag", scan.Options{Ref: "before"}, len(old.Fields)},
	} {
		s, err := scan.New(ctx, tbl, c.opts)
		if err != nil {
			t.Fatalf("%s: %v", c.what, err)
		}
		if n := len(s.Schema().Fields()); n != c.cols {
			t.Errorf("%s: %d columns, want %d", c.what, n, c.cols)
		}
	}
	rows := rowstest.ScanRows(t, tbl, scan.Options{})
	if len(rows) != 5 || rows[0][len(old.Fields)] != nil {
		t.Fatalf("the added column reads %v, want null in 5 rows", rows)
	}
}
