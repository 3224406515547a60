package table

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/internal/commitstep"
)

// A caller's cancellation that arrives once the commit is publishing does
// not cut the publish short: the result says what happened (here, the
// commit), and every file the new version names exists. Cut short, a
// store could apply the write after the client gave up and the commit
// deleted its files.
func TestCancelDuringPublishDoesNotCutItShort(t *testing.T) {
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, 20), 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	commitstep.SetHook(func(step string) {
		if step == "manifest-list" { // the last step before publishing
			cancel()
		}
	})
	defer commitstep.SetHook(nil)
	res, err := tbl.Append(ctx, files, CommitOptions{})
	if err != nil {
		t.Fatalf("the commit failed although its publish had begun: %v", err)
	}
	after := reopen(t, tbl)
	if after.Metadata.CurrentSnapshot() == nil || after.Metadata.CurrentSnapshot().SnapshotID != res.SnapshotID {
		t.Fatalf("committed %d; the table's current snapshot is %v", res.SnapshotID, after.Metadata.CurrentSnapshot())
	}
	for _, p := range livePaths(t, after) {
		if !exists(p) {
			t.Fatalf("the published version names missing %s", p)
		}
	}
}
