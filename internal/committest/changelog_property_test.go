package committest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
)

// changeRow is a row of a changelog: its table columns as text, its
// change type, ordinal and snapshot.
type changeRow struct {
	row      string
	change   string
	ordinal  int32
	snapshot int64
}

// rowText is a row's table columns (the first n of rec) as one string.
func rowText(rec arrow.RecordBatch, n, i int) string {
	parts := make([]string, n)
	for c := 0; c < n; c++ {
		col := rec.Column(c)
		if col.IsNull(i) {
			parts[c] = "∅"
		} else {
			parts[c] = col.ValueStr(i)
		}
	}
	return strings.Join(parts, "|")
}

// fullRows reads every row of the table at a snapshot (nil: the table
// before its first) as text.
func fullRows(t *testing.T, tbl *table.Table, snapshot *int64) []string {
	t.Helper()
	if snapshot == nil {
		return nil
	}
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{SnapshotID: snapshot, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []string
	n := len(tbl.Metadata.CurrentSchema().Fields)
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, rowText(rec, n, i))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// changelogRows reads a changelog scan's rows.
func changelogRows(t *testing.T, tbl *table.Table, opts scan.Options) []changeRow {
	t.Helper()
	ctx := context.Background()
	s, err := scan.NewChangelog(ctx, tbl, opts)
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
	n := len(tbl.Metadata.CurrentSchema().Fields)
	var out []changeRow
	for rr.Next() {
		rec := rr.RecordBatch()
		if int(rec.NumCols()) != n+3 {
			t.Fatalf("changelog batch has %d columns; the table has %d, plus 3 change columns", rec.NumCols(), n)
		}
		types := rec.Column(n).(*array.String)
		ords := rec.Column(n + 1).(*array.Int32)
		snaps := rec.Column(n + 2).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, changeRow{row: rowText(rec, n, i), change: types.Value(i), ordinal: ords.Value(i), snapshot: snaps.Value(i)})
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// multiset difference a − b.
func minus(a, b []string) []string {
	count := map[string]int{}
	for _, r := range b {
		count[r]++
	}
	var out []string
	for _, r := range a {
		if count[r] > 0 {
			count[r]--
			continue
		}
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

func idOf(row string) string { return row[:strings.IndexByte(row, '|')] }

// changeTable is a table under random row changes, with what a test needs
// to make them: every row ever written by id, and the positions each
// deletion vector of a file holds.
type changeTable struct {
	t     *testing.T
	tbl   *table.Table
	rows  map[int64][]any
	next  int64
	dvs   map[string][]int64
	rng   *rand.Rand
	dir   string
	files int
}

// live lists the live rows: file → (position, id), from a scan.
func (c *changeTable) live() map[string][][2]int64 {
	ctx := context.Background()
	s, err := scan.New(ctx, c.tbl, scan.Options{Columns: []string{"id", "_file", "_pos"}, Threads: 1})
	if err != nil {
		c.t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		c.t.Fatal(err)
	}
	defer rr.Release()
	out := map[string][][2]int64{}
	for rr.Next() {
		rec := rr.RecordBatch()
		ids, paths, pos := rec.Column(0).(*array.Int64), rec.Column(1).(*array.String), rec.Column(2).(*array.Int64)
		for i := 0; i < ids.Len(); i++ {
			out[paths.Value(i)] = append(out[paths.Value(i)], [2]int64{pos.Value(i), ids.Value(i)})
		}
	}
	if err := rr.Err(); err != nil {
		c.t.Fatal(err)
	}
	return out
}

func (c *changeTable) write(rows [][]any) manifest.DataFile {
	w := writeData(c.t, iceberg.PartitionSpec{}, rows, len(rows)+1)
	if len(w.files) != 1 {
		c.t.Fatalf("wrote %d files, want 1", len(w.files))
	}
	return w.files[0]
}

func (c *changeTable) newRows(n int) [][]any {
	rows := rowsIn(uint64(c.next)+7, c.next, n)
	for _, r := range rows {
		c.rows[r[0].(int64)] = r
	}
	c.next += int64(n)
	return rows
}

func (c *changeTable) rowsOf(ids []int64) [][]any {
	out := make([][]any, len(ids))
	for i, id := range ids {
		out[i] = slices.Clone(c.rows[id])
	}
	return out
}

func (c *changeTable) dataFile(path string) manifest.DataFile {
	plan, err := c.tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		c.t.Fatal(err)
	}
	for _, task := range plan.Tasks {
		if task.File.FilePath == path || task.Path == path {
			return task.File
		}
	}
	c.t.Fatalf("no live data file %s", path)
	return manifest.DataFile{}
}

func (c *changeTable) deletePath(ext string) string {
	c.files++
	return filepath.Join(c.dir, fmt.Sprintf("del-%d.%s", c.files, ext))
}

// step makes one random change and returns its name.
func (c *changeTable) step(version int) (string, table.CommitResult) {
	ctx := context.Background()
	live := c.live()
	var paths []string
	for p := range live {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	op := c.rng.IntN(8)
	if len(paths) == 0 {
		op = 0
	}
	must := func(r table.CommitResult, err error) table.CommitResult {
		if err != nil {
			c.t.Fatalf("op %d: %v", op, err)
		}
		return r
	}
	pick := func() (string, [][2]int64) {
		p := paths[c.rng.IntN(len(paths))]
		return p, live[p]
	}
	// some picks k (at least one) of rows, at random.
	some := func(rows [][2]int64) (kept, dropped [][2]int64) {
		k := 1 + c.rng.IntN(max(1, len(rows)/2))
		perm := c.rng.Perm(len(rows))
		for i, j := range perm {
			if i < k {
				dropped = append(dropped, rows[j])
			} else {
				kept = append(kept, rows[j])
			}
		}
		return kept, dropped
	}
	ids := func(rows [][2]int64) []int64 {
		out := make([]int64, len(rows))
		for i, r := range rows {
			out[i] = r[1]
		}
		slices.Sort(out)
		return out
	}
	switch op {
	case 0, 1:
		return "append", must(c.tbl.Append(ctx, []manifest.DataFile{c.write(c.newRows(1 + c.rng.IntN(12)))}, table.CommitOptions{}))
	case 2:
		// Copy-on-write delete: the file rewritten without some rows.
		p, rows := pick()
		kept, _ := some(rows)
		var added []manifest.DataFile
		if len(kept) > 0 {
			added = append(added, c.write(c.rowsOf(ids(kept))))
		}
		return "copy-on-write delete", must(c.tbl.Commit(ctx, added, []string{p}, table.CommitOptions{}))
	case 3:
		// Copy-on-write update: one row's s changes, the rest carry over.
		p, rows := pick()
		all := ids(rows)
		changed := all[c.rng.IntN(len(all))]
		c.rows[changed] = slices.Clone(c.rows[changed])
		c.rows[changed][testtable.IDString-1] = "updated-" + strconv.Itoa(c.files)
		c.files++
		return "copy-on-write update", must(c.tbl.Commit(ctx, []manifest.DataFile{c.write(c.rowsOf(all))}, []string{p}, table.CommitOptions{}))
	case 4:
		// A rewrite of unchanged rows (what compaction does).
		p, rows := pick()
		return "rewrite unchanged", must(c.tbl.Commit(ctx, []manifest.DataFile{c.write(c.rowsOf(ids(rows)))}, []string{p}, table.CommitOptions{}))
	case 5, 6:
		// Merge-on-read delete of some positions: a position delete file
		// (v2) or a deletion vector (v3), with new rows in the same
		// commit half the time.
		p, rows := pick()
		_, dropped := some(rows)
		var del manifest.DataFile
		var err error
		if version >= 3 {
			positions := c.dvs[p]
			for _, r := range dropped {
				positions = append(positions, r[0])
			}
			slices.Sort(positions)
			c.dvs[p] = positions
			del, err = WriteDeletionVector(c.deletePath("puffin"), c.dataFile(p), positions)
		} else {
			var ps []Position
			for _, r := range dropped {
				ps = append(ps, Position{Path: p, Pos: r[0]})
			}
			del, err = WritePositionDeletes(c.deletePath("parquet"), 0, []any{}, ps)
		}
		if err != nil {
			c.t.Fatal(err)
		}
		var data []manifest.DataFile
		if op == 6 {
			data = append(data, c.write(c.newRows(1+c.rng.IntN(5))))
		}
		return "position delete", must(c.tbl.RowDelta(ctx, data, []manifest.DataFile{del}, table.CommitOptions{}))
	default:
		// Equality deletes of a few live ids across files.
		var all [][2]int64
		for _, p := range paths {
			all = append(all, live[p]...)
		}
		_, dropped := some(all)
		del, err := WriteEqualityDeletes(c.deletePath("parquet"), 0, []any{}, testtable.IDID, "id", ids(dropped))
		if err != nil {
			c.t.Fatal(err)
		}
		return "equality delete", must(c.tbl.RowDelta(ctx, nil, []manifest.DataFile{del}, table.CommitOptions{}))
	}
}

// Random sequences of appends, copy-on-write deletes, updates and
// unchanged rewrites, position deletes (v2), deletion vectors (v3) and
// equality deletes: the changelog of each snapshot is exactly the
// difference of full scans before and after it, row for row (no carried
// over row, every deleted and inserted row), with an identifier field's
// updates as UPDATE_BEFORE/UPDATE_AFTER; and the changelog of every range
// of snapshots, applied in ordinal order to the scan at its start, gives
// the scan at its end.
func TestChangelogEqualsTheDifferenceOfScans(t *testing.T) {
	for _, version := range []int{2, 3} {
		for seed := uint64(1); seed <= 3; seed++ {
			t.Run(fmt.Sprintf("v%d/seed%d", version, seed), func(t *testing.T) {
				schema := testtable.Schema()
				schema.IdentifierFieldIDs = []int{testtable.IDID}
				loc := filepath.Join(t.TempDir(), "tbl")
				tbl, err := table.Create(context.Background(), nil, loc, schema, nil, nil, nil, version)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.MkdirAll(filepath.Join(loc, "deletes"), 0o755); err != nil {
					t.Fatal(err)
				}
				c := &changeTable{t: t, tbl: tbl, rows: map[int64][]any{}, dvs: map[string][]int64{}, rng: rand.New(rand.NewPCG(seed, 29)), dir: filepath.Join(loc, "deletes")}
				var snaps []int64
				var ops []string
				for step := 0; step < 12; step++ {
					op, r := c.step(version)
					ops = append(ops, op)
					snaps = append(snaps, r.SnapshotID)
					if c.tbl, err = table.Open(context.Background(), loc, table.Options{}); err != nil {
						t.Fatal(err)
					}
				}
				states := make([][]string, len(snaps)+1) // states[k+1]: after snapshot k
				for k := range snaps {
					states[k+1] = fullRows(t, c.tbl, &snaps[k])
				}
				from := func(i int) *int64 {
					if i < 0 {
						return nil
					}
					return &snaps[i]
				}
				for k := range snaps {
					what := fmt.Sprintf("snapshot %d (%s)", k, ops[k])
					got := changelogRows(t, c.tbl, scan.Options{FromSnapshotID: from(k - 1), ToSnapshotID: &snaps[k], Threads: 1 + k%2})
					checkOneSnapshot(t, what, got, states[k], states[k+1], snaps[k])
					// A filter prunes files and rows on both sides alike:
					// the changes of the rows that pass it.
					cut := c.next / 2
					filter, err := expr.ParseFilter(fmt.Sprintf("id >= %d", cut))
					if err != nil {
						t.Fatal(err)
					}
					pass := func(rows []string) []string {
						var out []string
						for _, r := range rows {
							if id, _ := strconv.ParseInt(idOf(r), 10, 64); id >= cut {
								out = append(out, r)
							}
						}
						return out
					}
					got = changelogRows(t, c.tbl, scan.Options{FromSnapshotID: from(k - 1), ToSnapshotID: &snaps[k], Filter: filter})
					checkOneSnapshot(t, what+" id >= "+strconv.FormatInt(cut, 10), got, pass(states[k]), pass(states[k+1]), snaps[k])
				}
				for trial := 0; trial < 6; trial++ {
					i := c.rng.IntN(len(snaps)) - 1
					j := i + 1 + c.rng.IntN(len(snaps)-i-1)
					got := changelogRows(t, c.tbl, scan.Options{FromSnapshotID: from(i), ToSnapshotID: &snaps[j], BatchSize: 1 + trial})
					state := slices.Clone(states[i+1])
					for o := 0; o <= j-i-1; o++ {
						var del, ins []string
						for _, r := range got {
							if int(r.ordinal) != o {
								continue
							}
							if r.snapshot != snaps[i+1+o] {
								t.Fatalf("ordinal %d row has snapshot %d, want %d", o, r.snapshot, snaps[i+1+o])
							}
							switch r.change {
							case scan.ChangeDelete, scan.ChangeUpdateBefore:
								del = append(del, r.row)
							default:
								ins = append(ins, r.row)
							}
						}
						if gone := minus(del, state); len(gone) > 0 {
							t.Fatalf("range %d..%d ordinal %d deletes rows the table did not have: %v", i, j, o, gone)
						}
						state = append(minus(state, del), ins...)
					}
					if diff := minus(state, states[j+1]); len(diff) > 0 || len(state) != len(states[j+1]) {
						t.Fatalf("range %d..%d: the changelog applied to the start gives %d rows, the scan at the end has %d (extra %v)", i, j, len(state), len(states[j+1]), diff)
					}
				}
			})
		}
	}
}

// checkOneSnapshot checks one snapshot's changelog against the scans
// before and after it.
func checkOneSnapshot(t *testing.T, what string, got []changeRow, before, after []string, snapshot int64) {
	t.Helper()
	var del, ins []string
	types := map[string]string{} // row → change
	for _, r := range got {
		if r.ordinal != 0 || r.snapshot != snapshot {
			t.Fatalf("%s: row with ordinal %d snapshot %d; want 0, %d", what, r.ordinal, r.snapshot, snapshot)
		}
		types[r.row] = r.change
		switch r.change {
		case scan.ChangeDelete, scan.ChangeUpdateBefore:
			del = append(del, r.row)
		case scan.ChangeInsert, scan.ChangeUpdateAfter:
			ins = append(ins, r.row)
		default:
			t.Fatalf("%s: change type %q", what, r.change)
		}
	}
	slices.Sort(del)
	slices.Sort(ins)
	if want := minus(before, after); !slices.Equal(del, want) {
		t.Fatalf("%s: deleted rows\n got %v\nwant %v", what, del, want)
	}
	if want := minus(after, before); !slices.Equal(ins, want) {
		t.Fatalf("%s: inserted rows\n got %v\nwant %v", what, ins, want)
	}
	// With id the identifier, a row deleted and inserted with one id is
	// an update, and only that.
	delIDs, insIDs := map[string]bool{}, map[string]bool{}
	for _, r := range del {
		delIDs[idOf(r)] = true
	}
	for _, r := range ins {
		insIDs[idOf(r)] = true
	}
	for row, change := range types {
		both := delIDs[idOf(row)] && insIDs[idOf(row)]
		var want string
		switch {
		case both && (change == scan.ChangeDelete || change == scan.ChangeUpdateBefore):
			want = scan.ChangeUpdateBefore
		case both:
			want = scan.ChangeUpdateAfter
		case change == scan.ChangeDelete || change == scan.ChangeUpdateBefore:
			want = scan.ChangeDelete
		default:
			want = scan.ChangeInsert
		}
		if change != want {
			t.Fatalf("%s: row %s is %s, want %s", what, row, change, want)
		}
	}
}
