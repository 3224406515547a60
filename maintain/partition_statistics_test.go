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
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/inspect"
	"github.com/floedb/floe/reader/parquet"
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
