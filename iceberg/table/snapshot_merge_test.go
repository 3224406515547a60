package table

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// Many small appends: with merging, the current snapshot's manifests stay
// below the minimum count to merge; every file keeps the sequence number
// (and, in v3, the row ids) its own commit gave it.
func TestManifestMergingBoundsManifests(t *testing.T) {
	for _, version := range []int{1, 2, 3} {
		for _, merge := range []bool{true, false} {
			t.Run("v"+strconv.Itoa(version)+"/merge="+strconv.FormatBool(merge), func(t *testing.T) {
				ctx := context.Background()
				const commits, minCount = 23, 5
				tbl := createTable(t, version, nil, map[string]string{
					PropManifestMergeEnabled:    strconv.FormatBool(merge),
					PropManifestMinCountToMerge: strconv.Itoa(minCount),
				})
				files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, commits*3), 3)
				seqOf := map[string]int64{}
				var removed string
				for i := range commits {
					if _, err := tbl.Append(ctx, []manifest.DataFile{files[i]}, CommitOptions{}); err != nil {
						t.Fatal(err)
					}
					seqOf[files[i].FilePath] = tbl.Metadata.CurrentSnapshot().SequenceNumber
					list, err := tbl.manifestsOf(ctx, tbl.Metadata.CurrentSnapshot())
					if err != nil {
						t.Fatal(err)
					}
					if merge && len(list) >= minCount {
						t.Fatalf("commit %d: %d manifests", i, len(list))
					}
					if !merge && len(list) != i+1 {
						t.Fatalf("commit %d without merging: %d manifests", i, len(list))
					}
				}
				// A removal rewrites a merged manifest; sequence numbers of
				// what stays must not move.
				removed = files[3].FilePath
				if _, err := tbl.Commit(ctx, nil, []string{removed}, CommitOptions{}); err != nil {
					t.Fatal(err)
				}
				fresh := reopen(t, tbl)
				plan, err := fresh.PlanFiles(ctx, SnapshotSelector{})
				if err != nil {
					t.Fatal(err)
				}
				want := pathsOf(files[:commits])
				want = slices.DeleteFunc(want, func(p string) bool { return p == removed })
				if got := livePaths(t, fresh); !slices.Equal(got, want) {
					t.Fatalf("live %v, want %v", got, want)
				}
				for _, task := range plan.Tasks {
					if task.DataSequenceNumber != seqOf[task.File.FilePath] {
						t.Errorf("%s: data sequence number %d, want %d", task.File.FilePath, task.DataSequenceNumber, seqOf[task.File.FilePath])
					}
				}
				if version == 3 {
					checkRowLineage(t, fresh, plan, 3*int64(commits-1))
				}
				if s := fresh.Metadata.CurrentSnapshot().Summary; summaryInt(t, s, "total-data-files") != int64(commits-1) {
					t.Fatalf("summary %v", s)
				}
				checkNoOrphans(t, tbl)
			})
		}
	}
}
