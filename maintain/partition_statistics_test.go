package maintain

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/inspect"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/writer/ops"
)

// statsKey names a (spec, partition) row in tests.
func statsKey(spec int32, partition []any) string { return fmt.Sprintf("%d %v", spec, partition) }

// expectedPartitionStats computes a snapshot's partition statistics
// independently of the code under test: from the entries metadata
// table (every entry of the snapshot's manifests, removed ones
// included), its partition struct mapped by field id to the statistics
// file's partition type, DVs told by their PUFFIN format. Partitions
// with no live file are left out, as the file leaves them out.
func expectedPartitionStats(t *testing.T, tbl *table.Table) map[string]*PartitionStats {
	t.Helper()
	ctx := context.Background()
	schema, err := inspect.Schema(tbl, inspect.Entries, inspect.Options{})
	if err != nil {
		t.Fatal(err)
	}
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	partType := iceberg.PartitionStatsType(unified)
	rr, err := inspect.Open(ctx, tbl, inspect.Entries, inspect.Options{}, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	field := func(st *iceberg.StructType, name string) int {
		i := slices.IndexFunc(st.Fields, func(f iceberg.NestedField) bool { return f.Name == name })
		if i < 0 {
			t.Fatalf("no field %s", name)
		}
		return i
	}
	top := &iceberg.StructType{Fields: schema.Fields}
	fileType := top.Fields[field(top, "data_file")].Type.(*iceberg.StructType)
	entryPart := fileType.Fields[field(fileType, "partition")].Type.(*iceberg.StructType)
	times := map[int64]int64{}
	for _, s := range tbl.Metadata.Snapshots {
		times[s.SnapshotID] = s.TimestampMs
	}
	out := map[string]*PartitionStats{}
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, len(schema.Fields))
			for j, f := range schema.Fields {
				row[j] = rowstest.Canonical(rec.Column(j), i, f.Type)
			}
			status := row[field(top, "status")].(int32)
			snapID, _ := row[field(top, "snapshot_id")].(int64)
			df := row[field(top, "data_file")].([]any)
			part := df[field(fileType, "partition")].([]any)
			tuple := make([]any, len(partType.Fields))
			for u, pf := range partType.Fields {
				tuple[u] = part[slices.IndexFunc(entryPart.Fields, func(f iceberg.NestedField) bool { return f.ID == pf.ID })]
			}
			spec := df[field(fileType, "spec_id")].(int32)
			k := statsKey(spec, tuple)
			p := out[k]
			if p == nil {
				p = &PartitionStats{Partition: tuple, SpecID: spec}
				out[k] = p
			}
			if ms, ok := times[snapID]; ok && (p.LastUpdatedAt == nil || ms > *p.LastUpdatedAt || ms == *p.LastUpdatedAt && snapID > *p.LastUpdatedSnapshotID) {
				p.LastUpdatedAt, p.LastUpdatedSnapshotID = &ms, &snapID
			}
			if status == int32(manifest.StatusDeleted) {
				continue
			}
			records := df[field(fileType, "record_count")].(int64)
			switch df[field(fileType, "content")].(int32) {
			case 0:
				p.DataFileCount++
				p.DataRecordCount += records
				p.TotalDataFileSize += df[field(fileType, "file_size_in_bytes")].(int64)
			case 1:
				p.PositionDeleteRecordCount += records
				if strings.EqualFold(df[field(fileType, "file_format")].(string), "puffin") {
					p.DVCount++
				} else {
					p.PositionDeleteFileCount++
				}
			case 2:
				p.EqualityDeleteFileCount++
				p.EqualityDeleteRecordCount += records
			}
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	for k, p := range out {
		if p.DataFileCount == 0 && p.PositionDeleteFileCount == 0 && p.DVCount == 0 && p.EqualityDeleteFileCount == 0 {
			delete(out, k)
		}
	}
	return out
}

