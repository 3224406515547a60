package ops

import (
	"context"

	"errors"
	"github.com/apache/arrow-go/v18/arrow/array"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// wider is the test schema with one more column, "note", at the end.
func wider(s *iceberg.Schema) *iceberg.Schema {
	fields := append(slices.Clone(s.Fields), iceberg.NestedField{ID: 0, Name: "note", Type: iceberg.StringType{}})
	return iceberg.NewSchema(0, fields)
}

func widerRows(seed uint64, first int64, n int) [][]any {
	rows := testtable.RandomRows(seed, n)
	for i := range rows {
		rows[i][0] = first + int64(i)
		rows[i] = append(rows[i], "note")
	}
	return rows
}

// rowsOf gives rows of schema s, whatever schema the append evolves to:
// the writer binds them by name.
func rowsOf(t *testing.T, s *iceberg.Schema, rows [][]any) func(*iceberg.Schema) (array.RecordReader, error) {
	return func(*iceberg.Schema) (array.RecordReader, error) { return rowstest.Reader(t, s, rows), nil }
}

// The new column and the rows that fill it are one version.
func TestAppendEvolvingIsOneVersion(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	appendInChunks(t, tbl, testtable.RandomRows(1, 10), 10)
	wanted := wider(tbl.Metadata.CurrentSchema())
	logBefore := len(tbl.Metadata.MetadataLog)
	res, err := AppendEvolving(ctx, tbl, wanted, rowsOf(t, wanted, widerRows(2, 100, 5)), table.CommitOptions{})
	if err != nil || !res.Committed {
		t.Fatalf("%+v %v", res, err)
	}
	fresh := reopened(t, tbl)
	if got := len(fresh.Metadata.MetadataLog) - logBefore; got != 1 {
		t.Fatalf("the column and the rows took %d versions", got)
	}
	schema := fresh.Metadata.CurrentSchema()
	note, ok := schema.FindFieldByName("note")
	if !ok {
		t.Fatalf("no column note in %s", schema)
	}
	at := slices.IndexFunc(schema.Fields, func(f iceberg.NestedField) bool { return f.ID == note.ID })
	notes := 0
	for _, row := range rowstest.ScanRows(t, fresh, scan.Options{}) {
		if row[at] == "note" {
			notes++
		}
	}
	if notes != 5 {
		t.Fatalf("%d rows hold the new column's value, want 5", notes)
	}
}

// A schema changed by another writer after the files were written under
// the evolved ids: the append conflicts, commits nothing and leaves no
// file.
func TestAppendEvolvingConflictsWithAnotherSchemaChange(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 2, nil, nil)
	stale := reopened(t, tbl)
	if _, err := tbl.Apply(ctx, new(action.UpdateSchema).AddColumn("other", iceberg.IntType{})); err != nil {
		t.Fatal(err)
	}
	before := filesUnderDir(t, tbl.Metadata.Location)
	wanted := wider(stale.Metadata.CurrentSchema())
	_, err := AppendEvolving(ctx, stale, wanted, rowsOf(t, wanted, widerRows(3, 0, 5)), table.CommitOptions{})
	if !errors.Is(err, table.ErrConflict) {
		t.Fatalf("append evolving a stale schema: %v", err)
	}
	if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, before) {
		t.Fatalf("a refused append left files: %v, had %v", after, before)
	}
	if _, ok := reopened(t, tbl).Metadata.CurrentSchema().FindFieldByName("note"); ok {
		t.Fatal("the refused column is in the table")
	}
}
