package committest

import (
	"context"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// Each operation's effect, read back through the reader from a freshly
// opened table, in every format version; earlier snapshots stay readable
// as they were.
func TestOperationsReadBack(t *testing.T) {
	testOperationsReadBack(t, localStore(t))
}

func testOperationsReadBack(t *testing.T, st store) {
	for _, version := range []int{1, 2, 3} {
		t.Run("v"+strconv.Itoa(version), func(t *testing.T) {
			ctx := context.Background()
			tbl := st.create(t, version, &byInt, nil)
			loc := tbl.Metadata.Location
			a := st.writeData(t, byInt, rowsIn(1, 0, 90, 1, 2, 3), 10)
			b := st.writeData(t, byInt, rowsIn(2, 100, 30, 1, 2, 3), 7)
			c := st.writeData(t, byInt, rowsIn(3, 200, 12, 2), 5)
			d := st.writeData(t, byInt, rowsIn(4, 300, 6, 3), 10)

			idA, err := snapshotIDOf(tbl.Append(ctx, a.files, table.CommitOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			checkIDs(t, "after append a", st.scanIDs(t, loc, nil), a.allIDs())
			if _, err := tbl.Append(ctx, b.files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			checkIDs(t, "after append b", st.scanIDs(t, loc, nil), union(a.allIDs(), b.allIDs()))

			idC, err := snapshotIDOf(tbl.ReplacePartitions(ctx, c.files, table.CommitOptions{}))
			if err != nil {
				t.Fatal(err)
			}
			afterC := union(without(union(a.allIDs(), b.allIDs()), a.idsIn(2), b.idsIn(2)), c.allIDs())
			checkIDs(t, "after replacing partition 2", st.scanIDs(t, loc, nil), afterC)

			three, _ := expr.NewPredicate(expr.OpEq, "i", int64(3))
			if _, err := tbl.Overwrite(ctx, three, d.files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			afterD := union(without(afterC, a.idsIn(3), b.idsIn(3)), d.allIDs())
			checkIDs(t, "after overwriting i = 3", st.scanIDs(t, loc, nil), afterD)

			// Removing one file of partition 1 by path.
			gone := a.files[0]
			if gone.Partition[0] != int32(1) {
				t.Fatalf("first file of a is in partition %v", gone.Partition)
			}
			if _, err := tbl.Commit(ctx, nil, []string{gone.FilePath}, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			checkIDs(t, "after removing a file", st.scanIDs(t, loc, nil), without(afterD, a.ids[gone.FilePath]))

			// Pinned reads see the data as it was.
			checkIDs(t, "pinned to the first append", st.scanIDs(t, loc, &idA), a.allIDs())
			checkIDs(t, "pinned to the replace", st.scanIDs(t, loc, &idC), afterC)
		})
	}
}

// Row-level deletes read back: position deletes (v2) or deletion vectors
// (v3), and equality deletes, which spare rows added after them.
func TestRowLevelDeletesReadBack(t *testing.T) {
	testRowLevelDeletesReadBack(t, localStore(t))
}

func testRowLevelDeletesReadBack(t *testing.T, st store) {
	for _, version := range []int{2, 3} {
		t.Run("v"+strconv.Itoa(version), func(t *testing.T) {
			ctx := context.Background()
			tbl := st.create(t, version, nil, nil)
			loc := tbl.Metadata.Location
			a := st.writeData(t, iceberg.PartitionSpec{}, rowsIn(1, 0, 40), 10)
			if _, err := tbl.Append(ctx, a.files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			target := a.files[1]
			positions := []int64{0, 4, 9}
			var deleted []int64
			for _, p := range positions {
				deleted = append(deleted, a.ids[target.FilePath][p])
			}
			var posFile manifest.DataFile
			var err error
			if version == 2 {
				var ps []Position
				for _, p := range positions {
					ps = append(ps, Position{Path: target.FilePath, Pos: p})
				}
				posFile, err = WritePositionDeletes(filepath.Join(dir, "pos.parquet"), 0, []any{}, ps)
			} else {
				posFile, err = WriteDeletionVector(filepath.Join(dir, "dv.puffin"), target, positions)
			}
			if err != nil {
				t.Fatal(err)
			}
			posFile = st.upload(t, posFile, fileio.JoinPath(loc, "deletes", filepath.Base(posFile.FilePath)))
			// Equality deletes of ids 30 and 500: 500 is only added in the
			// same commit, and an equality delete spares rows of its own
			// commit.
			eq, err := WriteEqualityDeletes(filepath.Join(dir, "eq.parquet"), 0, []any{}, testtable.IDID, "id", []int64{30, 500})
			if err != nil {
				t.Fatal(err)
			}
			eq = st.upload(t, eq, fileio.JoinPath(loc, "deletes", "eq.parquet"))
			n := st.writeData(t, iceberg.PartitionSpec{}, rowsIn(2, 500, 3), 10)
			if _, err := tbl.RowDelta(ctx, n.files, []manifest.DataFile{posFile, eq}, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			want := union(without(a.allIDs(), deleted, []int64{30}), n.allIDs())
			checkIDs(t, "after the row delta", st.scanIDs(t, loc, nil), want)

			if version == 3 {
				// A second vector for the same file absorbs the first.
				more := append(positions, 2)
				dv2, err := WriteDeletionVector(filepath.Join(dir, "dv2.puffin"), target, more)
				if err != nil {
					t.Fatal(err)
				}
				dv2 = st.upload(t, dv2, fileio.JoinPath(loc, "deletes", "dv2.puffin"))
				if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{dv2}, table.CommitOptions{}); err != nil {
					t.Fatal(err)
				}
				want = without(want, []int64{a.ids[target.FilePath][2]})
				checkIDs(t, "after the second vector", st.scanIDs(t, loc, nil), want)
			}
			// Replacing the whole (unpartitioned) table drops the deletes
			// with the files.
			r := st.writeData(t, iceberg.PartitionSpec{}, rowsIn(3, 900, 4), 10)
			if _, err := tbl.ReplacePartitions(ctx, r.files, table.CommitOptions{}); err != nil {
				t.Fatal(err)
			}
			checkIDs(t, "after replacing everything", st.scanIDs(t, loc, nil), r.allIDs())
			fresh := st.open(t, loc)
			plan, err := fresh.PlanFiles(ctx, table.SnapshotSelector{})
			if err != nil || len(plan.DeleteFiles) != 0 {
				t.Fatalf("delete files left after replacing everything: %v, %v", plan.DeleteFiles, err)
			}
		})
	}
}

// Expired snapshots' files go; the current data still reads.
func TestExpireThenRead(t *testing.T) {
	testExpireThenRead(t, localStore(t))
}

func testExpireThenRead(t *testing.T, st store) {
	ctx := context.Background()
	tbl := st.create(t, 2, nil, nil)
	loc := tbl.Metadata.Location
	// Under the table's location: expiry deletes only files there.
	a := st.writeDataUnder(t, loc, iceberg.PartitionSpec{}, rowsIn(1, 0, 30), 10)
	b := st.writeDataUnder(t, loc, iceberg.PartitionSpec{}, rowsIn(2, 100, 10), 10)
	if _, err := tbl.Append(ctx, a.files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.ReplacePartitions(ctx, b.files, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	keep := 1
	now := tbl.Metadata.LastUpdatedMs + 1
	res, err := tbl.ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 1 || res.FailedDeletes != 0 {
		t.Fatalf("expiry %+v", res)
	}
	deleted := map[string]bool{}
	for _, p := range res.DeletedFiles {
		deleted[p] = true
	}
	for _, f := range a.files {
		if !deleted[f.FilePath] {
			t.Errorf("replaced file %s was not deleted", f.FilePath)
		}
	}
	checkIDs(t, "after expiry", st.scanIDs(t, loc, nil), b.allIDs())
}