// writtenPartitionStats reads the snapshot's registered partition
// statistics file with floe's Parquet reader (rowstest.ReadFile, columns
// by the spec's field ids: not the code under test's reader), after
// checking it is registered in a freshly loaded metadata with its size.
func writtenPartitionStats(t *testing.T, tbl *table.Table, snapshotID int64) [][]any {
	t.Helper()
	fresh := reopen(t, tbl)
	i := slices.IndexFunc(fresh.Metadata.PartitionStatistics, func(f metadata.PartitionStatisticsFile) bool { return f.SnapshotID == snapshotID })
	if i < 0 {
		t.Fatalf("snapshot %d has no partition statistics file in %v", snapshotID, fresh.Metadata.PartitionStatistics)
	}
	f := fresh.Metadata.PartitionStatistics[i]
	local := localPath(fresh, f.StatisticsPath)
	info, err := os.Stat(local)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() != f.FileSizeInBytes {
		t.Fatalf("registered size %d, file has %d bytes", f.FileSizeInBytes, info.Size())
	}
	if filepath.Dir(local) != filepath.Dir(localPath(fresh, fresh.MetadataLocation)) {
		t.Fatalf("partition statistics file %s is not in the metadata directory of %s", local, fresh.MetadataLocation)
	}
	schema := partitionStatsSchemaOf(t, fresh)
	checkFieldIDs(t, local, schema)
	return rowstest.ReadFile(t, local, schema)
}

func partitionStatsSchemaOf(t *testing.T, tbl *table.Table) *iceberg.Schema {
	t.Helper()
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := iceberg.PartitionStatsSchema(unified, tbl.Metadata.FormatVersion)
	if err != nil {
		t.Fatal(err)
	}
	return schema
}

// checkFieldIDs checks the file's Parquet schema: the spec's names and
// field ids at the top (dv_count only on v3), the partition fields' ids
// inside partition, required-ness as the spec's table has it.
func checkFieldIDs(t *testing.T, path string, schema *iceberg.Schema) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(strings.NewReader(string(data)), int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{"partition": 1, "spec_id": 2, "data_record_count": 3, "data_file_count": 4,
		"total_data_file_size_in_bytes": 5, "position_delete_record_count": 6, "position_delete_file_count": 7,
		"equality_delete_record_count": 8, "equality_delete_file_count": 9, "total_record_count": 10,
		"last_updated_at": 11, "last_updated_snapshot_id": 12}
	v3 := len(schema.Fields) == 13
	if v3 {
		want["dv_count"] = 13
	}
	if len(pf.Root.Children) != len(want) {
		t.Fatalf("%d top-level columns, want %d", len(pf.Root.Children), len(want))
	}
	for _, n := range pf.Root.Children {
		id, ok := want[n.Name]
		if !ok || !n.HasFieldID || n.FieldID != id {
			t.Errorf("column %s has field id %d (set %v), want %d", n.Name, n.FieldID, n.HasFieldID, id)
		}
		required := n.Name == "partition" || n.Name == "spec_id" || n.Name == "dv_count" || strings.HasPrefix(n.Name, "data_") || n.Name == "total_data_file_size_in_bytes" ||
			v3 && strings.Contains(n.Name, "delete")
		if got := n.Repetition == parquet.Required; got != required {
			t.Errorf("column %s required %v, want %v", n.Name, got, required)
		}
	}
	part := pf.NodeByFieldID(1)
	st := schema.Fields[0].Type.(*iceberg.StructType)
	if len(part.Children) != len(st.Fields) {
		t.Fatalf("partition has %d fields, want %d", len(part.Children), len(st.Fields))
	}
	for i, c := range part.Children {
		if int(c.FieldID) != st.Fields[i].ID || c.Name != st.Fields[i].Name {
			t.Errorf("partition field %d is %s (id %d), want %s (id %d)", i, c.Name, c.FieldID, st.Fields[i].Name, st.Fields[i].ID)
		}
		if i > 0 && part.Children[i-1].FieldID >= c.FieldID {
			t.Errorf("partition fields not sorted by id: %d before %d", part.Children[i-1].FieldID, c.FieldID)
		}
	}
}

