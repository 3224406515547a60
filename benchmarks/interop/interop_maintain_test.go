package interop

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

// The tables floe's maintenance leaves (compacted, sorted, upserted,
// carrying statistics) are read by iceberg-go with the rows floe reads,
// and floe compacts a table iceberg-go wrote.

// rowsReader is rows as the one-batch reader floe's ops take.
func rowsReader(t *testing.T, rows []row) array.RecordReader {
	t.Helper()
	rec := batch(t, rows)
	defer rec.Release()
	rr, err := array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec})
	if err != nil {
		t.Fatal(err)
	}
	return rr
}

// appendSmall creates a table and appends rows in `commits` commits of
// their own, so each partition holds one small file per commit.
func appendSmall(t *testing.T, version int, order *iceberg.SortOrder, commits, perCommit int) (*table.Table, []row) {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Create(ctx, fileio.Local{}, t.TempDir(), testSchema(), bucketDaySpec(), order, nil, version)
	if err != nil {
		t.Fatal(err)
	}
	var all []row
	for c := range commits {
		rows := makeRows(uint64(100+c), int64(c*perCommit), perCommit)
		rr := rowsReader(t, rows)
		_, err := ops.Append(ctx, tbl, rr, table.CommitOptions{})
		rr.Release()
		if err != nil {
			t.Fatalf("append %d: %v", c, err)
		}
		all = append(all, rows...)
	}
	return tbl, all
}

// liveFiles counts the data and delete files of tbl's current snapshot.
func liveFiles(t *testing.T, tbl *table.Table) (data, deletes int) {
	t.Helper()
	plan, err := tbl.PlanFilesFiltered(context.Background(), table.SnapshotSelector{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, task := range plan.Tasks {
		data++
		for _, d := range task.Deletes {
			if !seen[d.Path] {
				seen[d.Path] = true
				deletes++
			}
		}
	}
	return data, deletes
}

// assertBothRead checks floe and iceberg-go read want from tbl's newest
// metadata file.
func assertBothRead(t *testing.T, tbl *table.Table, want []row) {
	t.Helper()
	wantKeys := expectedKeys(want)
	assertSameRows(t, wantKeys, rowKeys(t, readWithFloe(t, tbl.MetadataLocation)))
	got, err := readWithIcebergGo(t, tbl.MetadataLocation)
	if err != nil {
		t.Fatalf("iceberg-go read: %v", err)
	}
	assertSameRows(t, wantKeys, rowKeys(t, got))
}

func without(rows []row, drop func(row) bool) []row {
	return slices.DeleteFunc(slices.Clone(rows), drop)
}

// Compaction of a table of many small files with row deletes (position
// deletes on v2, deletion vectors on v3): far fewer files, no delete file
// left, and iceberg-go reads the rows floe does, the deleted ones absent.
func TestFloeCompactedReadByIcebergGo(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			tbl, rows := appendSmall(t, version, nil, 6, 500)
			filter, err := expr.ParseFilter("id < 400")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ops.DeleteRows(ctx, tbl, filter, ops.RowOptions{Mode: ops.MergeOnRead}); err != nil {
				t.Fatal(err)
			}
			rows = without(rows, func(r row) bool { return r.id < 400 })
			before, deletes := liveFiles(t, tbl)
			if deletes == 0 {
				t.Fatalf("no delete file before compaction (%d data files)", before)
			}
			res, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{RewriteAll: true})
			if err != nil {
				t.Fatal(err)
			}
			after, deletes := liveFiles(t, tbl)
			// Deletion vectors go with their data files, uncounted as
			// removed delete files; v2's position delete files are counted.
			if res.RewrittenDataFiles != before || after >= before/3 || deletes != 0 || version == 2 && res.RemovedDeleteFiles == 0 {
				t.Fatalf("compaction: %d → %d data files, %d delete files left, %d rewritten, %d delete files removed",
					before, after, deletes, res.RewrittenDataFiles, res.RemovedDeleteFiles)
			}
			assertBothRead(t, tbl, rows)
			assertDuckDBReadsFiles(t, tbl, rows)
		})
	}
}

// assertDuckDBReadsFiles checks that DuckDB's read_parquet of tbl's live
// data files gives want's (id, i, s): after compaction no delete file is
// left, so the files alone are the table's rows.
func assertDuckDBReadsFiles(t *testing.T, tbl *table.Table, want []row) {
	t.Helper()
	plan, err := tbl.PlanFilesFiltered(context.Background(), table.SnapshotSelector{}, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, task := range plan.Tasks {
		if len(task.Deletes) > 0 {
			t.Fatalf("%s still has delete files", task.Path)
		}
		files = append(files, "'"+strings.ReplaceAll(task.Path, "'", "''")+"'")
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query("SELECT id, coalesce(i::VARCHAR, 'NULL'), coalesce(s, 'NULL') FROM read_parquet([" + strings.Join(files, ", ") + "])")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var got []string
	for res.Next() {
		var id int64
		var i, s string
		if err := res.Scan(&id, &i, &s); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d|%s|%s", id, i, s))
	}
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	wantKeys := make([]string, len(want))
	for k, x := range want {
		wantKeys[k] = fmt.Sprintf("%d|%s|%s", x.id, optStr(x.i, func(v int32) string { return fmt.Sprint(v) }), optStr(x.s, func(v string) string { return v }))
	}
	slices.Sort(got)
	slices.Sort(wantKeys)
	assertSameRows(t, wantKeys, got)
}

// A table with a sort order: appends through writer/ops write sorted
// files, the sort strategy compacts them; iceberg-go reads the rows and
// sees every file's sort_order_id.
func TestFloeSortCompactedReadByIcebergGo(t *testing.T) {
	ctx := context.Background()
	order := &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		{SourceID: 4, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"},
	}}
	tbl, rows := appendSmall(t, 2, order, 5, 400)
	assertBothRead(t, tbl, rows)
	if _, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{Strategy: maintain.StrategySort, RewriteAll: true}); err != nil {
		t.Fatal(err)
	}
	assertBothRead(t, tbl, rows)
	peer, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"interop", "t"}, tbl.MetadataLocation,
		icebergio.LoadFSFunc(nil, tbl.MetadataLocation), nil)
	if err != nil {
		t.Fatal(err)
	}
	tasks, err := peer.Scan().PlanFiles(ctx)
	if err != nil || len(tasks) == 0 {
		t.Fatalf("iceberg-go planned %d files: %v", len(tasks), err)
	}
	for _, task := range tasks {
		if id := task.File.SortOrderID(); id == nil || *id != 1 {
			t.Errorf("%s: iceberg-go sees sort_order_id %v, want 1", task.File.FilePath(), id)
		}
	}
}

