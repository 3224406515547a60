package inspect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// fileRow is what a test compares of a files-table row.
type fileRow struct {
	content int32
	path    string
	records int64
	size    int64
}

// fileRows reads the content, file_path, record_count and
// file_size_in_bytes columns of a files table.
func fileRows(t *testing.T, tbl *table.Table, kind Kind, opts Options) []fileRow {
	t.Helper()
	opts.Columns = []string{"content", "file_path", "record_count", "file_size_in_bytes"}
	var out []fileRow
	for _, rec := range readAll(t, tbl, kind, opts) {
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, fileRow{rec.Column(0).(*array.Int32).Value(i), rec.Column(1).(*array.String).Value(i),
				rec.Column(2).(*array.Int64).Value(i), rec.Column(3).(*array.Int64).Value(i)})
		}
	}
	return out
}

func sortRows(rows []fileRow) {
	slices.SortFunc(rows, func(a, b fileRow) int {
		if a.path < b.path {
			return -1
		} else if a.path > b.path {
			return 1
		}
		return 0
	})
}

// The files table of every fixture lists what planning the current
// snapshot finds (live data files and live delete files: paths, record
// counts, sizes); data_files and delete_files split it by content; the
// counts agree with the snapshot summary's totals where a writer kept
// them.
func TestFilesMatchThePlan(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	checked, withDeletes := 0, 0
	for _, f := range all {
		tbl := openFixture(t, f)
		plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
		if err != nil {
			t.Logf("%s: not planned: %v", f.Name, err)
			continue
		}
		var want []fileRow
		for _, task := range plan.Tasks {
			want = append(want, fileRow{int32(task.File.Content), task.File.FilePath, task.File.RecordCount, task.File.FileSizeInBytes})
		}
		for _, d := range plan.DeleteFiles {
			want = append(want, fileRow{int32(d.File.Content), d.File.FilePath, d.File.RecordCount, d.File.FileSizeInBytes})
		}
		got := fileRows(t, tbl, Files, Options{})
		sortRows(got)
		sortRows(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s: files table\n%v\nplanning found\n%v", f.Name, got, want)
			continue
		}
		data, deletes := fileRows(t, tbl, DataFiles, Options{}), fileRows(t, tbl, DeleteFiles, Options{})
		if len(data) != len(plan.Tasks) || len(deletes) != len(plan.DeleteFiles) {
			t.Errorf("%s: %d data_files and %d delete_files rows; planning found %d and %d", f.Name, len(data), len(deletes), len(plan.Tasks), len(plan.DeleteFiles))
		}
		for _, r := range data {
			if r.content != 0 {
				t.Errorf("%s: data_files has %s of content %d", f.Name, r.path, r.content)
			}
		}
		if s := plan.Snapshot; s != nil {
			var records int64
			for _, r := range data {
				records += r.records
			}
			if n, ok := s.Summary["total-data-files"]; ok && n != strconv.Itoa(len(data)) {
				t.Errorf("%s: %d data files; the summary says %s", f.Name, len(data), n)
			}
			if n, ok := s.Summary["total-records"]; ok && n != strconv.FormatInt(records, 10) {
				t.Errorf("%s: %d records; the summary says %s", f.Name, records, n)
			}
		}
		if len(deletes) > 0 {
			withDeletes++
		}
		checked++
	}
	if checked < 10 || withDeletes < 3 {
		t.Fatalf("only %d fixture tables checked, %d with delete files", checked, withDeletes)
	}
}

// entryCounts counts an entries table's rows by status.
func entryCounts(t *testing.T, tbl *table.Table, kind Kind, opts Options) [3]int {
	t.Helper()
	opts.Columns = []string{"status"}
	var n [3]int
	for _, rec := range readAll(t, tbl, kind, opts) {
		for _, s := range rec.Column(0).(*array.Int32).Int32Values() {
			n[s]++
		}
	}
	return n
}

