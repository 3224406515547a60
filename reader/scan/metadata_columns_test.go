package scan

import (
	"context"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// INDEX.md: iceberg-v3-row-lineage.test gives 1,0,1 2,1,2 3,2,3 both before
// the compaction (computed from first_row_id and sequence numbers) and
// after it (stored in the rewritten file).
func TestRowLineageComputedAndStored(t *testing.T) {
	cols := []string{"i", "_row_id", "_last_updated_sequence_number"}
	for _, s := range []*int64{nil, snap(2872597867664652808)} {
		_, rows := scanFixture(t, "impala_iceberg_v3_row_lineage", Options{Columns: cols, SnapshotID: s})
		expectRows(t, "row lineage", sortedRows(rows), "1,0,1", "2,1,2", "3,2,3")
	}
	// The current snapshot's file really stores the columns: the plan reads
	// them from the file rather than computing them.
	fx, _ := fixtures.Get("impala_iceberg_v3_row_lineage")
	ctx := context.Background()
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := New(ctx, tbl, Options{Columns: cols})
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Tasks()) != 1 {
		t.Fatalf("%d tasks, want the one compacted file", len(sc.Tasks()))
	}
	r, err := sc.Tasks()[0].open(ctx, readEnv{files: tbl.IO, alloc: memory.DefaultAllocator, schema: sc.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Release()
	if r.plans[1].node == nil || r.plans[2].node == nil {
		t.Error("the compacted file's stored _row_id and _last_updated_sequence_number were not found by field id")
	}
}

// INDEX.md: in the action=view file, positions 0, 3 and 7 survive the
// position deletes; _pos names the original positions.
func TestPosAfterDeletesAndPartitionColumns(t *testing.T) {
	_, rows := scanFixture(t, "impala_iceberg_v2_partitioned_position_deletes", Options{Columns: []string{"action", "_pos", "_spec_id", "_partition"}})
	var view []string
	for _, r := range rows {
		if r[0] == "'view'" {
			view = append(view, r[1])
			if r[2] != "0" || r[3] != `{"action":"view"}` {
				t.Errorf("view row: _spec_id %s, _partition %s", r[2], r[3])
			}
		}
	}
	expectRows(t, "view positions", view, "0", "3", "7")
	_, rows = scanFixture(t, "impala_test_default_part", Options{Columns: []string{"i", "_spec_id", "_partition"}})
	// Spec 0 is unpartitioned, spec 1 identity(j): the unified partition
	// type has j's field, null for files of spec 0.
	expectRows(t, "partition evolution", sortedRows(rows),
		`1,0,{"j":null}`, `2,0,{"j":null}`, `3,1,{"j":5}`, `4,1,{"j":10}`, `5,1,{"j":null}`)
	_, rows = scanFixture(t, "duckdb_uuid", Options{Columns: []string{"_file"}})
	files := map[string]bool{}
	for _, r := range rows {
		files[r[0]] = true
	}
	if len(files) != 2 {
		t.Errorf("_file names %d files, want 2", len(files))
	}
}