// checkRowsMatch compares the file's rows with the expectation and
// checks their order (partition ascending, nulls first, then spec).
func checkRowsMatch(t *testing.T, schema *iceberg.Schema, rows [][]any, want map[string]*PartitionStats) {
	t.Helper()
	if len(rows) != len(want) {
		t.Errorf("%d rows, want %d", len(rows), len(want))
	}
	partType := schema.Fields[0].Type.(*iceberg.StructType)
	for i, row := range rows {
		k := statsKey(row[1].(int32), row[0].([]any))
		w := want[k]
		if w == nil {
			t.Errorf("row %d: unexpected partition %s", i, k)
			continue
		}
		opt := func(v *int64) any {
			if v == nil {
				return nil
			}
			return *v
		}
		var total any
		if w.PositionDeleteFileCount == 0 && w.DVCount == 0 && w.EqualityDeleteFileCount == 0 {
			total = w.DataRecordCount
		}
		wantRow := []any{row[0], w.SpecID, w.DataRecordCount, w.DataFileCount, w.TotalDataFileSize,
			w.PositionDeleteRecordCount, w.PositionDeleteFileCount, w.EqualityDeleteRecordCount, w.EqualityDeleteFileCount,
			total, opt(w.LastUpdatedAt), opt(w.LastUpdatedSnapshotID), w.DVCount}
		for j, f := range schema.Fields {
			if fmt.Sprint(row[j]) != fmt.Sprint(wantRow[j]) {
				t.Errorf("partition %s: %s = %v, want %v", k, f.Name, row[j], wantRow[j])
			}
		}
		if i == 0 {
			continue
		}
		prev := rows[i-1]
		c := 0
		for u, f := range partType.Fields {
			if c = iceberg.Compare(f.Type, prev[0].([]any)[u], row[0].([]any)[u]); c != 0 {
				break
			}
		}
		if c > 0 || c == 0 && prev[1].(int32) >= row[1].(int32) {
			t.Errorf("row %d %v sorts before row %d %v", i, row[:2], i-1, prev[:2])
		}
	}
}

// On partitioned tables written by other engines — Hive's position
// deletes, Flink's and Spark's equality deletes, Spark's v1 table of two
// fields, Impala's v3 table whose spec evolved from unpartitioned — the
// file floe writes holds what the entries metadata table adds up to, is
// registered with its size, has the spec's field ids and sorted rows.
func TestComputePartitionStatisticsFixtures(t *testing.T) {
	for _, name := range []string{
		"impala_iceberg_v2_partitioned_position_deletes",
		"impala_iceberg_v2_delete_equality_partitioned",
		"impala_iceberg_partitioned",
		"impala_test_default_part",
		"impala_iceberg_v2_equality_delete_schema_evolution",
	} {
		t.Run(name, func(t *testing.T) {
			tbl := rowstest.CopyFixture(t, name)
			want := expectedPartitionStats(t, tbl)
			res, err := ComputePartitionStatistics(context.Background(), tbl, PartitionStatisticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Partitions != len(want) || res.SnapshotID != *tbl.Metadata.CurrentSnapshotID {
				t.Fatalf("result %+v, want %d partitions", res, len(want))
			}
			rows := writtenPartitionStats(t, tbl, res.SnapshotID)
			checkRowsMatch(t, partitionStatsSchemaOf(t, tbl), rows, want)
			var deletes int32
			for _, w := range want {
				deletes += w.PositionDeleteFileCount + w.EqualityDeleteFileCount + w.DVCount
			}
			if deletes == 0 && name != "impala_iceberg_partitioned" && name != "impala_test_default_part" {
				t.Fatalf("fixture %s: no delete file counted", name)
			}
		})
	}
}

// Counts INDEX.md states, so the expectation itself is checked: Hive's
// table has three partitions of 20 rows, 10 of them position-deleted by
// three delete files.
func TestPartitionStatisticsImpalaPositionDeletesKnownCounts(t *testing.T) {
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	res, err := ComputePartitionStatistics(context.Background(), tbl, PartitionStatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadPartitionStatistics(context.Background(), tbl, res.Path)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	var records, deleted int64
	var deleteFiles int32
	for _, p := range rows {
		parts = append(parts, fmt.Sprint(p.Partition[0]))
		records += p.DataRecordCount
		deleted += p.PositionDeleteRecordCount
		deleteFiles += p.PositionDeleteFileCount
		if p.TotalRecordCount != nil {
			t.Errorf("partition %v with position deletes has total_record_count %d", p.Partition, *p.TotalRecordCount)
		}
	}
	if fmt.Sprint(parts) != "[click download view]" || records != 20 || deleted != 10 || deleteFiles != 3 {
		t.Fatalf("partitions %v, %d records, %d deleted by %d files; want [click download view], 20, 10, 3", parts, records, deleted, deleteFiles)
	}
}

// An unpartitioned table has no partition statistics (the spec's
// partition tuple has a field; Java refuses too), and nothing is left
// in its metadata directory.
func TestPartitionStatisticsRefusals(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
	before := metadataFiles(t, tbl)
	if _, err := ComputePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("unpartitioned: %v, want InvalidArgument", err)
	}
	missing := int64(12345)
	if _, err := ComputePartitionStatistics(ctx, rowstest.CopyFixture(t, "impala_iceberg_partitioned"), PartitionStatisticsOptions{SnapshotID: &missing}); !errors.Is(err, errkind.NotFound) {
		t.Fatalf("missing snapshot: %v, want NotFound", err)
	}
	if after := metadataFiles(t, tbl); !slices.Equal(before, after) {
		t.Fatalf("metadata directory changed: %v -> %v", before, after)
	}
}

// A commit refused (the snapshot is gone when it is built) deletes the
// file it would have registered.
func TestPartitionStatisticsRefusedCommitLeavesNoFile(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_partitioned")
	before := metadataFiles(t, tbl)
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	gone := &metadata.Snapshot{SnapshotID: 777, TimestampMs: 1}
	rows, err := computePartitionStats(ctx, tbl, tbl.Metadata.CurrentSnapshot(), iceberg.PartitionStatsType(unified))
	if err != nil {
		t.Fatal(err)
	}
	_, err = registerPartitionStatistics(ctx, tbl, gone, iceberg.PartitionStatsType(unified), rows)
	if !errors.Is(err, errkind.NotFound) {
		t.Fatalf("register for a missing snapshot: %v, want NotFound", err)
	}
	after := metadataFiles(t, tbl)
	if !slices.Equal(before, after) {
		t.Fatalf("metadata directory changed: %v -> %v", before, after)
	}
}

// localPath is where a path the table's metadata names is on disk.
func localPath(tbl *table.Table, path string) string {
	return strings.TrimPrefix(tbl.Locations.Apply(path), "file://")
}

// metadataFiles lists the table's metadata directory (without commit
// locks, which are no files of the table).
func metadataFiles(t *testing.T, tbl *table.Table) []string {
	t.Helper()
	dir := filepath.Dir(localPath(tbl, tbl.MetadataLocation))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		out = append(out, e.Name())
	}
	return out
}