// The entries table holds every entry of the snapshot's manifests,
// DELETED ones included: its counts by status are what the manifest list
// says the manifests hold, on every fixture, and some fixture has DELETED
// entries to show.
func TestEntriesIncludeDeleted(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	deleted := 0
	for _, f := range all {
		tbl := openFixture(t, f)
		snap := tbl.Metadata.CurrentSnapshot()
		if snap == nil {
			continue
		}
		list, err := tbl.ManifestList(context.Background(), snap)
		if err != nil {
			t.Fatal(err)
		}
		var want [3]int
		known := true
		for _, mf := range list {
			if mf.AddedFilesCount < 0 || mf.ExistingFilesCount < 0 || mf.DeletedFilesCount < 0 {
				known = false
			}
			want[manifest.StatusAdded] += mf.AddedFilesCount
			want[manifest.StatusExisting] += mf.ExistingFilesCount
			want[manifest.StatusDeleted] += mf.DeletedFilesCount
		}
		got := entryCounts(t, tbl, Entries, Options{})
		if known && got != want {
			t.Errorf("%s: entries by status (existing, added, deleted) %v; the manifest list says %v", f.Name, got, want)
		}
		deleted += got[manifest.StatusDeleted]
		// The files table is the entries that are not DELETED.
		if files := len(fileRows(t, tbl, Files, Options{})); files != got[0]+got[1] {
			t.Errorf("%s: %d files rows, %d live entries", f.Name, files, got[0]+got[1])
		}
	}
	if deleted == 0 {
		t.Fatal("no fixture has a DELETED entry: the test shows nothing")
	}
}

