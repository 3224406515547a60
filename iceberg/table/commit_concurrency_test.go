package table

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// Writers each holding their own handle (as separate processes would)
// append to one table at once: every append lands exactly once, each in
// its own snapshot, one after another.
func TestConcurrentAppends(t *testing.T) {
	ctx := context.Background()
	const writers, appends = 6, 8
	tbl := createTable(t, 2, nil, nil)
	files := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(1, 0, writers*appends), 1)
	if len(files) != writers*appends {
		t.Fatalf("%d files", len(files))
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*appends)
	ids := make([][]int64, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := Open(ctx, tbl.Metadata.Location, Options{})
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				id, err := snapshotIDOf(h.Append(ctx, []manifest.DataFile{files[w*appends+a]}, CommitOptions{Token: fmt.Sprintf("w%d-a%d", w, a)}))
				if err != nil {
					errs <- fmt.Errorf("writer %d append %d: %w", w, a, err)
					return
				}
				ids[w] = append(ids[w], id)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		return
	}
	fresh := reopen(t, tbl)
	md := fresh.Metadata
	if len(md.Snapshots) != writers*appends {
		t.Fatalf("%d snapshots, want %d", len(md.Snapshots), writers*appends)
	}
	if got := livePaths(t, fresh); !slices.Equal(got, pathsOf(files)) {
		t.Fatalf("%d live files, want %d", len(got), len(files))
	}
	// One chain: every snapshot's parent is the one before, sequence
	// numbers 1…n.
	chain := md.Ancestors(md.CurrentSnapshot())
	if len(chain) != writers*appends {
		t.Fatalf("the current snapshot has %d ancestors", len(chain))
	}
	for i, s := range chain {
		if want := int64(len(chain) - i); s.SequenceNumber != want {
			t.Fatalf("snapshot %d has sequence number %d, want %d", s.SnapshotID, s.SequenceNumber, want)
		}
		if summaryInt(t, s.Summary, "total-data-files") != int64(len(chain)-i) {
			t.Fatalf("snapshot %d total-data-files %s", s.SnapshotID, s.Summary["total-data-files"])
		}
	}
	seen := map[int64]bool{}
	for _, list := range ids {
		for _, id := range list {
			if seen[id] || md.SnapshotByID(id) == nil {
				t.Fatalf("snapshot id %d returned twice or missing", id)
			}
			seen[id] = true
		}
	}
	checkNoOrphans(t, tbl)
}
