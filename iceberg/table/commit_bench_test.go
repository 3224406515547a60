package table

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// BenchmarkAppendCommit measures small commits: one data file per append,
// on the local file system with its fsyncs, default table properties
// (manifest merging at 100 manifests).
func BenchmarkAppendCommit(b *testing.B) {
	ctx := context.Background()
	files := writeFiles(b, b.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, b.N), 1)
	tbl := createTable(b, 2, nil, nil)
	b.ResetTimer()
	for i := range b.N {
		if _, err := tbl.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "commits/s")
}

// BenchmarkPlanAfter1000Commits measures planning a table that took 1,000
// one-file appends; merging keeps its manifests under 100.
func BenchmarkPlanAfter1000Commits(b *testing.B) {
	ctx := context.Background()
	const commits = 1000
	files := writeFiles(b, b.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, commits), 1)
	tbl := createTable(b, 2, nil, nil)
	for i := range commits {
		if _, err := tbl.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for range b.N {
		plan, err := tbl.PlanFiles(ctx, SnapshotSelector{})
		if err != nil {
			b.Fatal(err)
		}
		if len(plan.Tasks) != commits {
			b.Fatalf("%d files planned", len(plan.Tasks))
		}
		b.ReportMetric(float64(plan.ManifestsRead), "manifests")
	}
}