// all_entries reads each manifest of the history once: its rows are the
// entries of the distinct manifests every snapshot lists. all_files
// refuses a snapshot, as Java does.
func TestAllEntriesReadEachManifestOnce(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v3_row_lineage")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	seen := map[string]bool{}
	var want [3]int
	for i := range tbl.Metadata.Snapshots {
		list, err := tbl.ManifestList(context.Background(), &tbl.Metadata.Snapshots[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range list {
			if seen[mf.Path] {
				continue
			}
			seen[mf.Path] = true
			want[manifest.StatusAdded] += mf.AddedFilesCount
			want[manifest.StatusExisting] += mf.ExistingFilesCount
			want[manifest.StatusDeleted] += mf.DeletedFilesCount
		}
	}
	if got := entryCounts(t, tbl, AllEntries, Options{}); got != want {
		t.Fatalf("all_entries by status %v; the manifest lists say %v", got, want)
	}
	if len(seen) <= len(mustList(t, tbl)) {
		t.Fatalf("%d manifests in the history: not a useful table", len(seen))
	}
	if n := len(fileRows(t, tbl, AllFiles, Options{})); n != want[0]+want[1] {
		t.Fatalf("all_files has %d rows, the live entries are %d", n, want[0]+want[1])
	}
	id := tbl.Metadata.Snapshots[0].SnapshotID
	for _, k := range []Kind{AllFiles, AllEntries, AllDataFiles, AllDeleteFiles} {
		if _, err := Open(context.Background(), tbl, k, Options{SnapshotID: &id}, nil); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s at a snapshot: %v", k, err)
		}
	}
	// entries at an older snapshot reads that snapshot's manifests.
	first := &tbl.Metadata.Snapshots[0]
	list, err := tbl.ManifestList(context.Background(), first)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, mf := range list {
		n += mf.AddedFilesCount + mf.ExistingFilesCount + mf.DeletedFilesCount
	}
	got := entryCounts(t, tbl, Entries, Options{SnapshotID: &id})
	if got[0]+got[1]+got[2] != n {
		t.Fatalf("entries at snapshot %d: %v, its manifests hold %d", id, got, n)
	}
}

func mustList(t *testing.T, tbl *table.Table) []manifest.ManifestFile {
	list, err := tbl.ManifestList(context.Background(), tbl.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func columnByName(rec arrow.RecordBatch, name string) arrow.Array {
	for i, f := range rec.Schema().Fields() {
		if f.Name == name {
			return rec.Column(i)
		}
	}
	panic(fmt.Sprintf("no column %s", name))
}

// Every column of every files and entries table of every fixture reads
// (nested tables' readable_metrics, v3 columns, delete files), with
// Java's columns in Java's order.
func TestFilesAndEntriesReadWhole(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	wantFile := []string{"content", "file_path", "file_format", "spec_id", "partition", "record_count", "file_size_in_bytes",
		"column_sizes", "value_counts", "null_value_counts", "nan_value_counts", "lower_bounds", "upper_bounds", "key_metadata",
		"split_offsets", "equality_ids", "sort_order_id", "first_row_id", "referenced_data_file", "content_offset",
		"content_size_in_bytes", "readable_metrics"}
	for _, f := range all {
		tbl := openFixture(t, f)
		pt, err := tbl.UnifiedPartitionType()
		if err != nil {
			t.Fatal(err)
		}
		want := wantFile
		if len(pt.Fields) == 0 {
			want = slices.Delete(slices.Clone(want), 4, 5)
		}
		for _, k := range Kinds() {
			if k != Files && k != AllEntries && k != Entries && k != AllDeleteFiles {
				continue
			}
			if (k == AllEntries || k == AllDeleteFiles) && !historyListed(tbl) {
				// Some bundled tables lack their older manifest lists:
				// reading the history fails as Java's does, the file not found.
				rr, err := Open(context.Background(), tbl, k, Options{}, nil)
				if err != nil {
					t.Fatal(err)
				}
				for rr.Next() {
				}
				if !errors.Is(rr.Err(), errkind.NotFound) || !errors.Is(rr.Err(), fs.ErrNotExist) {
					t.Errorf("%s: %s without its manifest lists: %v", f.Name, k, rr.Err())
				}
				rr.Release()
				continue
			}
			rows := 0
			for _, rec := range readAll(t, tbl, k, Options{BatchSize: 3}) {
				rows += int(rec.NumRows())
				var names []string
				for _, fl := range rec.Schema().Fields() {
					names = append(names, fl.Name)
				}
				if k == Files && !slices.Equal(names, want) {
					t.Fatalf("%s: files columns %v, want %v", f.Name, names, want)
				}
				if k == Files && f.Name == "impala_iceberg_migrated_complex_test" {
					// Leaves at any depth, by full name, sorted, as Java names them.
					var leaves []string
					for _, fl := range rec.Schema().Field(len(names) - 1).Type.(*arrow.StructType).Fields() {
						leaves = append(leaves, fl.Name)
					}
					if !slices.IsSorted(leaves) || !slices.Contains(leaves, "int_bigint_map_col.key") || !slices.Contains(leaves, "struct_1_col.int_array_col.element") {
						t.Errorf("readable_metrics of a nested table: %v", leaves)
					}
				}
				if k == Entries && !slices.Equal(names, []string{"status", "snapshot_id", "sequence_number", "file_sequence_number", "data_file", "readable_metrics"}) {
					t.Fatalf("%s: entries columns %v", f.Name, names)
				}
			}
			if k == Files && tbl.Metadata.CurrentSnapshot() != nil && rows == 0 {
				t.Errorf("%s: no files", f.Name)
			}
		}
	}
}

// Filters on entries' own columns and nested data_file fields.
func TestEntriesFilter(t *testing.T) {
	f, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	counts := entryCounts(t, tbl, Entries, Options{})
	if counts[manifest.StatusDeleted] == 0 {
		t.Fatalf("no DELETED entry: %v", counts)
	}
	deleted, err := expr.NewPredicate(expr.OpEq, "status", int64(2))
	if err != nil {
		t.Fatal(err)
	}
	if got := entryCounts(t, tbl, Entries, Options{Filter: deleted}); got != [3]int{0, 0, counts[2]} {
		t.Fatalf("status = 2: %v of %v", got, counts)
	}
	data, err := expr.NewPredicate(expr.OpEq, "data_file.content", int64(0))
	if err != nil {
		t.Fatal(err)
	}
	if got := entryCounts(t, tbl, Entries, Options{Filter: data}); got != counts {
		t.Fatalf("data_file.content = 0: %v of %v", got, counts)
	}
}

// historyListed reports whether every snapshot's manifest list is there.
func historyListed(tbl *table.Table) bool {
	for i := range tbl.Metadata.Snapshots {
		if _, err := tbl.ManifestList(context.Background(), &tbl.Metadata.Snapshots[i]); err != nil {
			return false
		}
	}
	return true
}

// A reader released after its first batch stops the windowed manifest
// reads behind it: no goroutine outlives it.
func TestEntriesReleasedEarlyStopTheirReads(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	before := runtime.NumGoroutine()
	for range 20 {
		rr, err := Open(context.Background(), tbl, AllEntries, Options{BatchSize: 1}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !rr.Next() || rr.RecordBatch().NumRows() != 1 {
			t.Fatalf("first batch: %v", rr.Err())
		}
		rr.Release()
	}
	for i := 0; runtime.NumGoroutine() > before && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Fatalf("%d goroutines after the readers were released, %d before", n, before)
	}
}
