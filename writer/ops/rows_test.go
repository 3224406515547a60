package ops

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/writer"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// rowDelete is one filter and, independently, the same predicate in Go:
// true only when the filter is true for the row (a comparison with a null
// is not, and neither is its negation).
type rowDelete struct {
	filter  expr.Expr
	deletes func(row []any) bool
}

// deleteSteps are three deletes over testtable rows: a range of the
// ascending l column (whole files in the middle, parts of files at its
// ends), an or over two nullable columns, and a negation.
func deleteSteps(t testing.TB, rows [][]any) []rowDelete {
	lo, hi := rows[130][testtable.IDLong-1], rows[370][testtable.IDLong-1]
	if lo == nil || hi == nil {
		t.Fatal("the range bounds are null")
	}
	l := func(r []any) (int64, bool) { v, ok := r[testtable.IDLong-1].(int64); return v, ok }
	i := func(r []any) (int32, bool) { v, ok := r[testtable.IDInt-1].(int32); return v, ok }
	s := func(r []any) (string, bool) { v, ok := r[testtable.IDString-1].(string); return v, ok }
	return []rowDelete{
		{
			filter: expr.NewAnd(pred(t, expr.OpGtEq, "l", lo), pred(t, expr.OpLt, "l", hi)),
			deletes: func(r []any) bool {
				v, ok := l(r)
				return ok && v >= lo.(int64) && v < hi.(int64)
			},
		},
		{
			filter: expr.NewOr(pred(t, expr.OpLt, "i", int64(-1_000_000)), pred(t, expr.OpStartsWith, "s", "ab")),
			deletes: func(r []any) bool {
				iv, iok := i(r)
				sv, sok := s(r)
				return (iok && iv < -1_000_000) || (sok && strings.HasPrefix(sv, "ab"))
			},
		},
		{
			filter: expr.NewNot(pred(t, expr.OpLt, "s", "c")),
			deletes: func(r []any) bool {
				sv, ok := s(r)
				return ok && !(sv < "c")
			},
		},
	}
}

// Deleting rows by filter in every format version and mode, partitioned
// and not: after each delete the table reads exactly the rows the Go
// predicate keeps, rows with nulls in the filtered columns among them.
func TestDeleteRows(t *testing.T) {
	perPartition := map[string]string{PropDeleteGranularity: "partition"}
	cases := []struct {
		version int
		mode    DeleteMode
		spec    *iceberg.PartitionSpec
		props   map[string]string
	}{
		{1, "", byBool, nil},
		{2, CopyOnWrite, nil, nil},
		{2, MergeOnRead, byBool, nil},
		{2, MergeOnRead, byBool, perPartition},
		{3, CopyOnWrite, byBool, nil},
		{3, MergeOnRead, nil, nil},
		{3, MergeOnRead, byBool, nil},
	}
	for _, tc := range cases {
		name := fmt.Sprintf("v%d/%s/partitioned=%v/%v", tc.version, tc.mode, tc.spec != nil, tc.props)
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, tc.version, tc.spec, tc.props)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(11, 600)
			appendInChunks(t, tbl, rows, 100)
			want := keepRows(schema, rows, func([]any) bool { return false })
			for k, step := range deleteSteps(t, rows) {
				next := keepRows(schema, want, step.deletes)
				if len(next) == len(want) || len(next) == 0 {
					t.Fatalf("step %d deletes %d of %d rows: not a useful test", k, len(want)-len(next), len(want))
				}
				if !keptSome(next, testtable.IDString-1, nil) {
					t.Fatalf("step %d: no row with a null s survives", k)
				}
				id, err := snapshotIDOf(DeleteRows(ctx, tbl, step.filter, RowOptions{Mode: tc.mode}))
				if err != nil {
					t.Fatalf("step %d: %v", k, err)
				}
				want = next
				checkRows(t, fmt.Sprintf("after step %d", k), tbl, want)
				summary := tbl.Metadata.SnapshotByID(id).Summary
				added := summary["added-data-files"] != ""
				deletes := summary["added-delete-files"] != ""
				switch {
				case tc.mode == MergeOnRead && (added || !deletes || summary["operation"] != table.OpDelete):
					t.Fatalf("step %d: merge-on-read summary %v", k, summary)
				case tc.mode != MergeOnRead && (!added || deletes || summary["operation"] != table.OpOverwrite):
					t.Fatalf("step %d: copy-on-write summary %v", k, summary)
				}
				files, _ := strconv.Atoi(summary["added-position-delete-files"])
				partitions, _ := strconv.Atoi(summary["changed-partition-count"])
				if tc.props != nil && (files == 0 || files > partitions) {
					t.Fatalf("step %d: more than a position delete file per partition: %v", k, summary)
				}
				if tc.version >= 3 && tc.mode == MergeOnRead {
					checkVectors(t, tbl)
					if k > 0 && summary["removed-dvs"] == "" {
						t.Fatalf("step %d replaced no deletion vector: %v", k, summary)
					}
				}
			}
		})
	}
}

// keptSome reports whether a row has value v (nil: null) in column c.
func keptSome(rows [][]any, c int, v any) bool {
	for _, r := range rows {
		if r[c] == v {
			return true
		}
	}
	return false
}

