package ops

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// ids selects rows by id: an in predicate.
func ids(t testing.TB, values ...int64) (expr.Expr, func([]any) bool) {
	vals := make([]any, len(values))
	for i, v := range values {
		vals[i] = v
	}
	return pred(t, expr.OpIn, "id", vals...), func(r []any) bool { return slices.Contains(values, r[0].(int64)) }
}

// neighbour is the next row after row id (ids are row numbers) that was
// appended in the same chunk of 100 rows and partition (column b): a row
// of the same data file.
func neighbour(t testing.TB, rows [][]any, id int) int64 {
	b := testtable.IDBool - 1
	for k := id + 1; k < (id/100+1)*100; k++ {
		if rows[k][b] == rows[id][b] {
			return int64(k)
		}
	}
	t.Fatalf("row %d has no neighbour in its file", id)
	return 0
}

// Two writers delete from the same files at once: the one planned on the
// older version fails with ErrConflict, commits nothing and leaves no
// file behind; planned again it succeeds. A concurrent append of rows the
// filter cannot select is no conflict.
func TestDeleteRowsConflicts(t *testing.T) {
	cases := []struct {
		name    string
		version int
		// firstMode is the first writer's, mode the second's.
		firstMode, mode DeleteMode
		// want is part of the conflict's message.
		want string
	}{
		{"v2 copy-on-write twice", 2, CopyOnWrite, CopyOnWrite, "which the filter"},
		{"v2 position deletes on rewritten files", 2, CopyOnWrite, MergeOnRead, "which the filter"},
		{"v2 rewrite of files given position deletes", 2, MergeOnRead, CopyOnWrite, "added delete file"},
		{"v3 vector given twice", 3, MergeOnRead, MergeOnRead, "added delete file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, tc.version, byBool, nil)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(21, 400)
			appendInChunks(t, tbl, rows, 100)
			stale := reopened(t, tbl)

			first, firstDeletes := ids(t, 5, 150, 250, 399)
			if _, err := DeleteRows(ctx, tbl, first, RowOptions{Mode: tc.firstMode}); err != nil {
				t.Fatal(err)
			}
			want := keepRows(schema, rows, firstDeletes)
			snapshots := len(reopened(t, tbl).Metadata.Snapshots)
			files := filesUnderDir(t, tbl.Metadata.Location)

			second, secondDeletes := ids(t, neighbour(t, rows, 5), neighbour(t, rows, 150), neighbour(t, rows, 250))
			_, err := DeleteRows(ctx, stale, second, RowOptions{Mode: tc.mode})
			t.Logf("the stale delete: %v", err)
			if !errors.Is(err, table.ErrConflict) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("the stale delete: %v", err)
			}
			if n := len(reopened(t, tbl).Metadata.Snapshots); n != snapshots {
				t.Fatalf("%d snapshots after the conflict, %d before", n, snapshots)
			}
			if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, files) {
				t.Fatalf("the failed delete left files:\n%v\nbefore:\n%v", after, files)
			}
			checkRows(t, "after the conflict", tbl, want)

			// Rows the filter cannot select, appended by a third writer
			// after the plan, do not stop the next delete.
			planned := reopened(t, tbl)
			extra := testtable.RandomRows(22, 30)
			for i := range extra {
				extra[i][0] = int64(10_000 + i)
			}
			appendInChunks(t, tbl, extra, 30)
			if _, err := DeleteRows(ctx, planned, second, RowOptions{Mode: tc.mode}); err != nil {
				t.Fatal(err)
			}
			want = keepRows(schema, append(want, extra...), secondDeletes)
			checkRows(t, "after planning again", planned, want)
			if tc.version >= 3 {
				checkVectors(t, reopened(t, tbl))
			}
		})
	}
}

// A delete retried with its token returns the first attempt's snapshot
// and deletes nothing more, also from a handle opened before the first
// attempt committed, and leaves no file of the retry behind.
func TestDeleteRowsRetryWithToken(t *testing.T) {
	for _, mode := range []DeleteMode{CopyOnWrite, MergeOnRead} {
		t.Run(string(mode), func(t *testing.T) {
			ctx := context.Background()
			tbl := newTable(t, 3, nil, nil)
			schema := tbl.Metadata.CurrentSchema()
			rows := testtable.RandomRows(23, 300)
			appendInChunks(t, tbl, rows, 100)
			stale := reopened(t, tbl)
			filter, deletes := ids(t, 3, 4, 120, 299)
			fresh := testtable.RandomRows(24, 10)
			for i := range fresh {
				fresh[i][0] = int64(5_000 + i)
			}
			opts := RowOptions{Mode: mode, Commit: table.CommitOptions{Token: "step-7", Properties: map[string]string{"job": "nightly"}}}
			id, err := snapshotIDOf(OverwriteRows(ctx, tbl, filter, rowsReader(t, tbl, fresh), opts))
			if err != nil {
				t.Fatal(err)
			}
			if s := tbl.Metadata.SnapshotByID(id).Summary; s[table.SummaryToken] != "step-7" || s["job"] != "nightly" {
				t.Fatalf("summary %v", s)
			}
			want := keepRows(schema, append(rows, fresh...), deletes)
			snapshots := len(tbl.Metadata.Snapshots)
			files := filesUnderDir(t, tbl.Metadata.Location)
			for _, h := range []*table.Table{tbl, reopened(t, tbl), stale} {
				again, err := OverwriteRows(ctx, h, filter, rowsReader(t, tbl, fresh), opts)
				if err != nil || again.SnapshotID != id || !again.TokenFound || again.Committed {
					t.Fatalf("retry: %+v, %v; want snapshot %d with its token found", again, err, id)
				}
			}
			if n := len(reopened(t, tbl).Metadata.Snapshots); n != snapshots {
				t.Fatalf("%d snapshots after the retries, %d before", n, snapshots)
			}
			if after := filesUnderDir(t, tbl.Metadata.Location); !slices.Equal(after, files) {
				t.Fatalf("retries left files:\n%v\nbefore:\n%v", after, files)
			}
			checkRows(t, "after the retries", tbl, want)
		})
	}
}
