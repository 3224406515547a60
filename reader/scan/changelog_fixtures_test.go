package scan

import (
	"context"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// fixtureChanges reads a changelog of a fixture table: each row's table
// columns (as Impala prints them, joined) with its change type, ordinal
// and snapshot.
func fixtureChanges(t *testing.T, tbl *table.Table, opts Options) (rows []string, changes []string, ordinals []int32, snaps []int64) {
	t.Helper()
	ctx := context.Background()
	s, err := NewChangelog(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	n := int(s.Schema().NumFields()) - 3
	for rr.Next() {
		rec := rr.RecordBatch()
		if !rec.Schema().Equal(s.Schema()) {
			t.Fatalf("batch schema %s differs from the changelog's %s", rec.Schema(), s.Schema())
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, n)
			for c := range parts {
				parts[c] = impalaValue(rec.Column(c), r)
			}
			rows = append(rows, strings.Join(parts, ","))
			changes = append(changes, rec.Column(n).(*array.String).Value(r))
			ordinals = append(ordinals, rec.Column(n+1).(*array.Int32).Value(r))
			snaps = append(snaps, rec.Column(n+2).(*array.Int64).Value(r))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, changes, ordinals, snaps
}

// On every shared table other engines wrote (Spark, Impala, DuckDB…:
// appends, merge-on-read position deletes, deletion vectors, equality
// deletes, copy-on-write overwrites, a compaction), the changelog of each
// snapshot is the difference of full scans before and after it, row for
// row, and a replace (compaction) is no change; the changelog of the
// whole history, applied in ordinal order, gives the current scan.
func TestChangelogOfEveryFixture(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, fx := range all {
		name := fx.Name
		tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
		if err != nil {
			t.Fatal(err)
		}
		cur := tbl.Metadata.CurrentSnapshot()
		if cur == nil {
			continue
		}
		full := func(s *metadata.Snapshot) []string {
			if s == nil {
				return nil
			}
			id := s.SnapshotID
			_, rows := scanTable(t, name, tbl, Options{SnapshotID: &id})
			return sortedRows(rows)
		}
		// Snapshots whose manifest list the fixture lacks (INDEX.md: one
		// of DuckDB's) are left out, with those before them.
		var ancestors []*metadata.Snapshot
		for _, a := range tbl.Metadata.Ancestors(cur) {
			id := a.SnapshotID
			if _, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{SnapshotID: &id}); errors.Is(err, fs.ErrNotExist) || errors.Is(err, errkind.NotFound) {
				break
			} else if err != nil {
				t.Fatal(err)
			}
			ancestors = append(ancestors, a)
		}
		slices.Reverse(ancestors)
		if len(ancestors) == 0 {
			continue
		}
		// The whole history from the oldest snapshot readable with its
		// parent (or from before the first).
		history, start := Options{}, (*metadata.Snapshot)(nil)
		if ancestors[0].ParentSnapshotID != nil {
			start = ancestors[0]
			history.FromSnapshotID = &start.SnapshotID
		}
		for _, s := range ancestors {
			var parent *metadata.Snapshot
			if s.ParentSnapshotID != nil {
				parent = tbl.Metadata.SnapshotByID(*s.ParentSnapshotID)
			}
			if s.ParentSnapshotID != nil && (parent == nil || s == ancestors[0]) {
				continue // an expired or unreadable parent: its rows are unknown
			}
			from := int64(table.NoSnapshot)
			if parent != nil {
				from = parent.SnapshotID
			}
			to := s.SnapshotID
			rows, changes, ordinals, snaps := fixtureChanges(t, tbl, Options{FromSnapshotID: &from, ToSnapshotID: &to, Threads: 2})
			var del, ins []string
			for i, r := range rows {
				if ordinals[i] != 0 || snaps[i] != to {
					t.Fatalf("%s snapshot %d: row %s has ordinal %d snapshot %d", name, to, r, ordinals[i], snaps[i])
				}
				switch changes[i] {
				case ChangeDelete, ChangeUpdateBefore:
					del = append(del, r)
				case ChangeInsert, ChangeUpdateAfter:
					ins = append(ins, r)
				default:
					t.Fatalf("%s: change type %q", name, changes[i])
				}
			}
			before, after := full(parent), full(s)
			if s.Operation() == table.OpReplace {
				if len(rows) != 0 {
					t.Fatalf("%s: replace snapshot %d reports %d changes", name, to, len(rows))
				}
				if !slices.Equal(before, after) {
					t.Fatalf("%s: replace snapshot %d changed rows", name, to)
				}
				checked["replace"]++
				continue
			}
			slices.Sort(del)
			slices.Sort(ins)
			if parent != nil && !sameSchema(parent, s) {
				// The scans before and after read different columns: only
				// the row counts compare.
				if len(ins)-len(del) != len(after)-len(before) {
					t.Fatalf("%s snapshot %d: %d inserted, %d deleted; the table went from %d to %d rows", name, to, len(ins), len(del), len(before), len(after))
				}
				checked["schema change"]++
				continue
			}
			wantDel, wantIns := minus(before, after), minus(after, before)
			slices.Sort(wantDel)
			slices.Sort(wantIns)
			if !slices.Equal(del, wantDel) || !slices.Equal(ins, wantIns) {
				t.Fatalf("%s snapshot %d (%s):\n deleted %v\n    want %v\ninserted %v\n    want %v", name, to, s.Operation(), del, wantDel, ins, wantIns)
			}
			checked[s.Operation()]++
			if len(del) > 0 && len(ins) < len(after) {
				checked["row deletes"]++
			}
		}
		// The whole history at once.
		rows, changes, ordinals, _ := fixtureChanges(t, tbl, history)
		state := []string{}
		if start != nil {
			state = full(start)
		}
		for o := int32(0); ; o++ {
			var del, ins []string
			any := false
			for i := range rows {
				if ordinals[i] != o {
					continue
				}
				any = true
				if changes[i] == ChangeDelete || changes[i] == ChangeUpdateBefore {
					del = append(del, rows[i])
				} else {
					ins = append(ins, rows[i])
				}
			}
			if !any && int(o) > len(ancestors) {
				break
			}
			state = append(minus(state, del), ins...)
		}
		slices.Sort(state)
		if now := full(cur); !slices.Equal(state, now) {
			t.Fatalf("%s: the whole changelog gives %d rows, the current scan has %d", name, len(state), len(now))
		}
	}
	t.Logf("snapshots checked by operation: %v", checked)
	for _, op := range []string{table.OpAppend, table.OpOverwrite, table.OpDelete, table.OpReplace, "row deletes"} {
		if checked[op] == 0 {
			t.Errorf("no fixture snapshot of kind %q was checked", op)
		}
	}
}

func sameSchema(a, b *metadata.Snapshot) bool {
	return a.SchemaID == nil && b.SchemaID == nil || a.SchemaID != nil && b.SchemaID != nil && *a.SchemaID == *b.SchemaID
}