// statsLine prints a row of partition statistics, pointers followed.
func statsLine(p *PartitionStats) string {
	opt := func(v *int64) string {
		if v == nil {
			return "null"
		}
		return fmt.Sprint(*v)
	}
	return fmt.Sprintf("%s data %d/%d/%d pos %d/%d dv %d eq %d/%d total %s at %s by %s", statsKey(p.SpecID, p.Partition),
		p.DataRecordCount, p.DataFileCount, p.TotalDataFileSize, p.PositionDeleteRecordCount, p.PositionDeleteFileCount, p.DVCount,
		p.EqualityDeleteRecordCount, p.EqualityDeleteFileCount, opt(p.TotalRecordCount), opt(p.LastUpdatedAt), opt(p.LastUpdatedSnapshotID))
}

// checkIncremental brings the partition statistics forward to the
// table's current snapshot and checks that the file was merged from
// base's, not recomputed, and holds what a full computation over every
// manifest gives, and what the entries metadata table adds up to.
func checkIncremental(t *testing.T, tbl *table.Table, base int64, what string) (PartitionStatisticsResult, []*PartitionStats) {
	t.Helper()
	ctx := context.Background()
	tbl = reopen(t, tbl)
	res, err := UpdatePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if res.MergedFrom != base || res.SnapshotID != *tbl.Metadata.CurrentSnapshotID {
		t.Fatalf("%s: merged from %d for %d, want from %d for the current %d", what, res.MergedFrom, res.SnapshotID, base, *tbl.Metadata.CurrentSnapshotID)
	}
	got, err := ReadPartitionStatistics(ctx, tbl, res.Path)
	if err != nil {
		t.Fatal(err)
	}
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	full, err := computePartitionStats(ctx, tbl, tbl.Metadata.CurrentSnapshot(), iceberg.PartitionStatsType(unified))
	if err != nil {
		t.Fatal(err)
	}
	var g, f []string
	for _, p := range got {
		g = append(g, statsLine(p))
	}
	for _, p := range full {
		f = append(f, statsLine(p))
	}
	if strings.Join(g, "\n") != strings.Join(f, "\n") {
		t.Fatalf("%s: incremental\n%s\nfull\n%s", what, strings.Join(g, "\n"), strings.Join(f, "\n"))
	}
	checkRowsMatch(t, partitionStatsSchemaOf(t, tbl), writtenPartitionStats(t, tbl, res.SnapshotID), expectedPartitionStats(t, tbl))
	return res, got
}

