package table

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg"
)

// A caller that first read a table while it had no snapshot pins its
// later reads with the id metadata gave it then (NoSnapshot) and keeps
// seeing no rows after others commit; the current snapshot sees them.
func TestPinnedReadOfAnEmptyTableStaysEmpty(t *testing.T) {
	ctx := context.Background()
	tbl := createTable(t, 2, nil, nil)
	recorded := NoSnapshot
	if id := tbl.Metadata.CurrentSnapshotID; id != nil && *id != NoSnapshot {
		t.Fatalf("a new table has current snapshot %d", *id)
	}
	files := writeFiles(t, filepath.Join(t.TempDir(), "src"), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 50), 25)
	if _, err := tbl.Append(ctx, files, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	fresh := reopen(t, tbl)
	pinned, err := fresh.PlanFiles(ctx, SnapshotSelector{SnapshotID: &recorded})
	if err != nil {
		t.Fatal(err)
	}
	if len(pinned.Tasks) != 0 || pinned.RecordCount() != 0 {
		t.Errorf("pinned read of the empty state planned %d files, %d rows", len(pinned.Tasks), pinned.RecordCount())
	}
	current, err := fresh.PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if current.RecordCount() != 50 {
		t.Errorf("current read planned %d rows, want 50", current.RecordCount())
	}
	if _, err := fresh.SchemaFor(SnapshotSelector{SnapshotID: &recorded}); err != nil {
		t.Errorf("schema of the pinned empty state: %v", err)
	}
}
