package inspect

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
)

// partitionsRows reads the partitions table into canonical rows, keyed by
// their partition tuple (printed), with the schema's column positions.
func partitionsRows(t *testing.T, tbl *table.Table, opts Options) (map[string]map[string]any, *iceberg.Schema) {
	t.Helper()
	schema, err := Schema(tbl, Partitions, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, rec := range readAll(t, tbl, Partitions, opts) {
		for i := 0; i < int(rec.NumRows()); i++ {
			row := map[string]any{}
			for c, f := range schema.Fields {
				row[f.Name] = rowstest.Canonical(rec.Column(c), i, f.Type)
			}
			key := fmt.Sprintf("%#v", row["partition"])
			if _, dup := out[key]; dup {
				t.Fatalf("two rows for partition %s", key)
			}
			out[key] = row
		}
	}
	return out, schema
}

// expectedPartition is what a partition's files add up to, computed from
// a plan.
type expectedPartition struct {
	records, bytes, posRecords, eqRecords int64
	files, posFiles, eqFiles              int32
	// the newest file: its adding snapshot's time and id, its spec
	atMs, by int64
	spec     int
	dated    bool
	specs    map[int]bool
}

// unifiedOf places a file's tuple by partition field id into the table's
// unified partition type, printed as partitionsRows keys rows.
func unifiedOf(t *testing.T, tbl *table.Table, unified *iceberg.StructType, f *manifest.DataFile) string {
	t.Helper()
	if len(unified.Fields) == 0 {
		return fmt.Sprintf("%#v", nil)
	}
	spec := tbl.Metadata.SpecByID(f.SpecID)
	tuple := make([]any, len(unified.Fields))
	for j, pf := range spec.Fields {
		found := false
		for u, uf := range unified.Fields {
			if uf.ID == pf.FieldID {
				tuple[u], found = f.Partition[j], true
			}
		}
		if !found {
			t.Fatalf("partition field %d of spec %d is not in the unified type", pf.FieldID, f.SpecID)
		}
	}
	return fmt.Sprintf("%#v", tuple)
}

// addedBy finds, for each live file of the current snapshot, the oldest
// ancestor whose plan lists it: the snapshot that added it. ok is false
// when the ancestry is cut (expired snapshots), where that is unknown.
func addedBy(t *testing.T, tbl *table.Table) (map[string]*metadata.Snapshot, bool) {
	t.Helper()
	md := tbl.Metadata
	var chain []*metadata.Snapshot
	for s := md.CurrentSnapshot(); s != nil; {
		chain = append(chain, s)
		if s.ParentSnapshotID == nil {
			break
		}
		p := md.SnapshotByID(*s.ParentSnapshotID)
		if p == nil {
			return nil, false
		}
		s = p
	}
	out := map[string]*metadata.Snapshot{}
	for i := len(chain) - 1; i >= 0; i-- {
		id := chain[i].SnapshotID
		plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{SnapshotID: &id})
		if err != nil && i > 0 {
			// An older snapshot's manifests are gone (duckdb's table
			// lost one manifest list): its additions are unknown.
			t.Logf("snapshot %d: %v", id, err)
			return nil, false
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range plan.Tasks {
			if out[task.File.FilePath] == nil {
				out[task.File.FilePath] = chain[i]
			}
		}
		for _, d := range plan.DeleteFiles {
			if out[d.File.FilePath] == nil {
				out[d.File.FilePath] = chain[i]
			}
		}
	}
	return out, true
}

// expectPartitions groups the current snapshot's planned files by
// unified partition tuple.
func expectPartitions(t *testing.T, tbl *table.Table) (map[string]*expectedPartition, bool) {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	added, dated := addedBy(t, tbl)
	want := map[string]*expectedPartition{}
	count := func(f *manifest.DataFile) {
		key := unifiedOf(t, tbl, unified, f)
		p := want[key]
		if p == nil {
			p = &expectedPartition{specs: map[int]bool{}}
			want[key] = p
		}
		p.specs[f.SpecID] = true
		switch f.Content {
		case manifest.ContentData:
			p.records += f.RecordCount
			p.files++
			p.bytes += f.FileSizeInBytes
		case manifest.ContentPositionDeletes:
			p.posRecords += f.RecordCount
			p.posFiles++
		case manifest.ContentEqualityDeletes:
			p.eqRecords += f.RecordCount
			p.eqFiles++
		}
		if s := added[f.FilePath]; s != nil {
			if !p.dated || s.TimestampMs > p.atMs || s.TimestampMs == p.atMs && (s.SnapshotID > p.by || s.SnapshotID == p.by && f.SpecID > p.spec) {
				p.dated, p.atMs, p.by, p.spec = true, s.TimestampMs, s.SnapshotID, f.SpecID
			}
		}
	}
	for i := range plan.Tasks {
		count(&plan.Tasks[i].File)
	}
	for _, d := range plan.DeleteFiles {
		count(&d.File)
	}
	return want, dated
}

// checkPartitions compares the partitions table of tbl with its planned
// files grouped by partition, and its totals with the snapshot summary.
// It returns the rows.
func checkPartitions(t *testing.T, name string, tbl *table.Table) map[string]map[string]any {
	t.Helper()
	got, schema := partitionsRows(t, tbl, Options{})
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	if partitioned := schema.Fields[0].Name == "partition"; partitioned != (len(unified.Fields) > 0) {
		t.Fatalf("%s: partition column %v, unified partition type %v", name, partitioned, unified)
	}
	want, dated := expectPartitions(t, tbl)
	if len(got) != len(want) {
		t.Fatalf("%s: %d partition rows, the plan has files in %d partitions", name, len(got), len(want))
	}
	if len(unified.Fields) == 0 && len(got) > 1 {
		t.Fatalf("%s: unpartitioned table with %d rows", name, len(got))
	}
	var records, files, posRecords, eqRecords int64
	for key, w := range want {
		g := got[key]
		if g == nil {
			t.Fatalf("%s: no row for partition %s", name, key)
		}
		have := []any{g["record_count"], g["file_count"], g["total_data_file_size_in_bytes"],
			g["position_delete_record_count"], g["position_delete_file_count"],
			g["equality_delete_record_count"], g["equality_delete_file_count"]}
		exp := []any{w.records, w.files, w.bytes, w.posRecords, w.posFiles, w.eqRecords, w.eqFiles}
		if fmt.Sprint(have) != fmt.Sprint(exp) {
			t.Errorf("%s partition %s: counts %v, the plan's files give %v", name, key, have, exp)
		}
		if sid, ok := g["spec_id"]; ok && !w.specs[int(sid.(int32))] {
			t.Errorf("%s partition %s: spec %v, its files have specs %v", name, key, sid, w.specs)
		}
		if dated {
			if !w.dated {
				t.Fatalf("%s partition %s: no file with a known adding snapshot", name, key)
			}
			if g["last_updated_at"] != w.atMs*1000 || g["last_updated_snapshot_id"] != w.by {
				t.Errorf("%s partition %s: last updated at %v by %v; its newest file came at %d by %d", name, key, g["last_updated_at"], g["last_updated_snapshot_id"], w.atMs*1000, w.by)
			}
			if sid, ok := g["spec_id"]; ok && int(sid.(int32)) != w.spec {
				t.Errorf("%s partition %s: spec %v, its newest file's is %d", name, key, sid, w.spec)
			}
		}
		records += w.records
		files += int64(w.files)
		posRecords += w.posRecords
		eqRecords += w.eqRecords
	}
	if s := tbl.Metadata.CurrentSnapshot(); s != nil {
		for prop, total := range map[string]int64{"total-records": records, "total-data-files": files,
			"total-position-deletes": posRecords, "total-equality-deletes": eqRecords} {
			if v, ok := s.Summary[prop]; ok {
				if n, err := strconv.ParseInt(v, 10, 64); err == nil && n != total {
					t.Errorf("%s: the partitions add up to %s %d; the summary says %d", name, prop, total, n)
				}
			}
		}
	}
	return got
}

// The partitions table of every fixture table holds, per partition, the
// counts of the current snapshot's planned files grouped by their
// partition tuple, each partition's newest file's snapshot, and totals
// equal to the snapshot summary's.
func TestPartitionsMatchPlannedFiles(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	var posDeletes, eqDeletes, multiRow, unpartitioned bool
	for _, f := range all {
		tbl := openFixture(t, f)
		rows := checkPartitions(t, f.Name, tbl)
		for _, r := range rows {
			if _, ok := r["partition"]; ok && r["position_delete_file_count"].(int32) > 0 {
				posDeletes = true
			}
			if _, ok := r["partition"]; ok && r["equality_delete_file_count"].(int32) > 0 {
				eqDeletes = true
			}
			if _, ok := r["partition"]; !ok {
				unpartitioned = true
			}
		}
		if len(rows) > 1 {
			multiRow = true
		}
	}
	if !posDeletes || !eqDeletes || !multiRow || !unpartitioned {
		t.Fatalf("fixtures lack a case: partitioned position deletes %v, equality deletes %v, several partitions %v, unpartitioned %v", posDeletes, eqDeletes, multiRow, unpartitioned)
	}
}

// Impala's partitioned tables with deletes: the delete files are counted
// in their partitions, apart from the data files.
func TestPartitionsCountDeletes(t *testing.T) {
	for name, column := range map[string]string{
		"impala_iceberg_v2_partitioned_position_deletes": "position_delete_file_count",
		"impala_iceberg_v2_delete_equality_partitioned":  "equality_delete_file_count",
	} {
		f, err := fixtures.Get(name)
		if err != nil {
			t.Fatal(err)
		}
		tbl := openFixture(t, f)
		rows := checkPartitions(t, name, tbl)
		var deleteFiles int32
		for _, r := range rows {
			deleteFiles += r[column].(int32)
		}
		plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		if deleteFiles == 0 || int(deleteFiles) != len(plan.DeleteFiles) {
			t.Fatalf("%s: %s adds up to %d; the plan has %d delete files", name, column, deleteFiles, len(plan.DeleteFiles))
		}
	}
}

// copyFixture copies a fixture table into a scratch directory and opens
// the copy, so a test may commit to it.
func copyFixture(t *testing.T, name string) *table.Table {
	t.Helper()
	f, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	if err := os.CopyFS(dir, os.DirFS(f.Dir)); err != nil {
		t.Fatal(err)
	}
	locations := map[string]string{}
	for prefix, target := range f.LocationMap {
		locations[prefix] = strings.Replace(target, f.Dir, dir, 1)
	}
	tbl, err := table.Open(context.Background(), strings.Replace(f.Metadata, f.Dir, dir, 1), table.Options{LocationMap: locations})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

// A table with two specs: files of the new spec whose new field is null
// fall in the old spec's partition (one row, the newer spec's id, the
// newer snapshot); others get rows of their own; earlier snapshots still
// read as they were.
func TestPartitionsAcrossSpecs(t *testing.T) {
	ctx := context.Background()
	tbl := copyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	before := checkPartitions(t, "before", tbl)
	oldSnapshot := tbl.Metadata.CurrentSnapshot().SnapshotID
	plan, err := tbl.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	action0 := plan.Tasks[0].File.Partition[0]
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("id", iceberg.BucketTransform{N: 4}, "")); err != nil {
		t.Fatal(err)
	}
	spec := tbl.Metadata.DefaultSpec()
	if spec.ID != 1 || len(spec.Fields) != 2 {
		t.Fatalf("new spec %+v", spec)
	}
	dir := filepath.Dir(plan.Tasks[0].File.FilePath)
	file := func(name string, bucket any, records int64) manifest.DataFile {
		return manifest.DataFile{Content: manifest.ContentData, FilePath: dir + "/" + name, FileFormat: "PARQUET",
			Partition: []any{action0, bucket}, SpecID: spec.ID, RecordCount: records, FileSizeInBytes: 1000 + records}
	}
	// One commit adds files of both specs to partition (action0, null):
	// the newer spec's id wins the tie.
	oldSpecFile := file("old.parquet", nil, 7)
	oldSpecFile.SpecID, oldSpecFile.Partition = 0, []any{action0}
	if _, err := tbl.Append(ctx, []manifest.DataFile{file("b2.parquet", int32(2), 10), file("bnull.parquet", nil, 5), oldSpecFile}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	newSnapshot := tbl.Metadata.CurrentSnapshot()
	after := checkPartitions(t, "after", tbl)
	if len(after) != len(before)+1 {
		t.Fatalf("%d partitions before, %d after adding one new partition", len(before), len(after))
	}
	oldKey := fmt.Sprintf("%#v", []any{action0, nil})
	merged, was := after[oldKey], before[fmt.Sprintf("%#v", []any{action0})]
	if merged == nil || was == nil {
		t.Fatalf("no row for %s: %v", oldKey, after)
	}
	if merged["record_count"] != was["record_count"].(int64)+5+7 || merged["file_count"] != was["file_count"].(int32)+2 ||
		merged["spec_id"] != int32(1) || merged["last_updated_snapshot_id"] != newSnapshot.SnapshotID {
		t.Fatalf("partition %s after the append: %v (before %v)", oldKey, merged, was)
	}
	if own := after[fmt.Sprintf("%#v", []any{action0, int32(2)})]; own == nil || own["record_count"] != int64(10) || own["spec_id"] != int32(1) {
		t.Fatalf("the new spec's partition: %v", own)
	}

	// The earlier snapshot still reads as before, its tuples now under the
	// unified type.
	old, _ := partitionsRows(t, tbl, Options{SnapshotID: &oldSnapshot})
	if len(old) != len(before) || old[oldKey]["record_count"] != was["record_count"] || old[oldKey]["spec_id"] != int32(0) {
		t.Fatalf("partitions at snapshot %d: %v", oldSnapshot, old)
	}

	// Removing a file leaves a DELETED entry beside EXISTING ones in a
	// manifest that adds nothing: the file is no longer counted, the
	// others still are.
	removed := plan.Tasks[len(plan.Tasks)-1].File
	if _, err := tbl.Commit(ctx, nil, []string{removed.FilePath}, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	afterRemoval := checkPartitions(t, "after removal", tbl)
	gone := fmt.Sprintf("%#v", []any{removed.Partition[0], nil})
	if afterRemoval[gone]["record_count"] != after[gone]["record_count"].(int64)-removed.RecordCount {
		t.Fatalf("partition %s: %v records after removing a file of %d from %v", gone, afterRemoval[gone]["record_count"], removed.RecordCount, after[gone]["record_count"])
	}

	// A filter on a partition field, as for any scan.
	eq, err := expr.NewPredicate(expr.OpEq, "partition.id_bucket_4", int64(2))
	if err != nil {
		t.Fatal(err)
	}
	if rows, _ := partitionsRows(t, tbl, Options{Filter: eq}); len(rows) != 1 {
		t.Fatalf("filtered by bucket 2: %v", rows)
	}
}

// A filter on a partition field reads only the manifests that may hold
// that partition, and gives that partition's row whole.
func TestPartitionsFilterPrunesManifests(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_delete_equality_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	all := checkPartitions(t, f.Name, tbl)
	if len(all) < 2 {
		t.Fatalf("%d partitions: not a useful table", len(all))
	}
	var d any
	var want map[string]any
	for _, r := range all {
		if r["equality_delete_file_count"].(int32) > 0 {
			d, want = r["partition"].([]any)[0], r
		}
	}
	eq, err := expr.NewPredicate(expr.OpEq, "partition.d", iceberg.FormatDate(d.(int32)))
	if err != nil {
		t.Fatal(err)
	}
	counting := &countingIO{FileIO: tbl.IO, reads: map[string]int{}}
	tbl.IO = counting
	got, _ := partitionsRows(t, tbl, Options{Filter: eq})
	if len(got) != 1 || fmt.Sprint(got[fmt.Sprintf("%#v", []any{d})]) != fmt.Sprint(want) {
		t.Fatalf("filtered to d = %v: %v; unfiltered %v", d, got, want)
	}
	list, err := tbl.ManifestList(context.Background(), tbl.Metadata.CurrentSnapshot())
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, mf := range list {
		read += counting.reads[mf.Path]
	}
	if read == 0 || read >= len(list) {
		t.Fatalf("filtered: read %d of %d manifests", read, len(list))
	}
}

// A table without snapshots has no partitions; an unpartitioned one has
// no partition and spec_id columns (as Java), and a partitioned one
// keeps them.
func TestPartitionsOfEmptyTables(t *testing.T) {
	for _, spec := range []*iceberg.PartitionSpec{nil, rowstest.ByBool} {
		tbl := rowstest.NewTable(t, 2, spec, nil)
		rows, schema := partitionsRows(t, tbl, Options{})
		if len(rows) != 0 {
			t.Fatalf("spec %v: %d rows of an empty table", spec, len(rows))
		}
		first := schema.Fields[0].Name
		if (spec == nil) != (first == "record_count") || spec != nil && first != "partition" {
			t.Fatalf("spec %v: columns start with %s", spec, first)
		}
		missing := int64(42)
		if _, err := Open(context.Background(), tbl, Partitions, Options{SnapshotID: &missing}, nil); !errors.Is(err, errkind.NotFound) {
			t.Fatalf("snapshot %d of a table without snapshots: %v", missing, err)
		}
	}
}

// BenchmarkPartitions aggregates a table of 100,000 files in 100
// partitions (written in 10 commits), beside streaming the same files
// through the planner for scale.
func BenchmarkPartitions(b *testing.B) {
	ctx := context.Background()
	tbl := rowstest.NewTable(b, 2, rowstest.ByBool, nil)
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).AddField("i", iceberg.BucketTransform{N: 50}, "")); err != nil {
		b.Fatal(err)
	}
	spec := tbl.Metadata.DefaultSpec()
	const commits, perCommit = 10, 10_000
	for c := range commits {
		files := make([]manifest.DataFile, perCommit)
		for i := range files {
			n := c*perCommit + i
			files[i] = manifest.DataFile{Content: manifest.ContentData, FilePath: fmt.Sprintf("%s/data/f%07d.parquet", tbl.Metadata.Location, n),
				FileFormat: "PARQUET", Partition: []any{n/50%2 == 0, int32(n % 50)}, SpecID: spec.ID, RecordCount: 100, FileSizeInBytes: 4096}
		}
		if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("partitions", func(b *testing.B) {
		for b.Loop() {
			rr, err := Open(ctx, tbl, Partitions, Options{}, nil)
			if err != nil {
				b.Fatal(err)
			}
			rows := 0
			for rr.Next() {
				rows += int(rr.RecordBatch().NumRows())
			}
			if err := rr.Err(); err != nil {
				b.Fatal(err)
			}
			rr.Release()
			if rows != 100 {
				b.Fatalf("%d partitions", rows)
			}
		}
	})
	b.Run("stream-files", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if _, err := tbl.StreamFiles(ctx, table.SnapshotSelector{}, nil, false, func(table.DataFileTask) error { n++; return nil }); err != nil {
				b.Fatal(err)
			}
			if n != commits*perCommit {
				b.Fatalf("%d files", n)
			}
		}
	})
}