// On floe-written tables partitioned by b, v2 (position delete files) and
// v3 (deletion vectors): the partition statistics brought forward after
// each of an append, a delete of whole files, a merge-on-read delete, an equality delete, a
// copy-on-write delete that empties a partition, a manifest rewrite and
// a compaction equal a full computation, read from the previous
// snapshot's file and the new snapshot's manifests only.
func TestUpdatePartitionStatisticsIncremental(t *testing.T) {
	for _, version := range []int{2, 3} {
		t.Run(fmt.Sprintf("v%d", version), func(t *testing.T) {
			ctx := context.Background()
			tbl, input := smallFilesTable(t, version, 200, 50)
			first, err := ComputePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if first.Partitions != 3 {
				t.Fatalf("%d partitions, want 3 (b true, false, null)", first.Partitions)
			}
			base := first.SnapshotID
			var rows []*PartitionStats
			step := func(what string, do func()) {
				t.Helper()
				do()
				var res PartitionStatisticsResult
				res, rows = checkIncremental(t, tbl, base, what)
				base = res.SnapshotID
			}
			step("append", func() {
				rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), input[:30])
				defer rr.Release()
				if _, err := ops.Append(ctx, tbl, rr, table.CommitOptions{}); err != nil {
					t.Fatal(err)
				}
			})
			step("copy-on-write delete of whole files", func() {
				// The last append's files hold ids 150..199 alone: they
				// are removed and none is written, so the removals
				// alone date the partitions.
				if _, err := ops.DeleteRows(ctx, tbl, pred(t, expr.OpGtEq, "id", int64(150)), ops.RowOptions{Mode: ops.CopyOnWrite}); err != nil {
					t.Fatal(err)
				}
				if s := reopen(t, tbl).Metadata.CurrentSnapshot(); s.Summary["added-data-files"] != "" && s.Summary["added-data-files"] != "0" {
					t.Fatalf("the delete added files: %v", s.Summary)
				}
			})
			step("merge-on-read delete", func() {
				deleteByPosition(t, tbl, pred(t, expr.OpLt, "id", int64(20)))
			})
			var positionFiles, vectors int32
			for _, p := range rows {
				positionFiles += p.PositionDeleteFileCount
				vectors += p.DVCount
			}
			if version == 2 && (positionFiles == 0 || vectors != 0) || version == 3 && (vectors == 0 || positionFiles != 0) {
				t.Fatalf("v%d: %d position delete files and %d vectors counted", version, positionFiles, vectors)
			}
			if version == 2 {
				step("equality delete", func() { deleteByEquality(t, tbl, true, 40, 42, 44) })
			}
			step("copy-on-write delete of a whole partition", func() {
				if _, err := ops.DeleteRows(ctx, tbl, pred(t, expr.OpIsNull, "b"), ops.RowOptions{Mode: ops.CopyOnWrite}); err != nil {
					t.Fatal(err)
				}
			})
			step("rewrite manifests", func() {
				if _, err := tbl.RewriteManifests(ctx, table.RewriteManifestsOptions{}); err != nil {
					t.Fatal(err)
				}
			})
			step("compaction", func() {
				if _, err := RewriteDataFiles(ctx, tbl, RewriteDataFilesOptions{RewriteAll: true}); err != nil {
					t.Fatal(err)
				}
			})
			fresh := reopen(t, tbl)
			files := fresh.Metadata.PartitionStatistics
			last, err := ReadPartitionStatistics(ctx, fresh, files[len(files)-1].StatisticsPath)
			if err != nil {
				t.Fatal(err)
			}
			if len(last) != 2 {
				t.Fatalf("after emptying the null partition: %d rows, want 2", len(last))
			}
		})
	}
}

