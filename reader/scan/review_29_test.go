package scan

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// A changelog reader released before its first batch (a limit of 0, or a
// caller that only wanted the schema) leaves no goroutine reading groups
// and no Arrow memory queued.
func TestReview29ChangelogReleasedUnreadLeaksNothing(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	for _, opts := range []Options{{Threads: 2}, {Threads: 2, Limit: ptr[int64](0)}, {Threads: 3, Limit: ptr[int64](1), BatchSize: 1}} {
		s, err := NewChangelog(context.Background(), tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		before := runtime.NumGoroutine()
		rr, err := s.Reader(context.Background(), mem)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
		}
		rr.Release()
		deadline := time.Now().Add(5 * time.Second)
		for (runtime.NumGoroutine() > before || mem.CurrentAlloc() != 0) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("limit %v: %d goroutines after release, %d before", opts.Limit, n, before)
		}
		mem.AssertSize(t, 0)
	}
}

// A serialised change group is a caller's bytes (floe_task_stream reads
// them): whatever they hold, it is refused or read to an end or an
// error, never a panic.
func FuzzReview29ChangeGroup(f *testing.F) {
	fx, err := fixtures.Get(changelogFixture)
	if err != nil {
		f.Fatal(err)
	}
	tbl, err := table.Open(context.Background(), fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		f.Fatal(err)
	}
	s, err := NewChangelog(context.Background(), tbl, Options{})
	if err != nil {
		f.Fatal(err)
	}
	for _, g := range s.Groups() {
		b, err := g.MarshalBinary()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := UnmarshalChangeGroup(data)
		if err != nil {
			return
		}
		rr, err := g.Reader(context.Background(), tbl.IO, memory.DefaultAllocator, ReadOptions{})
		if err != nil {
			return
		}
		defer rr.Release()
		for rr.Next() {
		}
	})
}

// A group whose items read the table's columns in different orders (or
// types) is refused when read back, not a panic building a batch of the
// first item's schema from another item's columns.
func TestReview29ChangeGroupItemsDisagree(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	s, err := NewChangelog(context.Background(), tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, g := range s.Groups() {
		if len(g.Items) != 1 || g.Items[0].Kind != "added" {
			continue
		}
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		bad, err := UnmarshalChangeGroup(data)
		if err != nil {
			t.Fatal(err)
		}
		// The same file as a second, removed item reading its columns
		// in another order: the group is two-sided, so its rows are
		// matched.
		other, err := UnmarshalChangeGroup(data)
		if err != nil {
			t.Fatal(err)
		}
		item := other.Items[0]
		item.Kind = "removed"
		f := item.Task.Fields
		f[0], f[1] = f[1], f[0]
		bad.Items = append(bad.Items, item)
		if data, err = bad.MarshalBinary(); err != nil {
			t.Fatal(err)
		}
		tried++
		back, err := UnmarshalChangeGroup(data)
		if err != nil {
			continue // refused: fine
		}
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Fatalf("reading a group whose items disagree panicked: %v", p)
				}
			}()
			rr, err := back.Reader(context.Background(), tbl.IO, memory.DefaultAllocator, ReadOptions{})
			if err != nil {
				return
			}
			defer rr.Release()
			for rr.Next() {
			}
		}()
	}
	if tried == 0 {
		t.Fatal("no group of the fixture has two items")
	}
}

// On every fixture, a changelog filtered on a partition source column
// (any spec's; equality deletes across partitions and specs, position
// deletes and DVs included) equals, snapshot by snapshot, the difference
// of the same filter's full scans before and after.
func TestReview29FilteredChangelogOfEveryFixture(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
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
		schema := tbl.Metadata.CurrentSchema()
		cols := map[string]bool{}
		for _, spec := range tbl.Metadata.PartitionSpecs {
			for _, pf := range spec.Fields {
				for _, f := range schema.Fields {
					if f.ID == pf.SourceID {
						cols[f.Name] = true
					}
				}
			}
		}
		if len(cols) == 0 {
			continue
		}
		// Values of the columns at any snapshot (a deleted row's too).
		var nowRows [][]string
		for _, s := range tbl.Metadata.Ancestors(cur) {
			id := s.SnapshotID
			if _, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{SnapshotID: &id}); err != nil {
				continue
			}
			_, r := scanTable(t, name, tbl, Options{SnapshotID: &id})
			nowRows = append(nowRows, r...)
		}
		for col := range cols {
			idx := -1
			for i, f := range schema.Fields {
				if f.Name == col {
					idx = i
				}
			}
			values := map[string]bool{}
			for _, r := range nowRows {
				if len(values) < 8 && idx < len(r) && r[idx] != "NULL" {
					values[r[idx]] = true
				}
			}
			for v := range values {
				if !strings.HasPrefix(v, "'") {
					if _, err := strconv.ParseFloat(v, 64); err != nil {
						v = "'" + v + "'"
					}
				}
				filter, err := expr.ParseFilter(col + " = " + v)
				if err != nil {
					t.Logf("%s: filter %s = %s: %v", name, col, v, err)
					continue
				}
				for _, s := range tbl.Metadata.Ancestors(cur) {
					if s.ParentSnapshotID == nil || s.Operation() == table.OpReplace {
						continue
					}
					parent := tbl.Metadata.SnapshotByID(*s.ParentSnapshotID)
					if parent == nil || !sameSchema(parent, s) {
						continue
					}
					if _, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{SnapshotID: &parent.SnapshotID}); err != nil {
						continue // a manifest list the fixture lacks
					}
					pid, sid := parent.SnapshotID, s.SnapshotID
					_, b := scanTable(t, name, tbl, Options{SnapshotID: &pid, Filter: filter})
					_, a := scanTable(t, name, tbl, Options{SnapshotID: &sid, Filter: filter})
					before, after := sortedRows(b), sortedRows(a)
					rows, changes, _, _ := fixtureChanges(t, tbl, Options{FromSnapshotID: &pid, ToSnapshotID: &sid, Filter: filter, Threads: 2})
					var del, ins []string
					for i, r := range rows {
						if changes[i] == ChangeDelete || changes[i] == ChangeUpdateBefore {
							del = append(del, r)
						} else {
							ins = append(ins, r)
						}
					}
					slices.Sort(del)
					slices.Sort(ins)
					wantDel, wantIns := minus(before, after), minus(after, before)
					slices.Sort(wantDel)
					slices.Sort(wantIns)
					if !slices.Equal(del, wantDel) || !slices.Equal(ins, wantIns) {
						t.Errorf("%s snapshot %d (%s) filter %s:\n deleted %v\n    want %v\ninserted %v\n    want %v", name, sid, s.Operation(), filter, del, wantDel, ins, wantIns)
					}
					checked++
				}
			}
		}
	}
	t.Logf("%d filtered snapshots checked", checked)
	if checked == 0 {
		t.Fatal("nothing checked")
	}
}

