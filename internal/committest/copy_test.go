package committest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// hashTree is the sha256 of every file below dir, by path relative to it.
func hashTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, path)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sameTree reports every file added, removed or changed since before.
func sameTree(t *testing.T, what, dir string, before map[string]string) {
	t.Helper()
	after := hashTree(t, dir)
	for p, h := range before {
		switch got, ok := after[p]; {
		case !ok:
			t.Errorf("%s: %s was removed from the original", what, p)
		case got != h:
			t.Errorf("%s: %s changed in the original", what, p)
		}
	}
	for p := range after {
		if _, ok := before[p]; !ok {
			t.Errorf("%s: %s was added to the original", what, p)
		}
	}
}

// everySnapshot reads every snapshot the table at location has (scanRows:
// _file and every column), by snapshot id, failing the test on any error.
// _file is where the file was read from (the table's location map
// applied), not the path its metadata records.
func everySnapshot(t *testing.T, location string) map[int64][]string {
	t.Helper()
	tbl, err := table.Open(context.Background(), location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64][]string{}
	for _, s := range tbl.Metadata.Snapshots {
		id := s.SnapshotID
		rows := scanRows(t, tbl, &id)
		for i, r := range rows {
			file, rest, _ := strings.Cut(r, "|")
			rows[i] = tbl.Locations.Apply(file) + "|" + rest
		}
		out[id] = rows
	}
	return out
}

// copyChecker checks, after each step on the copy, that the original is
// byte for byte what it was and reads as it did, and that the copy reads
// every snapshot it has from its own files.
type copyChecker struct {
	t          *testing.T
	orig, copy string
	hashes     map[string]string
	reads      map[int64][]string
}

func newCopyChecker(t *testing.T, orig, copy string) *copyChecker {
	c := &copyChecker{t: t, orig: orig, copy: copy, hashes: hashTree(t, orig), reads: everySnapshot(t, orig)}
	if len(c.reads) < 2 {
		t.Fatalf("the original has %d snapshots; the test wants several", len(c.reads))
	}
	copyDir(t, orig, copy)
	return c
}

func (c *copyChecker) check(step string) {
	t := c.t
	t.Helper()
	sameTree(t, step, c.orig, c.hashes)
	got := everySnapshot(t, c.orig)
	for id, rows := range c.reads {
		if !slices.Equal(got[id], rows) {
			t.Errorf("%s: the original's snapshot %d reads %d rows, %d before", step, id, len(got[id]), len(rows))
		}
	}
	for id, rows := range everySnapshot(t, c.copy) {
		for _, r := range rows {
			if file, _, _ := strings.Cut(r, "|"); !strings.HasPrefix(file, c.copy+"/") {
				t.Errorf("%s: the copy's snapshot %d reads %s, outside the copy", step, id, file)
			}
		}
	}
}

// cp -r of a table floe wrote, with several snapshots, then append,
// copy-on-write and merge-on-read deletes and expiry on the copy: the
// original's files are byte-identical and it reads every snapshot as
// before; the copy reads every snapshot it has, from its own files.
func TestCopyNeverTouchesItsOriginal(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run("v"+string(rune('0'+version)), func(t *testing.T) {
			ctx := context.Background()
			base := t.TempDir()
			orig, cp := filepath.Join(base, "prod"), filepath.Join(base, "test")
			tbl, err := table.Create(ctx, nil, orig, testtable.Schema(), &byInt, nil, nil, version)
			if err != nil {
				t.Fatal(err)
			}
			schema := tbl.Metadata.CurrentSchema()
			appendRows := func(tbl *table.Table, rows [][]any) {
				t.Helper()
				if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, rows), table.CommitOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			deleteIDs := func(tbl *table.Table, below int64, mode ops.DeleteMode) {
				t.Helper()
				if _, err := ops.DeleteRows(ctx, tbl, rowstest.Pred(t, expr.OpLt, "id", below), ops.RowOptions{Mode: mode}); err != nil {
					t.Fatal(err)
				}
			}
			appendRows(tbl, rowsIn(1, 0, 20, 1, 2))
			appendRows(tbl, rowsIn(2, 100, 20, 1, 2))
			deleteIDs(tbl, 3, ops.MergeOnRead)
			c := newCopyChecker(t, orig, cp)

			copied, err := table.Open(ctx, cp, table.Options{})
			if err != nil {
				t.Fatal(err)
			}
			appendRows(copied, rowsIn(3, 200, 20, 1, 2))
			c.check("append")
			deleteIDs(copied, 6, ops.CopyOnWrite)
			c.check("copy-on-write delete")
			deleteIDs(copied, 9, ops.MergeOnRead)
			c.check("merge-on-read delete")
			now := int64(1) << 62
			res, err := copied.ExpireSnapshots(ctx, &now, nil, table.ExpireOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.ExpiredSnapshots) == 0 {
				t.Fatal("expiry expired nothing")
			}
			c.check("expire")
			want := union(rowsIDs(rowsIn(1, 0, 20)), rowsIDs(rowsIn(2, 100, 20)), rowsIDs(rowsIn(3, 200, 20)))
			want = slices.DeleteFunc(want, func(id int64) bool { return id < 9 })
			checkIDs(t, "the copy after every step", scanIDs(t, cp, nil), want)
		})
	}
}

func rowsIDs(rows [][]any) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r[0].(int64)
	}
	return out
}

// The same on a table Impala wrote (position deletes by Hive): its copy
// in a scratch directory is the original, copied again.
func TestCopyOfARealTableNeverTouchesItsOriginal(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	orig, cp := filepath.Join(base, "prod"), filepath.Join(base, "test")
	copyDir(t, fx.Dir, orig)
	c := newCopyChecker(t, orig, cp)
	copied, err := table.Open(ctx, cp, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Append the table's own rows again, read from the copy.
	s, err := scan.New(ctx, copied, scan.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ops.Append(ctx, copied, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	c.check("append")
	for _, step := range []struct {
		id   int64
		mode ops.DeleteMode
	}{{1, ops.CopyOnWrite}, {2, ops.MergeOnRead}} {
		if _, err := ops.DeleteRows(ctx, copied, rowstest.Pred(t, expr.OpEq, "id", step.id), ops.RowOptions{Mode: step.mode}); err != nil {
			t.Fatal(err)
		}
		c.check(string(step.mode) + " delete")
	}
	now := int64(1) << 62
	if _, err := copied.ExpireSnapshots(ctx, &now, nil, table.ExpireOptions{}); err != nil {
		t.Fatal(err)
	}
	c.check("expire")
}
