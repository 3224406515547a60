package table

import (
	"context"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/fixtures"
)

func openFixture(t *testing.T, name string) (*Table, fixtures.Table) {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Fatal(err)
	}
	tbl, err := Open(context.Background(), fx.Dir, Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	return tbl, fx
}

// The one snapshot of a fixture whose manifest list is missing upstream
// (INDEX.md, duckdb_equality_deletes "Defect").
const missingManifestListSnapshot = 7342794868382145167

// Every fixture opens from its directory, resolves to the current metadata
// INDEX.md names, and every one of its snapshots plans.
func TestEveryFixtureOpensAndEverySnapshotPlans(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 16 {
		t.Fatalf("expected 15 fixture directories holding 16 tables, found %d tables", len(all))
	}
	ctx := context.Background()
	for _, fx := range all {
		t.Run(fx.Name, func(t *testing.T) {
			tbl, err := Open(ctx, fx.Dir, Options{LocationMap: fx.LocationMap})
			if err != nil {
				t.Fatal(err)
			}
			if filepath.Clean(tbl.MetadataLocation) != fx.Metadata {
				t.Errorf("resolved %s, INDEX.md says the current metadata is %s", tbl.MetadataLocation, fx.Metadata)
			}
			if tbl.Metadata.FormatVersion != fx.FormatVersion {
				t.Errorf("format version %d, want %d", tbl.Metadata.FormatVersion, fx.FormatVersion)
			}
			if len(tbl.Metadata.Snapshots) == 0 {
				t.Fatal("fixture has no snapshots")
			}
			for _, s := range tbl.Metadata.Snapshots {
				id := s.SnapshotID
				plan, err := tbl.PlanFiles(ctx, SnapshotSelector{SnapshotID: &id})
				if id == missingManifestListSnapshot {
					if err == nil || !strings.Contains(err.Error(), "manifest list") {
						t.Errorf("snapshot %d: want an error naming the missing manifest list, got %v", id, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("snapshot %d: %v", id, err)
				}
				for _, task := range plan.Tasks {
					if task.File.RecordCount < 0 || task.DataSequenceNumber > s.SequenceNumber {
						t.Errorf("snapshot %d: file %s has record count %d and sequence %d", id, task.Path, task.File.RecordCount, task.DataSequenceNumber)
					}
				}
			}
			// The current snapshot's files all exist where the map sends them.
			plan, err := tbl.PlanFiles(ctx, SnapshotSelector{})
			if err != nil {
				t.Fatal(err)
			}
			for _, task := range plan.Tasks {
				if ok, err := tbl.IO.Exists(ctx, task.Path); err != nil || !ok {
					t.Errorf("data file %s (written as %s) does not exist: %v", task.Path, task.File.FilePath, err)
				}
			}
			for _, d := range plan.DeleteFiles {
				if ok, err := tbl.IO.Exists(ctx, d.Path); err != nil || !ok {
					t.Errorf("delete file %s does not exist: %v", d.Path, err)
				}
			}
		})
	}
}

type countCase struct {
	table    string
	snapshot int64 // 0: current
	files    int
	records  int64
	deletes  int
}

// Record counts INDEX.md states for snapshots without deletes (and the
// delete files beside them where it lists those).
func TestFixtureRecordCounts(t *testing.T) {
	cases := []countCase{
		{table: "duckdb_lineitem_iceberg", files: 1, records: 51793},
		{table: "impala_iceberg_partitioned", files: 20, records: 20},
		{table: "impala_iceberg_timestamptz_part", files: 6, records: 7},
		{table: "impala_iceberg_v3_all_types", files: 2, records: 2},
		{table: "impala_test_default_part", records: 5, files: -1},
		{table: "impala_iceberg_migrated_complex_test", files: 1, records: 1},
		{table: "duckdb_uuid", files: 2, records: 10},
		{table: "impala_iceberg_v3_deletion_vectors", snapshot: 2700858159721908397, files: 5, records: 5},
		{table: "impala_iceberg_v3_deletion_vectors", files: 5, records: 5, deletes: 2},
		{table: "impala_iceberg_v2_partitioned_position_deletes", snapshot: 2057976186205897384, files: -1, records: 20},
		{table: "impala_iceberg_v2_partitioned_position_deletes", files: -1, records: 20, deletes: 3},
	}
	ctx := context.Background()
	for _, c := range cases {
		tbl, _ := openFixture(t, c.table)
		var sel SnapshotSelector
		if c.snapshot != 0 {
			sel.SnapshotID = &c.snapshot
		}
		plan, err := tbl.PlanFiles(ctx, sel)
		if err != nil {
			t.Fatalf("%s: %v", c.table, err)
		}
		if c.files >= 0 && len(plan.Tasks) != c.files {
			t.Errorf("%s@%d: %d data files, want %d", c.table, c.snapshot, len(plan.Tasks), c.files)
		}
		if got := plan.RecordCount(); got != c.records {
			t.Errorf("%s@%d: %d records, want %d", c.table, c.snapshot, got, c.records)
		}
		if len(plan.DeleteFiles) != c.deletes {
			t.Errorf("%s@%d: %d delete files, want %d", c.table, c.snapshot, len(plan.DeleteFiles), c.deletes)
		}
	}
}

// lineitem's first snapshot (INDEX.md: version 1 has one file of 60175
// records), reached by id, by time and through the snapshot log.
func TestLineitemTimeTravel(t *testing.T) {
	tbl, _ := openFixture(t, "duckdb_lineitem_iceberg")
	ctx := context.Background()
	first := tbl.Metadata.Snapshots[0]
	for _, s := range tbl.Metadata.Snapshots {
		if s.SequenceNumber < first.SequenceNumber {
			first = s
		}
	}
	byID, err := tbl.PlanFiles(ctx, SnapshotSelector{SnapshotID: &first.SnapshotID})
	if err != nil {
		t.Fatal(err)
	}
	ts := first.TimestampMs
	byTime, err := tbl.PlanFiles(ctx, SnapshotSelector{AsOfMs: &ts})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []*Plan{byID, byTime} {
		if len(p.Tasks) != 1 || p.RecordCount() != 60175 {
			t.Errorf("first snapshot: %d files, %d records; want 1 file of 60175", len(p.Tasks), p.RecordCount())
		}
	}
	before := ts - 1
	if _, err := tbl.PlanFiles(ctx, SnapshotSelector{AsOfMs: &before}); err == nil {
		t.Error("a time before the first snapshot must be an error")
	}
	main, err := tbl.PlanFiles(ctx, SnapshotSelector{Ref: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if main.RecordCount() != 51793 {
		t.Errorf("main branch: %d records, want 51793", main.RecordCount())
	}
	if _, err := tbl.PlanFiles(ctx, SnapshotSelector{Ref: "no-such-branch"}); err == nil {
		t.Error("an unknown ref must be an error")
	}
	bad := int64(42)
	if _, err := tbl.PlanFiles(ctx, SnapshotSelector{SnapshotID: &bad}); err == nil {
		t.Error("an unknown snapshot id must be an error")
	}
}

// impala_iceberg_partitioned: SHOW PARTITIONS gives view/438296 ×8,
// click/438297 ×6, download/438298 ×6 (INDEX.md).
func TestPartitionTuplesOfLegacyV1Table(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_partitioned")
	plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, task := range plan.Tasks {
		if len(task.File.Partition) != 2 {
			t.Fatalf("partition tuple %v, want 2 fields", task.File.Partition)
		}
		hour, ok1 := task.File.Partition[0].(int32)
		action, ok2 := task.File.Partition[1].(string)
		if !ok1 || !ok2 {
			t.Fatalf("partition tuple %#v, want (int32, string)", task.File.Partition)
		}
		got[action+"/"+strconv.Itoa(int(hour))]++
	}
	want := map[string]int{"view/438296": 8, "click/438297": 6, "download/438298": 6}
	if len(got) != len(want) {
		t.Fatalf("partitions %v, want %v", got, want)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("partition %s: %d files, want %d", k, got[k], n)
		}
	}
}

// Deletes are planned beside the data files they apply to: the deletion
// vectors each name one data file; Hive's position deletes stay within
// their partition.
func TestDeletesArePlannedBesideTheirDataFiles(t *testing.T) {
	ctx := context.Background()
	tbl, _ := openFixture(t, "impala_iceberg_v3_deletion_vectors")
	plan, err := tbl.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	withDV := 0
	for _, task := range plan.Tasks {
		for _, d := range task.Deletes {
			if !d.IsDeletionVector() || tbl.Locations.Apply(d.File.ReferencedDataFile) != task.Path {
				t.Errorf("%s got delete %s referencing %s", task.Path, d.Path, d.File.ReferencedDataFile)
			}
			withDV++
		}
	}
	if withDV != 2 {
		t.Errorf("%d data files carry a deletion vector, want 2", withDV)
	}

	tbl, _ = openFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	plan, err = tbl.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	for _, task := range plan.Tasks {
		for _, d := range task.Deletes {
			if d.File.Content != manifest.ContentPositionDeletes || PartitionKey(d.File.SpecID, d.File.Partition) != PartitionKey(task.File.SpecID, task.File.Partition) {
				t.Errorf("%s (partition %v) got delete %s of partition %v", task.Path, task.File.Partition, d.Path, d.File.Partition)
			}
			if d.DataSequenceNumber < task.DataSequenceNumber {
				t.Errorf("older position delete %s applied to %s", d.Path, task.Path)
			}
		}
		if len(task.Deletes) == 0 {
			t.Errorf("%s: every partition of this table has a position delete file", task.Path)
		}
	}
}
