package inspect

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/reader/scan"
)

// positionDeleteFixtures are the real tables with position delete files
// (Impala, Parquet) or deletion vectors (Impala, Puffin, v3) and no
// equality deletes, so every row a scan no longer returns is a position
// some delete file names.
var positionDeleteFixtures = []string{
	"impala_iceberg_v2_partitioned_position_deletes",
	"impala_iceberg_v2_positional_not_all_data_files_have_delete_files",
	"impala_iceberg_v3_deletion_vectors",
}

// pairsOf is the (file_path, pos) pairs of position_deletes batches.
func pairsOf(t *testing.T, recs []arrow.RecordBatch) []string {
	t.Helper()
	var out []string
	for _, rec := range recs {
		paths := rec.Column(colIndex(t, rec, "file_path")).(*array.String)
		pos := rec.Column(colIndex(t, rec, "pos")).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			out = append(out, paths.Value(i)+"#"+strconv.FormatInt(pos.Value(i), 10))
		}
	}
	sort.Strings(out)
	return out
}

// located applies the table's location map to pairs' data file paths.
func located(tbl *table.Table, pairs []string) []string {
	out := make([]string, len(pairs))
	for i, p := range pairs {
		h := lastHash(p)
		out[i] = tbl.Locations.Apply(p[:h]) + p[h:]
	}
	sort.Strings(out)
	return out
}

func colIndex(t *testing.T, rec arrow.RecordBatch, name string) int {
	t.Helper()
	idx := rec.Schema().FieldIndices(name)
	if len(idx) != 1 {
		t.Fatalf("no column %q in %s", name, rec.Schema())
	}
	return idx[0]
}