// The rows of a "deletes" item do not depend on the record count its
// task carries (a manifest's figure, or a caller's bytes): a count too
// small reports no row live after as deleted, and a huge one neither
// panics nor allocates for rows the file does not have.
func TestReview29DeletesItemRecordCount(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	s, err := NewChangelog(context.Background(), tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	// read gives the group's rows, or nil when the read fails (a count
	// the file's footer contradicts is refused: fine).
	read := func(g *ChangeGroup) []string {
		rr, err := g.Reader(context.Background(), tbl.IO, memory.DefaultAllocator, ReadOptions{})
		if err != nil {
			return nil
		}
		defer rr.Release()
		var out []string
		for rr.Next() {
			rec := rr.RecordBatch()
			for r := 0; r < int(rec.NumRows()); r++ {
				line := ""
				for c := 0; c < int(rec.NumCols()); c++ {
					line += impalaValue(rec.Column(c), r) + ","
				}
				out = append(out, line)
			}
		}
		if rr.Err() != nil {
			return nil
		}
		return out
	}
	tried := 0
	for _, g := range s.Groups() {
		if len(g.Items) != 1 || g.Items[0].Kind != "deletes" {
			continue
		}
		want := read(g)
		if want == nil {
			t.Fatal("the group does not read")
		}
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		for _, count := range []int64{0, 1, 1 << 62} {
			bad, err := UnmarshalChangeGroup(data)
			if err != nil {
				t.Fatal(err)
			}
			bad.Items[0].Task.RecordCount = count
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("record count %d: panic %v", count, p)
					}
				}()
				if got := read(bad); got != nil && !slices.Equal(got, want) {
					t.Errorf("record count %d: %v, want %v", count, got, want)
				}
			}()
		}
		tried++
	}
	if tried == 0 {
		t.Fatal("no deletes item in the fixture's changelog")
	}
}

// A deletes item whose _pos is given another type in a caller's bytes is
// refused or read, never a panic.
func TestReview29DeletesItemPosType(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	s, err := NewChangelog(context.Background(), tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tried := 0
	for _, g := range s.Groups() {
		if len(g.Items) != 1 || g.Items[0].Kind != "deletes" {
			continue
		}
		for _, typ := range []iceberg.Type{iceberg.StringType{}, iceberg.IntType{}} {
			data, err := g.MarshalBinary()
			if err != nil {
				t.Fatal(err)
			}
			bad, err := UnmarshalChangeGroup(data)
			if err != nil {
				t.Fatal(err)
			}
			f := bad.Items[0].Task.Fields
			f[len(f)-1].Type = typ
			if data, err = bad.MarshalBinary(); err != nil {
				t.Fatal(err)
			}
			tried++
			back, err := UnmarshalChangeGroup(data)
			if err != nil {
				if !errors.Is(err, errkind.InvalidArgument) {
					t.Errorf("_pos as %s refused as %v: %v", typ, errkind.Of(err), err)
				}
				continue
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						t.Fatalf("_pos as %s: panic %v", typ, p)
					}
				}()
				rr, err := back.Reader(context.Background(), tbl.IO, memory.DefaultAllocator, ReadOptions{})
				if err != nil {
					return
				}
				defer rr.Release()
				for rr.Next() {
				}
			}()
		}
	}
	if tried == 0 {
		t.Fatal("nothing tried")
	}
}

// Bytes that are no change group are refused as an invalid argument, as
// a Go caller tests with errors.Is.
func TestReview29ChangeGroupRefusalKind(t *testing.T) {
	for _, bad := range []string{`{}`, `[`, `{"version":1,"items":[]}`, `{"version":1,"items":[{"kind":"moved","task":{}}]}`, `{"version":1,"items":[{"kind":"added","task":{"version":2}}]}`} {
		_, err := UnmarshalChangeGroup([]byte(bad))
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("group %s refused as %v: %v", bad, errkind.Of(err), err)
		}
	}
}

// A change group's reader refuses read settings out of range as a task's
// reader does (a negative limit read every change).
func TestReview29ChangeGroupReadOptionsChecked(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	s, err := NewChangelog(context.Background(), tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, opts := range []ReadOptions{{Limit: ptr[int64](-1)}, {BatchSize: -1}, {MemoryLimit: -5}} {
		rr, err := s.Groups()[0].Reader(context.Background(), tbl.IO, memory.DefaultAllocator, opts)
		if err == nil {
			for rr.Next() {
			}
			err = rr.Err()
			rr.Release()
		}
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("read options %+v: %v", opts, err)
		}
	}
}
