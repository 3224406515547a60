package inspect

import (
	"context"
	"errors"
	"io/fs"
	"reflect"
	"strconv"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// listRows reads a manifest list named by the metadata JSON through
// iceberg/manifest's reader and spells each entry as a manifests row
// without partition summaries: Java's split of the file counts by
// content. ok false: the file is gone (duckdb_equality_deletes keeps only
// its newest lists).
func listRows(t *testing.T, tbl *table.Table, formatVersion int, path string) (rows [][]any, ok bool) {
	t.Helper()
	data, err := fileio.ReadFileLimited(context.Background(), tbl.IO, path, 1<<30)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	list, err := manifest.ReadManifestList(data, formatVersion)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range list {
		counts := []any{int32(m.AddedFilesCount), int32(m.ExistingFilesCount), int32(m.DeletedFilesCount)}
		zeros := []any{int32(0), int32(0), int32(0)}
		row := []any{int32(m.Content), m.Path, m.Length, int32(m.PartitionSpecID), m.AddedSnapshotID}
		if m.Content == manifest.ManifestContentDeletes {
			row = append(append(row, zeros...), counts...)
		} else {
			row = append(append(row, counts...), zeros...)
		}
		rows = append(rows, row)
	}
	return rows, true
}

// withoutSummaries drops the partition_summaries column (and what
// follows it) of manifests rows.
func withoutSummaries(rows [][]any) [][]any {
	out := make([][]any, len(rows))
	for i, r := range rows {
		out[i] = r[:11]
	}
	return out
}

// The manifests table at every snapshot of every fixture lists what the
// snapshot's manifest list holds, and its live file counts add up to the
// totals the snapshot's summary records.
func TestManifestsMatchTheManifestLists(t *testing.T) {
	lists, summaries := 0, 0
	for _, f := range allFixtures(t) {
		tbl := openFixture(t, f)
		doc := readJSONTable(t, f.Metadata)
		for _, s := range doc.Snapshots {
			sid := id(t, &s.ID)
			want, ok := listRows(t, tbl, f.FormatVersion, s.List)
			if !ok {
				continue
			}
			rows := tableRows(readAll(t, tbl, Manifests, Options{SnapshotID: &sid}))
			if got := withoutSummaries(rows); !reflect.DeepEqual(got, want) {
				t.Errorf("%s snapshot %d: manifests\n got %v\nwant %v", f.Name, sid, got, want)
			}
			lists++
			var data, deletes int64
			for _, r := range rows {
				data += int64(r[5].(int32) + r[6].(int32))
				deletes += int64(r[8].(int32) + r[9].(int32))
			}
			for key, got := range map[string]int64{"total-data-files": data, "total-delete-files": deletes} {
				if v, ok := s.Summary[key]; ok {
					n, err := strconv.ParseInt(v, 10, 64)
					if err != nil {
						t.Fatalf("%s snapshot %d: %s %q", f.Name, sid, key, v)
					}
					if n != got {
						t.Errorf("%s snapshot %d: the manifests hold %d live files, the summary's %s is %d", f.Name, sid, got, key, n)
					}
					summaries++
				}
			}
		}
	}
	if lists < 30 || summaries < 30 {
		t.Fatalf("%d manifest lists and %d summary totals checked: too few", lists, summaries)
	}
}

// Partition summaries' bounds as Java prints them: an hour transform as
// yyyy-MM-dd-HH, identity strings and dates as themselves, a field whose
// values are all null as "null" bounds. The expected texts come from the
// fixtures' documentation (Impala's SHOW PARTITIONS: hours 438296 to
// 438298, actions click to view) and their data.
func TestManifestsPartitionSummaries(t *testing.T) {
	cases := []struct {
		fixture string
		want    [][]any // the summaries of the current snapshot's manifests, in list order
	}{
		{"impala_iceberg_partitioned", [][]any{{
			[]any{false, nil, "2020-01-01-08", "2020-01-01-10"},
			[]any{false, nil, "click", "view"},
		}}},
		{"impala_iceberg_timestamptz_part", [][]any{{
			[]any{false, nil, "1969-01-01-00", "2022-04-11-10"},
		}}},
		{"impala_iceberg_v2_partitioned_position_deletes", [][]any{
			{[]any{false, false, "click", "view"}},
			{[]any{false, false, "click", "view"}},
		}},
		{"impala_test_default_part", [][]any{
			{[]any{true, false, "null", "null"}},
			{[]any{false, false, "5", "10"}},
			{},
		}},
	}
	for _, c := range cases {
		f, err := fixtures.Get(c.fixture)
		if err != nil {
			t.Fatal(err)
		}
		rows := tableRows(readAll(t, openFixture(t, f), Manifests, Options{Columns: []string{"partition_summaries"}}))
		var got [][]any
		for _, r := range rows {
			got = append(got, r[0].([]any))
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: %d manifests, want %d: %v", c.fixture, len(got), len(c.want), got)
		}
		for i := range got {
			if !reflect.DeepEqual(got[i], c.want[i]) && !(len(got[i]) == 0 && len(c.want[i]) == 0) {
				t.Errorf("%s manifest %d: summaries %v, want %v", c.fixture, i, got[i], c.want[i])
			}
		}
	}
}

// A ref or snapshot id picks the list; a filter and a column selection
// apply as to any scan; an unknown snapshot is NotFound.
func TestManifestsOptions(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	current := tableRows(readAll(t, tbl, Manifests, Options{}))
	if main := tableRows(readAll(t, tbl, Manifests, Options{Ref: "main"})); !reflect.DeepEqual(main, current) {
		t.Fatalf("ref main: %v\ncurrent: %v", main, current)
	}
	first := tbl.Metadata.Snapshots[0].SnapshotID
	if old := tableRows(readAll(t, tbl, Manifests, Options{SnapshotID: &first})); len(old) != 1 || len(current) != 6 {
		t.Fatalf("%d manifests at the first snapshot, %d now", len(old), len(current))
	}
	deletes, err := expr.NewPredicate(expr.OpEq, "content", int64(1))
	if err != nil {
		t.Fatal(err)
	}
	got := tableRows(readAll(t, tbl, Manifests, Options{Filter: deletes, Columns: []string{"added_delete_files_count", "path"}}))
	if len(got) != 2 {
		t.Fatalf("delete manifests: %v", got)
	}
	for _, r := range got {
		if r[0] != int32(1) || r[1] == "" {
			t.Errorf("a delete manifest: %v", r)
		}
	}
	missing := int64(42)
	if _, err := Open(context.Background(), tbl, Manifests, Options{SnapshotID: &missing}, nil); !errors.Is(err, errkind.NotFound) {
		t.Fatalf("snapshot 42: %v", err)
	}
}

// all_manifests is every snapshot's manifests table, one snapshot after
// another, each row naming its snapshot.
func TestAllManifestsIsEverySnapshotsList(t *testing.T) {
	checked := 0
	for _, f := range allFixtures(t) {
		tbl := openFixture(t, f)
		var want [][]any
		complete := true
		for _, s := range tbl.Metadata.Snapshots {
			sid := s.SnapshotID
			if _, ok := listRows(t, tbl, f.FormatVersion, s.ManifestList); !ok {
				complete = false
				continue
			}
			for _, r := range tableRows(readAll(t, tbl, Manifests, Options{SnapshotID: &sid})) {
				want = append(want, append(r, sid, nil))
			}
		}
		if !complete {
			// Some lists are gone: the table fails, as Java's does.
			rr, err := Open(context.Background(), tbl, AllManifests, Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			for rr.Next() {
			}
			if rr.Err() == nil {
				t.Errorf("%s: all_manifests read although manifest lists are missing", f.Name)
			}
			rr.Release()
			continue
		}
		got := tableRows(readAll(t, tbl, AllManifests, Options{}))
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: all_manifests\n got %v\nwant %v", f.Name, got, want)
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d tables checked", checked)
	}
}

// A filter on reference_snapshot_id leaves the other snapshots' lists
// unread: on duckdb_equality_deletes, whose older lists are gone, the
// current snapshot's manifests still read.
func TestAllManifestsFilterSkipsSnapshots(t *testing.T) {
	f, err := fixtures.Get("duckdb_equality_deletes/mytable")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	current := *tbl.Metadata.CurrentSnapshotID
	want := tableRows(readAll(t, tbl, Manifests, Options{Columns: []string{"path"}}))
	for _, filter := range []string{
		"reference_snapshot_id = " + strconv.FormatInt(current, 10),
		"reference_snapshot_id = " + strconv.FormatInt(current, 10) + " and added_data_files_count >= 0",
		"not (reference_snapshot_id != " + strconv.FormatInt(current, 10) + ")",
	} {
		e, err := expr.ParseFilter(filter)
		if err != nil {
			t.Fatal(err)
		}
		got := tableRows(readAll(t, tbl, AllManifests, Options{Filter: e, Columns: []string{"path"}}))
		if len(want) == 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", filter, got, want)
		}
	}
	// A filter that does not decide the snapshot reads every list.
	e, err := expr.ParseFilter("reference_snapshot_id = " + strconv.FormatInt(current, 10) + " or content = 0")
	if err != nil {
		t.Fatal(err)
	}
	rr, err := Open(context.Background(), tbl, AllManifests, Options{Filter: e}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	for rr.Next() {
	}
	if rr.Err() == nil {
		t.Fatal("every list read, yet no error for the missing ones")
	}
	if _, err := Open(context.Background(), tbl, AllManifests, Options{Ref: "main"}, nil); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a ref for all_manifests: %v", err)
	}
}