// deletedByScan is the (file, pos) pairs of the current snapshot's live
// data files (positions 0..record_count-1 from the manifests) that a
// full scan's _file and _pos no longer return: what the delete files
// delete, found without reading them.
func deletedByScan(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	ctx := context.Background()
	counts := map[string]int64{}
	list, err := tbl.ManifestList(ctx, tbl.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range list {
		if mf.Content != manifest.ManifestContentData {
			continue
		}
		entries, err := tbl.ReadManifest(ctx, mf)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.Status != manifest.StatusDeleted {
				counts[e.DataFile.FilePath] = e.DataFile.RecordCount
			}
		}
	}
	s, err := scan.New(ctx, tbl, scan.Options{Columns: []string{"_file", "_pos"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	kept := map[string]bool{}
	for rr.Next() {
		rec := rr.RecordBatch()
		files := rec.Column(0).(*array.String)
		pos := rec.Column(1).(*array.Int64)
		for i := 0; i < int(rec.NumRows()); i++ {
			kept[files.Value(i)+"#"+strconv.FormatInt(pos.Value(i), 10)] = true
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	var out []string
	for f, n := range counts {
		for p := int64(0); p < n; p++ {
			if k := f + "#" + strconv.FormatInt(p, 10); !kept[k] {
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// The table's (file_path, pos) pairs are exactly the rows a scan drops,
// and as many as the snapshot summary's total-position-deletes.
func TestPositionDeletesAreTheDeletedRows(t *testing.T) {
	for _, name := range positionDeleteFixtures {
		f, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tbl := openFixture(t, f)
		// Impala's delete files name data files by a full hdfs:// URI
		// where the manifests have the bare path: the table shows what the
		// delete files hold, compared here where the location map sends
		// both, as the scan matches them.
		got := located(tbl, pairsOf(t, readAll(t, tbl, PositionDeletes, Options{})))
		want := located(tbl, deletedByScan(t, tbl))
		if len(want) == 0 {
			t.Fatalf("%s: a scan drops no rows", name)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: position_deletes holds\n%v\nthe scan drops\n%v", name, got, want)
		}
		if total, ok := tbl.Metadata.CurrentSnapshot().Summary["total-position-deletes"]; ok && total != strconv.Itoa(len(got)) {
			t.Errorf("%s: %d rows, the summary says total-position-deletes %s", name, len(got), total)
		}
	}
}

// The columns follow Java's PositionDeletesTable; each row's
// delete_file_path is a live position delete file of the snapshot and
// spec_id and partition are that file's.
func TestPositionDeletesColumns(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	schema, err := Schema(tbl, PositionDeletes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fld := range schema.Fields {
		names = append(names, fld.Name)
	}
	if fmt.Sprint(names) != "[file_path pos row partition spec_id delete_file_path]" {
		t.Fatalf("columns %v", names)
	}
	files := map[string]string{} // delete file → its partition and spec, from delete_files
	for _, rec := range readAll(t, tbl, DeleteFiles, Options{Columns: []string{"file_path", "partition", "spec_id"}}) {
		for i := 0; i < int(rec.NumRows()); i++ {
			files[rec.Column(0).ValueStr(i)] = rec.Column(1).ValueStr(i) + "/" + rec.Column(2).ValueStr(i)
		}
	}
	n := 0
	for _, rec := range readAll(t, tbl, PositionDeletes, Options{}) {
		for i := 0; i < int(rec.NumRows()); i++ {
			n++
			df := rec.Column(5).ValueStr(i)
			want, ok := files[df]
			if !ok {
				t.Fatalf("delete_file_path %s is not a live delete file", df)
			}
			if got := rec.Column(3).ValueStr(i) + "/" + rec.Column(4).ValueStr(i); got != want {
				t.Errorf("row %d of %s: partition/spec %s, delete_files says %s", i, df, got, want)
			}
			if !rec.Column(2).IsNull(i) {
				t.Errorf("row %d: row is not null", i)
			}
		}
	}
	if n == 0 {
		t.Fatal("no rows")
	}
}

// A filter on file_path keeps that data file's positions; a limit stops
// early; a snapshot before the deletes shows none; an unknown snapshot
// is NotFound.
func TestPositionDeletesFilterLimitSnapshot(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_positional_not_all_data_files_have_delete_files")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	all := pairsOf(t, readAll(t, tbl, PositionDeletes, Options{}))
	byFile := map[string][]string{}
	for _, p := range all {
		file := p[:len(p)-len(p[lastHash(p):])]
		byFile[file] = append(byFile[file], p)
	}
	if len(byFile) < 2 {
		t.Fatalf("want deletes on several data files, got %v", all)
	}
	for file, want := range byFile {
		eq, err := expr.NewPredicate(expr.OpEq, "file_path", file)
		if err != nil {
			t.Fatal(err)
		}
		got := pairsOf(t, readAll(t, tbl, PositionDeletes, Options{Filter: eq}))
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("file_path = %s: %v, want %v", file, got, want)
		}
	}
	if got := pairsOf(t, readAll(t, tbl, PositionDeletes, Options{Limit: 1})); len(got) != 1 {
		t.Errorf("limit 1: %d rows", len(got))
	}
	first := tbl.Metadata.Snapshots[0].SnapshotID
	if got := pairsOf(t, readAll(t, tbl, PositionDeletes, Options{SnapshotID: &first})); len(got) != 0 {
		t.Errorf("snapshot %d, before any delete: %v", first, got)
	}
	missing := int64(42)
	if _, err := Open(context.Background(), tbl, PositionDeletes, Options{SnapshotID: &missing}, memory.DefaultAllocator); !errors.Is(err, errkind.NotFound) {
		t.Errorf("unknown snapshot: %v", err)
	}
}

func lastHash(s string) int {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == '#' {
			return i
		}
	}
	return len(s)
}

// A v3 table's rows carry the deletion vector's blob offset and size, as
// delete_files lists them, and its data file is the vector's
// referenced_data_file; a limit holds.
func TestPositionDeletesDeletionVectors(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v3_deletion_vectors")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	dvs := map[string]string{} // delete file#offset → referenced data file/offset/size
	for _, rec := range readAll(t, tbl, DeleteFiles, Options{Columns: []string{"file_path", "referenced_data_file", "content_offset", "content_size_in_bytes", "file_format"}}) {
		for i := 0; i < int(rec.NumRows()); i++ {
			if rec.Column(4).ValueStr(i) != "PUFFIN" {
				t.Fatalf("delete file %s is %s", rec.Column(0).ValueStr(i), rec.Column(4).ValueStr(i))
			}
			dvs[rec.Column(0).ValueStr(i)+"#"+rec.Column(2).ValueStr(i)] = rec.Column(1).ValueStr(i) + "/" + rec.Column(2).ValueStr(i) + "/" + rec.Column(3).ValueStr(i)
		}
	}
	recs := readAll(t, tbl, PositionDeletes, Options{})
	if got := recs[0].Schema().Field(recs[0].Schema().NumFields() - 2).Name; got != "content_offset" {
		t.Fatalf("v3 columns missing: %s", recs[0].Schema())
	}
	n := 0
	for _, rec := range recs {
		c := func(name string) arrow.Array { return rec.Column(colIndex(t, rec, name)) }
		for i := 0; i < int(rec.NumRows()); i++ {
			n++
			key := c("delete_file_path").ValueStr(i) + "#" + c("content_offset").ValueStr(i)
			got := c("file_path").ValueStr(i) + "/" + c("content_offset").ValueStr(i) + "/" + c("content_size_in_bytes").ValueStr(i)
			if want, ok := dvs[key]; !ok || got != want {
				t.Errorf("row %d: %s, delete_files says %q", i, got, want)
			}
		}
	}
	if n == 0 {
		t.Fatal("no rows")
	}
	if got := pairsOf(t, readAll(t, tbl, PositionDeletes, Options{Limit: 1})); len(got) != 1 {
		t.Errorf("limit 1: %d rows", len(got))
	}
}

// The partition struct's fields take the smallest ids no schema of the
// table uses, in order, as Java reassigns them; a v2 table has no
// content_offset column.
func TestPositionDeletesPartitionIDs(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	schema, err := Schema(tbl, PositionDeletes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	used := map[int]bool{}
	for _, s := range tbl.Metadata.Schemas {
		fieldIDs(s.Fields, used)
	}
	part, ok := schema.FindFieldByName("partition")
	if !ok {
		t.Fatal("no partition column")
	}
	next := 1
	for _, pf := range part.Type.(*iceberg.StructType).Fields {
		for used[next] {
			next++
		}
		if pf.ID != next {
			t.Errorf("partition field %s has id %d, want %d (the smallest the table's schemas leave)", pf.Name, pf.ID, next)
		}
		next++
	}
	if _, ok := schema.FindFieldByName("content_offset"); ok {
		t.Error("a v2 table has content_offset")
	}
}
