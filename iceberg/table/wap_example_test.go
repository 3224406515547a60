package table_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/testtable"
)

// dataFiles writes n random rows of testtable's schema as Parquet files
// of a scratch table under dir and returns their entries, as a writer
// hands them to a commit.
func dataFiles(dir string, seed uint64, n int) []manifest.DataFile {
	if _, err := testtable.Build(dir, testtable.Options{Rows: testtable.RandomRows(seed, n), RowsPerFile: n}); err != nil {
		panic(err)
	}
	src, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		panic(err)
	}
	plan, err := src.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		panic(err)
	}
	var out []manifest.DataFile
	for _, task := range plan.Tasks {
		out = append(out, task.File)
	}
	return out
}

// Write-audit-publish: with write.wap.enabled, a commit carrying a wap id
// is staged (main does not move), audited by reading the staged snapshot
// by id, and published by cherry-pick; the wap id publishes once.
func ExampleTable_CherryPick() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "wap")
	defer os.RemoveAll(dir)
	t, err := table.Create(ctx, nil, filepath.Join(dir, "t"), testtable.Schema(), nil, nil,
		map[string]string{table.PropWAPEnabled: "true"}, 2)
	if err != nil {
		panic(err)
	}
	if _, err := t.Append(ctx, dataFiles(filepath.Join(dir, "a"), 1, 10), table.CommitOptions{}); err != nil {
		panic(err)
	}
	main := *t.Metadata.CurrentSnapshotID

	// Write: staged under the wap id.
	staged, err := t.Append(ctx, dataFiles(filepath.Join(dir, "b"), 2, 5), table.CommitOptions{WapID: "nightly-2026-12-06"})
	if err != nil {
		panic(err)
	}
	fmt.Println("main moved:", *t.Metadata.CurrentSnapshotID != main)

	// Audit: the staged snapshot reads by its id.
	plan, err := t.PlanFiles(ctx, table.SnapshotSelector{SnapshotID: &staged.SnapshotID})
	if err != nil {
		panic(err)
	}
	fmt.Println("staged rows:", plan.RecordCount())

	// Publish: main still at the staged snapshot's parent, so it
	// fast-forwards.
	res, err := t.CherryPick(ctx, staged.SnapshotID, table.CommitOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("fast-forward:", res.FastForward, "published:", res.PublishedWapID)

	// Once only.
	_, err = t.CherryPick(ctx, staged.SnapshotID, table.CommitOptions{})
	fmt.Println("again:", errors.Is(err, table.ErrPublished))
	// Output:
	// main moved: false
	// staged rows: 15
	// fast-forward: true published: nightly-2026-12-06
	// again: true
}