// Spark's v3 table of five one-row files and two deletion vectors, its
// spec then evolved to truncate(10, i): its files stay one row of spec 0
// (partition null) with dv_count 2 and no position delete file; rows
// appended under the new spec and deleted by a vector are counted in
// their own partitions, brought forward from the first file across the
// spec change, and a one-row file whose row is deleted is removed.
func TestPartitionStatisticsDeletionVectorsFixture(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v3_deletion_vectors")
	if _, err := tbl.Apply(ctx, (&action.UpdateSpec{}).AddField("i", iceberg.TruncateTransform{Width: 10}, "i_trunc")); err != nil {
		t.Fatal(err)
	}
	first, err := ComputePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadPartitionStatistics(ctx, tbl, first.Path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].SpecID != 0 || got[0].Partition[0] != nil || got[0].DataFileCount != 5 || got[0].DataRecordCount != 5 ||
		got[0].DVCount != 2 || got[0].PositionDeleteFileCount != 0 || got[0].PositionDeleteRecordCount != 2 || got[0].TotalRecordCount != nil {
		t.Fatalf("the fixture's files: %v", statsLine(got[0]))
	}
	checkRowsMatch(t, partitionStatsSchemaOf(t, tbl), writtenPartitionStats(t, tbl, first.SnapshotID), expectedPartitionStats(t, tbl))

	schema := tbl.Metadata.CurrentSchema()
	rr := rowstest.Reader(t, schema, [][]any{{int32(10)}, {int32(11)}, {int32(12)}, {int32(25)}})
	_, err = ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	deleteByPosition(t, tbl, pred(t, expr.OpIn, "i", int64(3), int64(11)))
	res, rows := checkIncremental(t, tbl, first.SnapshotID, "append and delete under the new spec")
	want := []string{
		"0 [<nil>] data 4/4/", "pos 2/0 dv 2 eq 0/0 total null", // the file of 3 removed
		"1 [10] data 3/1/", "pos 1/0 dv 1 eq 0/0 total null",
		"1 [20] data 1/1/", "pos 0/0 dv 0 eq 0/0 total 1",
	}
	if res.Partitions != len(want)/2 {
		t.Fatalf("%d partitions, want %d", res.Partitions, len(want)/2)
	}
	for i, p := range rows {
		line := statsLine(p)
		if !strings.HasPrefix(line, want[2*i]) || !strings.Contains(line, want[2*i+1]) {
			t.Errorf("row %d: %s, want %s…%s", i, line, want[2*i], want[2*i+1])
		}
	}
}

// A file written before the spec gained a field lacks its column: read
// back, that field is null, and the statistics brought forward across
// the change equal a full computation.
func TestUpdatePartitionStatisticsAfterSpecGrew(t *testing.T) {
	ctx := context.Background()
	tbl, input := smallFilesTable(t, 2, 60, 30)
	first, err := ComputePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Apply(ctx, (&action.UpdateSpec{}).AddField("i", iceberg.BucketTransform{N: 2}, "i_bucket")); err != nil {
		t.Fatal(err)
	}
	old, err := ReadPartitionStatistics(ctx, tbl, first.Path)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range old {
		if len(p.Partition) != 2 || p.Partition[1] != nil {
			t.Fatalf("old row read under the grown type: %v", statsLine(p))
		}
	}
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), input[:20])
	_, err = ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	_, rows := checkIncremental(t, tbl, first.SnapshotID, "append under the grown spec")
	specs := map[int32]int{}
	for _, p := range rows {
		specs[p.SpecID]++
	}
	if specs[0] != 3 || specs[1] < 4 {
		t.Fatalf("rows per spec %v, want 3 of spec 0 and b × i_bucket of spec 1", specs)
	}
}

// A base file whose counts are wrong (one record too many) is not carried
// forward: its totals differ from the next snapshot's summary, and the
// statistics are computed in full.
func TestUpdatePartitionStatisticsDistrustsAWrongBase(t *testing.T) {
	ctx := context.Background()
	tbl, input := smallFilesTable(t, 2, 60, 30)
	unified, err := tbl.UnifiedPartitionType()
	if err != nil {
		t.Fatal(err)
	}
	partType := iceberg.PartitionStatsType(unified)
	rows, err := computePartitionStats(ctx, tbl, tbl.Metadata.CurrentSnapshot(), partType)
	if err != nil {
		t.Fatal(err)
	}
	rows[0].DataRecordCount++
	if _, err := registerPartitionStatistics(ctx, tbl, tbl.Metadata.CurrentSnapshot(), partType, rows); err != nil {
		t.Fatal(err)
	}
	rr := rowstest.Reader(t, tbl.Metadata.CurrentSchema(), input[:10])
	_, err = ops.Append(ctx, tbl, rr, table.CommitOptions{})
	rr.Release()
	if err != nil {
		t.Fatal(err)
	}
	res, err := UpdatePartitionStatistics(ctx, tbl, PartitionStatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.MergedFrom != 0 {
		t.Fatalf("merged from the wrong base %d", res.MergedFrom)
	}
	checkRowsMatch(t, partitionStatsSchemaOf(t, tbl), writtenPartitionStats(t, tbl, res.SnapshotID), expectedPartitionStats(t, tbl))
}
