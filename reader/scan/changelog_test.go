package scan

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
)

// Impala's table with four appends and two merge-on-read overwrites.
const changelogFixture = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"

// changelogLines reads a changelog as lines of its columns, in order.
func changelogLines(t *testing.T, tbl *table.Table, opts Options) []string {
	t.Helper()
	s, err := NewChangelog(context.Background(), tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(context.Background(), memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	return readLines(t, rr)
}

func readLines(t *testing.T, rr array.RecordReader) []string {
	t.Helper()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for r := 0; r < int(rec.NumRows()); r++ {
			parts := make([]string, rec.NumCols())
			for c := range parts {
				parts[c] = impalaValue(rec.Column(c), r)
			}
			out = append(out, strings.Join(parts, ","))
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Every group of a changelog, serialised and read back with nothing but
// the table's FileIO, gives the changelog's rows in its order; a parallel
// read gives the same order as a one-thread read.
func TestChangelogGroupsSerialiseAndReadAlone(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	ctx := context.Background()
	whole := changelogLines(t, tbl, Options{Threads: 1})
	if len(whole) == 0 {
		t.Fatal("the fixture's changelog is empty")
	}
	if par := changelogLines(t, tbl, Options{Threads: 4}); !slices.Equal(par, whole) {
		t.Fatalf("4 threads read\n%v\none thread\n%v", par, whole)
	}
	s, err := NewChangelog(ctx, tbl, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Groups()) < 2 {
		t.Fatalf("%d groups", len(s.Groups()))
	}
	var got []string
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, g := range s.Groups() {
		data, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := UnmarshalChangeGroup(data)
		if err != nil {
			t.Fatal(err)
		}
		schema, err := back.Schema()
		if err != nil {
			t.Fatal(err)
		}
		if !schema.Equal(s.Schema()) {
			t.Fatalf("group schema %s, changelog's %s", schema, s.Schema())
		}
		rr, err := back.Reader(ctx, tbl.IO, mem, ReadOptions{BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, readLines(t, rr)...)
		rr.Release()
	}
	if !slices.Equal(got, whole) {
		t.Fatalf("groups read alone\n%v\nthe changelog\n%v", got, whole)
	}
	// A damaged group is refused, not read.
	for _, bad := range []string{`{}`, `{"version":1,"items":[]}`, `{"version":1,"items":[{"kind":"moved","task":{}}]}`, `[`} {
		if _, err := UnmarshalChangeGroup([]byte(bad)); err == nil {
			t.Errorf("group %s was accepted", bad)
		}
	}
}

// Columns, filters and limits work as in any scan; bad options are the
// caller's errors.
func TestChangelogOptions(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	ctx := context.Background()
	whole := changelogLines(t, tbl, Options{})
	limit := int64(3)
	if got := changelogLines(t, tbl, Options{Limit: &limit}); !slices.Equal(got, whole[:3]) {
		t.Fatalf("limit 3: %v, want %v", got, whole[:3])
	}
	s, err := NewChangelog(ctx, tbl, Options{Columns: []string{"_change_type", "i"}})
	if err != nil {
		t.Fatal(err)
	}
	if names := []string{s.Schema().Field(0).Name, s.Schema().Field(1).Name}; s.Schema().NumFields() != 2 || names[0] != "_change_type" || names[1] != "i" {
		t.Fatalf("selected _change_type, i: %s", s.Schema())
	}
	// With a filter: exactly the changes whose rows pass it.
	gt, err := expr.ParseFilter("i > 2")
	if err != nil {
		t.Fatal(err)
	}
	all := changelogLines(t, tbl, Options{Columns: []string{"i", "_change_type", "_change_ordinal"}})
	var want []string
	for _, l := range all {
		if l[0] > '2' {
			want = append(want, l)
		}
	}
	got := changelogLines(t, tbl, Options{Columns: []string{"i", "_change_type", "_change_ordinal"}, Filter: gt})
	if !slices.Equal(got, want) || len(want) == 0 || len(want) == len(all) {
		t.Fatalf("i > 2: %v, want %v (of %v)", got, want, all)
	}
	for _, c := range []struct {
		opts Options
		kind error
	}{
		{Options{Columns: []string{"nope"}}, errkind.InvalidArgument},
		{Options{Columns: []string{"s.x"}}, errkind.Unsupported},
		{Options{FromSnapshotID: ptr(int64(123))}, errkind.NotFound},
		{Options{FromSnapshotID: ptr(int64(1497619269847778439)), ToSnapshotID: ptr(int64(4363979609026842966))}, errkind.InvalidArgument},
	} {
		if _, err := NewChangelog(ctx, tbl, c.opts); !errors.Is(err, c.kind) {
			t.Errorf("%+v: %v, want %v", c.opts, err, c.kind)
		}
	}
	if _, err := New(ctx, tbl, Options{Changelog: true}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("New with Changelog: %v", err)
	}
}

// Cancelling the context stops a changelog read with the context's error.
func TestChangelogCancelled(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := NewChangelog(ctx, tbl, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	for rr.Next() {
	}
	if !errors.Is(rr.Err(), context.Canceled) {
		t.Fatalf("cancelled read ended with %v", rr.Err())
	}
	rr.Release()
}

func ptr[T any](v T) *T { return &v }

// The _change_type of the fixture's merge-on-read update: Impala wrote
// it as a delete of the old row and an insert of the new one; the table
// has no identifier fields, so they stay DELETE and INSERT.
func TestChangelogWithoutIdentifierFields(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	lines := changelogLines(t, tbl, Options{Columns: []string{"_change_type"}})
	seen := map[string]int{}
	for _, l := range lines {
		seen[l]++
	}
	if seen["'"+ChangeInsert+"'"] == 0 || seen["'"+ChangeDelete+"'"] == 0 || len(seen) != 2 {
		t.Fatalf("change types %v", seen)
	}
}

// A snapshot's rows held for matching past the memory limit stop the
// read with Unsupported, naming the snapshot, instead of growing.
func TestChangeMatchHonoursTheMemoryLimit(t *testing.T) {
	b := array.NewInt64Builder(memory.DefaultAllocator)
	b.AppendValues(make([]int64, 1000), nil)
	col := b.NewArray()
	b.Release()
	defer col.Release()
	m := changeMatch{limit: 10000, snapshot: 42}
	defer m.release()
	if err := m.add([]arrow.Array{col}, col.Len(), false); err != nil {
		t.Fatalf("8000 bytes under a 10000-byte limit: %v", err)
	}
	err := m.add([]arrow.Array{col}, col.Len(), true)
	if !errors.Is(err, errkind.Unsupported) || !strings.Contains(err.Error(), "42") {
		t.Fatalf("16000 bytes over a 10000-byte limit: %v", err)
	}
}

// A changelog read by several threads under a memory limit gives each
// group read at once its part of the limit, never the whole: the groups
// together stay within it.
func TestChangelogThreadsShareTheMemoryLimit(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	for _, c := range []struct {
		limit           int64
		threads, expect int
	}{{64 << 20, 4, 4}, {40 << 20, 4, 2}, {16 << 20, 4, 1}} {
		s, err := NewChangelog(context.Background(), tbl, Options{Threads: c.threads, MemoryLimit: c.limit})
		if err != nil {
			t.Fatal(err)
		}
		threads, read := s.readSettings()
		if threads != min(c.expect, len(s.Groups())) || read.MemoryLimit*int64(threads) > c.limit || read.MemoryLimit < MinMemoryLimit {
			t.Errorf("limit %d, %d threads: %d threads of %d bytes each", c.limit, c.threads, threads, read.MemoryLimit)
		}
	}
}
