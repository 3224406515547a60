package scan

import (
	"errors"
	"slices"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
)

// minus is the multiset difference of sorted rows: a row of all not
// matched by one of some.
func minus(all, some []string) []string {
	left := map[string]int{}
	for _, r := range some {
		left[r]++
	}
	var out []string
	for _, r := range all {
		if left[r] > 0 {
			left[r]--
			continue
		}
		out = append(out, r)
	}
	return out
}

// Impala's table: four appends (3, 3, 3 and 1 rows), then two
// merge-on-read overwrites (an update and a delete: position deletes and
// a new data file). An incremental append scan over the appends is the
// difference of the full scans at its ends; one that reaches past them
// skips the overwrites' rows and applies none of their deletes.
func TestIncrementalAppendScanImpalaFixture(t *testing.T) {
	const name = "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	s1, s2, s3, s4 := int64(4363979609026842966), int64(5762682948883272650), int64(7508485421322116327), int64(7490459762454857930)
	full := func(id int64) []string {
		_, rows := scanFixture(t, name, Options{SnapshotID: &id})
		return sortedRows(rows)
	}
	incremental := func(opts Options) []string {
		_, rows := scanFixture(t, name, opts)
		return sortedRows(rows)
	}
	f1, f2, f3, f4 := full(s1), full(s2), full(s3), full(s4)
	if len(f4) != 10 {
		t.Fatalf("the four appends hold %d rows, want 10", len(f4))
	}
	expectRows(t, "after s1, to current", incremental(Options{FromSnapshotID: &s1}), minus(f4, f1)...)
	expectRows(t, "s2 to s3", incremental(Options{FromSnapshotID: &s2, ToSnapshotID: &s3}), minus(f3, f2)...)
	expectRows(t, "up to s2", incremental(Options{ToSnapshotID: &s2}), f2...)
	expectRows(t, "after s4: only overwrites", incremental(Options{FromSnapshotID: &s4}))
	// The full scan now differs: the overwrites deleted and rewrote rows.
	if now := full(1497619269847778439); slices.Equal(now, f4) {
		t.Fatalf("the overwrites changed nothing: %v", now)
	}
	// Filters and column selection as in any scan.
	gt, err := expr.ParseFilter("i > 3")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range minus(f4, f1) {
		if r[0] > '3' {
			want = append(want, r)
		}
	}
	expectRows(t, "after s1, i > 3", incremental(Options{FromSnapshotID: &s1, Filter: gt}), want...)
	_, rows := scanFixture(t, name, Options{FromSnapshotID: &s1, Columns: []string{"s"}, Threads: 3})
	if len(rows) != 7 || len(rows[0]) != 1 {
		t.Fatalf("after s1, column s: %v", rows)
	}
}

// Impala's v3 table: three one-row appends, then a replace (a
// compaction rewriting them into one file). The replace adds no rows to
// an incremental append scan.
func TestIncrementalAppendScanSkipsReplace(t *testing.T) {
	const name = "impala_iceberg_v3_row_lineage"
	s1, s3 := int64(8059325670730066324), int64(2872597867664652808)
	_, rows := scanFixture(t, name, Options{SnapshotID: &s3})
	f3 := sortedRows(rows)
	_, rows = scanFixture(t, name, Options{FromSnapshotID: snap(-1)})
	expectRows(t, "every append", sortedRows(rows), f3...)
	_, rows = scanFixture(t, name, Options{SnapshotID: &s1})
	f1 := sortedRows(rows)
	_, rows = scanFixture(t, name, Options{FromSnapshotID: &s1})
	expectRows(t, "after s1", sortedRows(rows), minus(f3, f1)...)
	if len(rows) != 2 {
		t.Fatalf("after s1: %d rows, want 2", len(rows))
	}
}

func TestIncrementalAppendScanRefusals(t *testing.T) {
	tbl := openFixtureTable(t, "impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	s1, s3 := int64(4363979609026842966), int64(7508485421322116327)
	for _, c := range []struct {
		what string
		opts Options
		kind error
	}{
		{"unknown from", Options{FromSnapshotID: snap(42)}, errkind.NotFound},
		{"unknown to", Options{ToSnapshotID: snap(42)}, errkind.NotFound},
		{"to before from", Options{FromSnapshotID: &s3, ToSnapshotID: &s1}, errkind.InvalidArgument},
		{"to and ref", Options{ToSnapshotID: &s3, Ref: "main"}, errkind.InvalidArgument},
	} {
		_, err := New(t.Context(), tbl, c.opts)
		if !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", c.what, err, c.kind)
		}
		if err := c.opts.Validate(); c.what == "to and ref" && err == nil {
			t.Errorf("%s: Validate accepts it", c.what)
		}
	}
}

// Before the first snapshot (snapshot_id -1) nothing is appended: from
// -1 reads nothing, a real from comes after it.
func TestIncrementalAppendScanToTheEmptyState(t *testing.T) {
	name := "impala_iceberg_v2_positional_not_all_data_files_have_delete_files"
	_, rows := scanFixture(t, name, Options{FromSnapshotID: snap(-1), SnapshotID: snap(-1)})
	if len(rows) != 0 {
		t.Errorf("up to the empty state: %v", rows)
	}
	tbl := openFixtureTable(t, name)
	if _, err := New(t.Context(), tbl, Options{FromSnapshotID: snap(4363979609026842966), SnapshotID: snap(-1)}); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("from a snapshot to the empty state: %v", err)
	}
	if _, err := New(t.Context(), tbl, Options{FromSnapshotID: snap(42), SnapshotID: snap(-1)}); !errors.Is(err, errkind.NotFound) {
		t.Errorf("from an unknown snapshot to the empty state: %v", err)
	}
}