// ComputeStatistics registers a Puffin statistics file: iceberg-go parses
// the metadata, finds the file for the current snapshot with one blob per
// column and their ndv, and reads the rows floe does.
func TestFloeStatisticsReadByIcebergGo(t *testing.T) {
	ctx := context.Background()
	tbl, rows := appendSmall(t, 2, nil, 2, 1000)
	res, err := maintain.ComputeStatistics(ctx, tbl, maintain.StatisticsOptions{Columns: []string{"id", "s"}})
	if err != nil {
		t.Fatal(err)
	}
	assertBothRead(t, tbl, rows)
	peer, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"interop", "t"}, tbl.MetadataLocation,
		icebergio.LoadFSFunc(nil, tbl.MetadataLocation), nil)
	if err != nil {
		t.Fatal(err)
	}
	var found int
	for f := range peer.Metadata().Statistics() {
		if f.SnapshotID != res.SnapshotID || f.StatisticsPath != res.Path {
			t.Errorf("iceberg-go sees statistics %+v, want snapshot %d at %s", f, res.SnapshotID, res.Path)
			continue
		}
		found++
		if len(f.BlobMetadata) != 2 {
			t.Fatalf("iceberg-go sees %d blobs, want 2", len(f.BlobMetadata))
		}
		for _, b := range f.BlobMetadata {
			if string(b.Type) != "apache-datasketches-theta-v1" || b.SnapshotID != res.SnapshotID || b.Properties[maintain.PropertyNDV] == "" {
				t.Errorf("iceberg-go sees blob %+v", b)
			}
		}
		if got := f.BlobMetadata[0].Properties[maintain.PropertyNDV]; got != fmt.Sprint(res.NDV["id"]) {
			t.Errorf("iceberg-go sees ndv %s for id, floe computed %d", got, res.NDV["id"])
		}
	}
	if found != 1 {
		t.Fatalf("iceberg-go found %d statistics files for the snapshot", found)
	}
}

// Upsert by id (merge-on-read on v2 and v3, copy-on-write too): half the
// input replaces rows, half is new; iceberg-go reads the merged rows, as
// floe does — and again after compaction folds the deletes in.
func TestFloeUpsertedReadByIcebergGo(t *testing.T) {
	for _, c := range []struct {
		version int
		mode    ops.UpsertMode
	}{{2, ops.UpsertMergeOnRead}, {3, ops.UpsertMergeOnRead}, {2, ops.UpsertCopyOnWrite}} {
		t.Run(fmt.Sprintf("v%d-%s", c.version, c.mode), func(t *testing.T) {
			ctx := context.Background()
			tbl, rows := appendSmall(t, c.version, nil, 2, 1000)
			// ids 1500..2499: 1500..1999 exist, 2000..2499 are new.
			input := makeRows(999, 1500, 1000)
			rr := rowsReader(t, input)
			res, err := ops.Upsert(ctx, tbl, rr, ops.UpsertOptions{JoinCols: []string{"id"}, Mode: c.mode,
				WhenMatchedUpdateAll: true, WhenNotMatchedInsertAll: true})
			rr.Release()
			if err != nil {
				t.Fatal(err)
			}
			if res.RowsUpdated != 500 || res.RowsInserted != 500 {
				t.Fatalf("upsert updated %d and inserted %d rows, want 500 and 500", res.RowsUpdated, res.RowsInserted)
			}
			want := append(without(rows, func(r row) bool { return r.id >= 1500 }), input...)
			assertBothRead(t, tbl, want)
			if _, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{RewriteAll: true}); err != nil {
				t.Fatal(err)
			}
			if _, deletes := liveFiles(t, tbl); deletes != 0 {
				t.Fatalf("%d delete files left after compaction", deletes)
			}
			assertBothRead(t, tbl, want)
		})
	}
}

// floe compacts a table iceberg-go wrote in several appends (small files
// by iceberg-go's writer, v2 and v3): fewer files, and both read the rows
// iceberg-go wrote.
func TestIcebergGoTableCompactedByFloe(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			var groups [][]row
			var all []row
			for g := range 5 {
				rows := makeRows(uint64(200+g), int64(g*600), 600)
				groups = append(groups, rows)
				all = append(all, rows...)
			}
			metadataPath := writeWithIcebergGo(t, version, groups...)
			tbl, err := table.Open(ctx, metadataPath, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			before, _ := liveFiles(t, tbl)
			res, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{RewriteAll: true})
			if err != nil {
				t.Fatal(err)
			}
			after, _ := liveFiles(t, tbl)
			if res.RewrittenDataFiles != before || after >= before/3 {
				t.Fatalf("compaction of iceberg-go's table: %d → %d files, %d rewritten", before, after, res.RewrittenDataFiles)
			}
			assertBothRead(t, tbl, all)
		})
	}
}
