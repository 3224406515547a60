package writer

import (
	"context"
	"testing"

	"github.com/floedb/floe/internal/rowstest"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Helpers shared with package ops' tests (internal/rowstest).
var (
	newTable     = rowstest.NewTable
	writeRecords = rowstest.WriteRecords
	tableRows    = rowstest.TableRows
	scanRows     = rowstest.ScanRows
	keepRows     = rowstest.KeepRows
	checkRows    = rowstest.CheckRows
	liveFiles    = rowstest.LiveFiles
	checkVectors = rowstest.CheckVectors
	reopened     = rowstest.Reopen
	byBool       = rowstest.ByBool
)

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