// A filter no row passes commits nothing; one that selects whole files
// only removes them without reading or writing any file.
func TestDeleteRowsNothingAndWholeFiles(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 3, nil, nil)
	schema := tbl.Metadata.CurrentSchema()
	rows := testtable.RandomRows(12, 300)
	appendInChunks(t, tbl, rows, 100)
	head := tbl.Metadata.CurrentSnapshot().SnapshotID
	id, err := snapshotIDOf(DeleteRows(ctx, tbl, pred(t, expr.OpLt, "id", int64(-5)), RowOptions{Mode: MergeOnRead}))
	if err != nil || id != head || tbl.Metadata.CurrentSnapshot().SnapshotID != head {
		t.Fatalf("deleting nothing: id %d, %v; head was %d", id, err, head)
	}
	dataDir := writer.DataLocation(tbl.Metadata)
	before := filesUnderDir(t, dataDir)
	// The second file holds ids 100..199 exactly: its metrics prove it.
	id, err = snapshotIDOf(DeleteRows(ctx, tbl, expr.NewAnd(pred(t, expr.OpGtEq, "id", int64(100)), pred(t, expr.OpLtEq, "id", int64(199))), RowOptions{Mode: MergeOnRead}))
	if err != nil {
		t.Fatal(err)
	}
	s := tbl.Metadata.SnapshotByID(id).Summary
	if s["operation"] != table.OpDelete || s["deleted-data-files"] != "1" || s["added-delete-files"] != "" {
		t.Fatalf("summary %v", s)
	}
	if after := filesUnderDir(t, dataDir); len(after) != len(before) {
		t.Fatalf("removing a whole file wrote files: %v", after)
	}
	checkRows(t, "after removing a file", tbl, keepRows(schema, rows, func(r []any) bool {
		id := r[0].(int64)
		return id >= 100 && id <= 199
	}))
}

// A format v1 table copies on write whatever its properties say, and
// refuses an explicit merge-on-read.
func TestDeleteRowsV1RefusesMergeOnRead(t *testing.T) {
	ctx := context.Background()
	tbl := newTable(t, 1, nil, map[string]string{PropDeleteMode: string(MergeOnRead)})
	rows := testtable.RandomRows(13, 50)
	appendInChunks(t, tbl, rows, 50)
	if _, err := DeleteRows(ctx, tbl, pred(t, expr.OpEq, "id", int64(7)), RowOptions{Mode: MergeOnRead}); err == nil {
		t.Fatal("a v1 table took merge-on-read")
	}
	if _, err := DeleteRows(ctx, tbl, pred(t, expr.OpEq, "id", int64(7)), RowOptions{}); err != nil {
		t.Fatal(err)
	}
	checkRows(t, "v1", tbl, keepRows(tbl.Metadata.CurrentSchema(), rows, func(r []any) bool { return r[0] == int64(7) }))
	if _, err := DeleteRows(ctx, tbl, pred(t, expr.OpEq, "id", int64(8)), RowOptions{Mode: "sideways"}); err == nil {
		t.Fatal("an unknown mode was taken")
	}
}

// OverwriteRows deletes what the filter selects and adds the new rows in
// one overwrite snapshot, in both modes.
func TestOverwriteRows(t *testing.T) {
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, 2, byBool, nil)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(14, 400)
			appendInChunks(t, tbl, rows, 100)
			fresh := testtable.RandomRows(15, 60)
			for i := range fresh {
				fresh[i][0] = int64(1000 + i)
			}
			steps := deleteSteps(t, rows)
			before := len(tbl.Metadata.Snapshots)
			id, err := snapshotIDOf(OverwriteRows(ctx, tbl, steps[1].filter, rowsReader(t, tbl, fresh), RowOptions{Mode: mode}))
			if err != nil {
				t.Fatal(err)
			}
			if len(tbl.Metadata.Snapshots) != before+1 || tbl.Metadata.SnapshotByID(id).Summary["operation"] != table.OpOverwrite {
				t.Fatalf("%d snapshots (was %d), summary %v", len(tbl.Metadata.Snapshots), before, tbl.Metadata.SnapshotByID(id).Summary)
			}
			want := append(keepRows(schema, rows, steps[1].deletes), fresh...)
			sortRows(schema, want)
			checkRows(t, "after overwrite", tbl, want)
		})
	}
}

// Files of several row groups, which a scan splits into byte ranges (one
// task per row group under read.split.target-size 1): rows selected in
// every range are found and deleted, in every mode.
func TestDeleteRowsAcrossSplits(t *testing.T) {
	cases := []struct {
		version int
		mode    DeleteMode
	}{{2, CopyOnWrite}, {2, MergeOnRead}, {3, MergeOnRead}}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("v%d/%s", tc.version, tc.mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, tc.version, nil, map[string]string{
				"read.split.target-size": "1", writer.PropRowGroupSize: "1",
			})
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(16, 10_000)
			appendInChunks(t, tbl, rows, len(rows))
			if groups := len(liveFiles(t, tbl).Tasks[0].File.SplitOffsets); groups < 3 {
				t.Fatalf("the file has %d row groups", groups)
			}
			step := deleteSteps(t, rows)[1]
			if _, err := DeleteRows(ctx, tbl, step.filter, RowOptions{Mode: tc.mode}); err != nil {
				t.Fatal(err)
			}
			checkRows(t, "after the delete", tbl, keepRows(schema, rows, step.deletes))
			// The rows are gone: deleting them again commits nothing.
			head := tbl.Metadata.CurrentSnapshot().SnapshotID
			if id, err := snapshotIDOf(DeleteRows(ctx, tbl, step.filter, RowOptions{Mode: tc.mode})); err != nil || id != head {
				t.Fatalf("deleting again: snapshot %d, %v; head %d", id, err, head)
			}
			if tc.version >= 3 {
				checkVectors(t, tbl)
			}
		})
	}
}
