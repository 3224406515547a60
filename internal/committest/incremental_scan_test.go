package committest

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// incrementalIDs reads the id (and partition column i, checked against
// wantPart when it is not 0) of every row an incremental append scan of
// the table at location returns.
func incrementalIDs(t *testing.T, location string, opts scan.Options, wantPart int32) []int64 {
	t.Helper()
	ctx := context.Background()
	tbl, err := table.Open(ctx, location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Columns = []string{"id", "i"}
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	if n := s.Schema().NumFields(); n != 2 {
		t.Fatalf("selected 2 columns, the scan has %d", n)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		rec := rr.RecordBatch()
		id, part := rec.Column(0).(*array.Int64), rec.Column(1).(*array.Int32)
		for k := 0; k < id.Len(); k++ {
			if wantPart != 0 && part.Value(k) != wantPart {
				t.Fatalf("row %d has i = %d; the filter keeps i = %d", id.Value(k), part.Value(k), wantPart)
			}
			ids = append(ids, id.Value(k))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(ids)
	// Counting plans the same files.
	if n, err := scan.CountRows(ctx, tbl, opts); err != nil || n != int64(len(ids)) {
		t.Fatalf("CountRows = %d, %v; the scan read %d rows", n, err, len(ids))
	}
	return ids
}

// An incremental append scan returns exactly the rows the append
// snapshots in its range wrote: overwrites, row deltas and deletes in the
// range add nothing, and nothing they remove or delete is taken away, as
// in Java's IncrementalAppendScan. With merged manifests (min count 2)
// the appends' entries sit beside older EXISTING ones, which must not be
// read again; without merging, an append's manifest is in every later
// snapshot's list and must be read once.
func TestIncrementalAppendScan(t *testing.T) {
	st := localStore(t)
	for _, version := range []int{1, 2, 3} {
		for _, merge := range []string{"true", "false"} {
			t.Run("v"+strconv.Itoa(version)+"/merge="+merge, func(t *testing.T) {
				ctx := context.Background()
				tbl := st.create(t, version, &byInt, map[string]string{table.PropManifestMinCountToMerge: "2", table.PropManifestMergeEnabled: merge})
				loc := tbl.Metadata.Location
				commit := func(r table.CommitResult, err error) int64 {
					t.Helper()
					if err != nil {
						t.Fatal(err)
					}
					return r.SnapshotID
				}
				a := st.writeData(t, byInt, rowsIn(1, 0, 60, 1, 2, 3), 10)
				b := st.writeData(t, byInt, rowsIn(2, 100, 30, 1, 2, 3), 7)
				c := st.writeData(t, byInt, rowsIn(3, 200, 12, 1, 2), 5)
				d := st.writeData(t, byInt, rowsIn(4, 300, 6, 3), 10)
				e := st.writeData(t, byInt, rowsIn(5, 400, 9, 2), 10)

				s1 := commit(tbl.Append(ctx, a.files, table.CommitOptions{}))
				s2 := commit(tbl.Append(ctx, b.files, table.CommitOptions{}))
				three := rowsFilter(t, "i = 3")
				s3 := commit(tbl.Overwrite(ctx, three, d.files, table.CommitOptions{}))
				var deleted []int64
				if version >= 2 {
					// Position deletes (a deletion vector in v3) of three rows
					// of one of b's files in partition 1, which the overwrite
					// kept.
					i := slices.IndexFunc(b.files, func(f manifest.DataFile) bool { return f.Partition[0] == int32(1) })
					target := b.files[i]
					positions := []int64{0, 1, 2}
					var ps []Position
					for _, p := range positions {
						ps = append(ps, Position{Path: target.FilePath, Pos: p})
						deleted = append(deleted, b.ids[target.FilePath][p])
					}
					var del manifest.DataFile
					var err error
					if version == 2 {
						del, err = WritePositionDeletes(filepath.Join(t.TempDir(), "pos.parquet"), 0, target.Partition, ps)
					} else {
						del, err = WriteDeletionVector(filepath.Join(t.TempDir(), "dv.puffin"), target, positions)
					}
					if err != nil {
						t.Fatal(err)
					}
					commit(tbl.RowDelta(ctx, nil, []manifest.DataFile{del}, table.CommitOptions{}))
				}
				s4 := tbl.Metadata.CurrentSnapshot().SnapshotID
				s5 := commit(tbl.Append(ctx, c.files, table.CommitOptions{}))
				gone := c.files[0]
				s6 := commit(tbl.Commit(ctx, nil, []string{gone.FilePath}, table.CommitOptions{}))
				if op := tbl.Metadata.SnapshotByID(s6).Operation(); op != table.OpDelete {
					t.Fatalf("removing a file committed a %q snapshot", op)
				}

				id := func(v int64) *int64 { return &v }
				all := func(opts scan.Options) []int64 { return incrementalIDs(t, loc, opts, 0) }
				// Every append after s1: b and c whole, deleted rows and the
				// removed file included; d (an overwrite) not.
				checkIDs(t, "after s1", all(scan.Options{FromSnapshotID: &s1}), union(b.allIDs(), c.allIDs()))
				checkIDs(t, "after s1 to s2", all(scan.Options{FromSnapshotID: &s1, ToSnapshotID: &s2}), b.allIDs())
				checkIDs(t, "up to s3", all(scan.Options{ToSnapshotID: &s3}), union(a.allIDs(), b.allIDs()))
				checkIDs(t, "from before the first", all(scan.Options{FromSnapshotID: id(table.NoSnapshot)}), union(a.allIDs(), b.allIDs(), c.allIDs()))
				checkIDs(t, "s2 to s4: no append", all(scan.Options{FromSnapshotID: &s2, ToSnapshotID: &s4}), nil)
				checkIDs(t, "s6 to itself", all(scan.Options{FromSnapshotID: &s6}), nil)
				// Where nothing was deleted or removed between, the scan is the
				// difference of the full scans at its two ends.
				full4, full5 := scanIDs(t, loc, &s4), scanIDs(t, loc, &s5)
				checkIDs(t, "s4 to s5", all(scan.Options{FromSnapshotID: &s4, ToSnapshotID: &s5}), without(full5, full4))
				// The deleted rows are gone from the table, not from the scan.
				if now := scanIDs(t, loc, nil); len(without(now, deleted)) != len(now) {
					t.Fatalf("the deletes did not delete %v", deleted)
				}

				// A filter is pushed down (files of other partitions pruned) and
				// applied to rows; parallel unordered reads see the same rows.
				two := rowsFilter(t, "i = 2")
				checkIDs(t, "after s1, i = 2", incrementalIDs(t, loc, scan.Options{FromSnapshotID: &s1, Filter: two, Threads: 3, Ordered: new(bool)}, 2),
					union(b.idsIn(2), c.idsIn(2)))
				fresh := st.open(t, loc)
				s, err := scan.New(ctx, fresh, scan.Options{FromSnapshotID: &s1, Filter: two})
				if err != nil {
					t.Fatal(err)
				}
				if m := s.Metrics(); m.FilesSkipped+m.ManifestsSkipped == 0 {
					t.Fatalf("the filter i = 2 pruned no file: %+v", m)
				}

				// Serialised tasks, read elsewhere, give the same rows.
				s, err = scan.New(ctx, fresh, scan.Options{FromSnapshotID: &s1, ToSnapshotID: &s5, Columns: []string{"id"}, SplitSize: 1})
				if err != nil {
					t.Fatal(err)
				}
				var fromTasks []int64
				for _, task := range s.Tasks() {
					data, err := task.MarshalBinary()
					if err != nil {
						t.Fatal(err)
					}
					back, err := scan.UnmarshalTask(data)
					if err != nil {
						t.Fatal(err)
					}
					fromTasks = append(fromTasks, readTaskIDs(t, back, fresh)...)
				}
				slices.Sort(fromTasks)
				checkIDs(t, "serialised tasks s1 to s5", fromTasks, union(b.allIDs(), c.allIDs()))

				// Refusals, naming the ids.
				refused := func(what string, opts scan.Options, kind error) {
					t.Helper()
					_, err := scan.New(ctx, fresh, opts)
					if !errors.Is(err, kind) {
						t.Fatalf("%s: %v, want %v", what, err, kind)
					}
				}
				refused("unknown from", scan.Options{FromSnapshotID: id(12345)}, errkind.NotFound)
				refused("unknown to", scan.Options{FromSnapshotID: &s1, ToSnapshotID: id(12345)}, errkind.NotFound)
				refused("to before from", scan.Options{FromSnapshotID: &s5, ToSnapshotID: &s2}, errkind.InvalidArgument)
				refused("to and snapshot", scan.Options{FromSnapshotID: &s1, ToSnapshotID: &s2, SnapshotID: &s2}, errkind.InvalidArgument)
				// A snapshot off to's ancestry: roll back to s2 and append e.
				if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).RollbackTo(s2)); err != nil {
					t.Fatal(err)
				}
				s7 := commit(tbl.Append(ctx, e.files, table.CommitOptions{}))
				fresh = st.open(t, loc)
				refused("from on another line", scan.Options{FromSnapshotID: &s5, ToSnapshotID: &s7}, errkind.InvalidArgument)
				checkIDs(t, "s1 to s7 after the rollback", all(scan.Options{FromSnapshotID: &s1}), union(b.allIDs(), e.allIDs()))
				// The "to" snapshot chosen by a ref: main (now s7) or a tag
				// of the old line.
				if _, err := tbl.Apply(ctx, new(action.ManageSnapshots).CreateTag("old", s5)); err != nil {
					t.Fatal(err)
				}
				checkIDs(t, "s1 to main", all(scan.Options{FromSnapshotID: &s1, Ref: "main"}), union(b.allIDs(), e.allIDs()))
				checkIDs(t, "s1 to tag old", all(scan.Options{FromSnapshotID: &s1, Ref: "old"}), union(b.allIDs(), c.allIDs()))

				// Each append's own manifest list is read: one that is missing
				// fails the scan rather than dropping its rows.
				if err := os.Remove(fresh.Metadata.SnapshotByID(s2).ManifestList); err != nil {
					t.Fatal(err)
				}
				if _, err := scan.New(ctx, st.open(t, loc), scan.Options{FromSnapshotID: &s1}); err == nil {
					t.Fatal("the scan planned without s2's manifest list")
				}
			})
		}
	}
}

func rowsFilter(t *testing.T, text string) expr.Expr {
	t.Helper()
	f, err := expr.ParseFilter(text)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// readTaskIDs reads a task's id column on its own, outside any scan.
func readTaskIDs(t *testing.T, task *scan.Task, tbl *table.Table) []int64 {
	t.Helper()
	rr, err := task.Reader(context.Background(), tbl.IO, memory.NewGoAllocator(), scan.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		col := rr.RecordBatch().Column(0).(*array.Int64)
		for k := 0; k < col.Len(); k++ {
			ids = append(ids, col.Value(k))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return ids
}
