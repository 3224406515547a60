package ops

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
)

// Helpers shared with package writer's tests (internal/rowstest).
var (
	newTable      = rowstest.NewTable
	tableRows     = rowstest.TableRows
	sortRows      = rowstest.SortRows
	keepRows      = rowstest.KeepRows
	checkRows     = rowstest.CheckRows
	pred          = rowstest.Pred
	filesUnderDir = rowstest.FilesUnder
	liveFiles     = rowstest.LiveFiles
	checkVectors  = rowstest.CheckVectors
	rowsPerFile   = rowstest.RowsPerFile
	reopened      = rowstest.Reopen
	byBool        = rowstest.ByBool
)

// rowsReader hands rows of tbl's current schema out as one batch.
func rowsReader(t testing.TB, tbl *table.Table, rows [][]any) array.RecordReader {
	t.Helper()
	return rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows)
}

// writeTableFiles writes rows as data files of tbl (WriteFiles) without
// committing them.
func writeTableFiles(t testing.TB, tbl *table.Table, rows [][]any) []manifest.DataFile {
	t.Helper()
	rr := rowsReader(t, tbl, rows)
	defer rr.Release()
	files, err := WriteFiles(context.Background(), tbl, rr)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// appendInChunks appends rows in commits of chunk rows each, so every
// partition gets a data file per chunk.
func appendInChunks(t testing.TB, tbl *table.Table, rows [][]any, chunk int) {
	t.Helper()
	for start := 0; start < len(rows); start += chunk {
		rr := rowsReader(t, tbl, rows[start:min(start+chunk, len(rows))])
		_, err := Append(context.Background(), tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// snapshotIDOf is the snapshot an operation's result names.
func snapshotIDOf(r Result, err error) (int64, error) { return r.SnapshotID, err }
