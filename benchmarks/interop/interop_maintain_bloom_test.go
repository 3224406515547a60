package interop

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	goiceberg "github.com/apache/iceberg-go"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

// bloomColumns says, per column of the file at path, whether every row
// group carries a bloom filter (DuckDB's parquet_metadata, not floe).
func bloomColumns(t *testing.T, db *sql.DB, path string) map[string]bool {
	t.Helper()
	rows, err := db.Query(`SELECT path_in_schema, bool_and(coalesce(bloom_filter_offset > 0 AND bloom_filter_length > 0, false))
		FROM parquet_metadata(?) GROUP BY ALL`, strings.TrimPrefix(path, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var col string
		var all bool
		if err := rows.Scan(&col, &all); err != nil {
			t.Fatal(err)
		}
		out[col] = all
	}
	return out
}

// assertPointReads looks ids up one by one with floe's filtered scan
// (which skips row groups by bloom filter) and with iceberg-go's, each
// finding exactly the row the table holds, or none for an id deleted or
// never written.
func (m *maintTable) assertPointReads(t *testing.T, ids []int64) {
	t.Helper()
	byID := map[int64]row{}
	for _, r := range m.want {
		byID[r.id] = r
	}
	tbl := m.floe(t)
	goTbl := m.goTable(t)
	found := 0
	for _, id := range ids {
		var want []string
		if r, ok := byID[id]; ok {
			want = expectedKeys([]row{r})
			found++
		}
		f, err := expr.NewPredicate(expr.OpEq, "id", id)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprint("id = ", id)
		if got := rowKeys(t, floeRead(t, tbl, scan.Options{Filter: f}, what)); !slices.Equal(got, want) {
			t.Errorf("floe reads %v for %s, want %v", got, what, want)
		}
		sc := goTbl.Scan(icebergtable.WithRowFilter(goiceberg.EqualTo(goiceberg.Reference("id"), id)))
		if got := rowKeys(t, icebergGoRead(t, sc, what)); !slices.Equal(got, want) {
			t.Errorf("iceberg-go reads %v for %s, want %v", got, what, want)
		}
	}
	if found == 0 || found == len(ids) {
		t.Fatalf("%d of %d ids are in the table: not a useful test", found, len(ids))
	}
}

// Tables whose properties ask for bloom filters on id and s
// (write.parquet.bloom-filter-enabled.column.*), with row deletes, made
// by floe (whose appends write the filters) and by iceberg-go (whose
// appends do not): floe's compaction writes every new file with filters
// on those columns only (DuckDB reads them), iceberg-go reads the rows
// and finds ids one by one as floe's bloom-pruned scan does, before and
// after iceberg-go appends filterless files to the table.
func TestBloomFilteredTableMaintainedReadByIcebergGo(t *testing.T) {
	props := map[string]string{writer.PropBloomColumnPrefix + "id": "true", writer.PropBloomColumnPrefix + "s": "true"}
	onSources(t, sourceOptions{props: props}, func(t *testing.T, m *maintTable) {
		ctx := context.Background()
		// Ids kept, deleted (below 400), of rows iceberg-go appends later
		// (2500 on), and never written.
		probe := []int64{7, 399, 401, 777, 1234, 2001, 2499, 2510, 2650, 99_999}
		m.assertPointReads(t, probe)
		if _, err := maintain.RewriteDataFiles(ctx, m.floe(t), maintain.RewriteDataFilesOptions{RewriteAll: true}); err != nil {
			t.Fatal(err)
		}
		db, err := sql.Open("duckdb", "")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		tasks := m.assertNoDeletesAfterCompaction(t)
		for _, task := range tasks {
			got := bloomColumns(t, db, task.File.FilePath())
			if !got["id"] || !got["s"] || got["i"] || got["d"] {
				t.Fatalf("%s: bloom filters by column %v, want id and s only", task.File.FilePath(), got)
			}
		}
		m.assertRows(t, "after compacting with bloom filters")
		m.assertPointReads(t, probe)
		m.goWritesAfter(t)
		m.assertPointReads(t, probe)
	})
}
