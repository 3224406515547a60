package table

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/committest"
)

// RewriteFiles adds delete files at the data sequence numbers it is given
// (a delete file rewrite keeps the largest of those it merges), and an
// added delete file without one is refused.
func TestRewriteFilesAddsDeleteFilesAtTheirSequenceNumbers(t *testing.T) {
	ctx := context.Background()
	tbl, files, _ := rewriteSetup(t)
	dir := t.TempDir()
	var olds []manifest.DataFile
	for i, name := range []string{"pos1.parquet", "pos2.parquet"} {
		pos, err := committest.WritePositionDeletes(filepath.Join(dir, name), 0, []any{}, []committest.Position{{Path: files[i].FilePath, Pos: 2}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tbl.RowDelta(ctx, nil, []manifest.DataFile{pos}, CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		olds = append(olds, pos)
	}
	keep := tbl.Metadata.CurrentSnapshot().SequenceNumber
	merged, err := committest.WritePositionDeletes(filepath.Join(dir, "merged.parquet"), 0, []any{}, []committest.Position{{Path: files[0].FilePath, Pos: 2}, {Path: files[1].FilePath, Pos: 2}})
	if err != nil {
		t.Fatal(err)
	}
	removed := []string{olds[0].FilePath, olds[1].FilePath}
	if _, err := tbl.RewriteFiles(ctx, nil, removed, []manifest.DataFile{merged}, RewriteOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a delete file without a sequence number: %v", err)
	}
	res, err := tbl.RewriteFiles(ctx, nil, removed, []manifest.DataFile{merged},
		RewriteOptions{AddedDeleteSequenceNumbers: map[string]int64{merged.FilePath: keep}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := reopen(t, tbl).PlanFiles(ctx, SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.DeleteFiles) != 1 || plan.DeleteFiles[0].File.FilePath != merged.FilePath || plan.DeleteFiles[0].DataSequenceNumber != keep ||
		tbl.Metadata.SnapshotByID(res.SnapshotID).SequenceNumber == keep {
		t.Fatalf("delete files %+v, want %s at %d", plan.DeleteFiles, merged.FilePath, keep)
	}
}
