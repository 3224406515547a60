package table

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// publishedUnder lists main's ancestors that published wapID, by a
// cherry-pick or by being the staged snapshot main moved to.
func publishedUnder(md *metadata.Metadata, wapID string) []int64 {
	var out []int64
	for _, s := range md.Ancestors(md.CurrentSnapshot()) {
		if s.Summary[SummaryPublishedWAPID] == wapID || s.Summary[SummaryWAPID] == wapID {
			out = append(out, s.SnapshotID)
		}
	}
	return out
}

// Another writer publishes the wap id while a cherry-pick is between
// building and publishing (a process that takes no lock, as on an object
// store): the cherry-pick loses the race, rebuilds on the newer version,
// finds the id published there and commits nothing, leaving no file.
func TestCherryPickRechecksThePublishOnRetry(t *testing.T) {
	ctx := context.Background()
	tbl, _, _ := wapTable(t, wapOn)
	b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
	c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 3), 3)
	s1 := stage(t, tbl, b, "w")
	s2 := stage(t, tbl, b[:1], "w") // the same audit staged twice
	if _, err := tbl.Append(ctx, c, CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	versions := versionsOf(t, tbl)
	loser, winner := reopen(t, tbl), reopen(t, tbl)

	saved := testHookChanges
	defer func() { testHookChanges = saved }()
	raced := 0
	testHookChanges = func(base *Table, changes *metadata.Changes) {
		saved(base, changes)
		raced++
		if raced != 1 {
			return
		}
		tx := winner.Transaction()
		if err := tx.CherryPick(s1, CommitOptions{}); err != nil {
			t.Error(err)
			return
		}
		won, err := tx.build(ctx, winner, 0)
		if err != nil {
			t.Error(err)
			return
		}
		if _, err := winner.publish(ctx, won); err != nil {
			t.Error(err)
		}
	}
	_, err := loser.CherryPick(ctx, s2, CommitOptions{})
	if !errors.Is(err, ErrPublished) || raced != 1 {
		t.Fatalf("the cherry-pick that lost the race (attempts %d): %v", raced, err)
	}
	fresh := reopen(t, tbl)
	if versionsOf(t, tbl) != versions+1 || len(publishedUnder(fresh.Metadata, "w")) != 1 {
		t.Fatalf("versions %d→%d, published under w: %v", versions, versionsOf(t, tbl), publishedUnder(fresh.Metadata, "w"))
	}
	checkNoOrphans(t, fresh)
}

// Writers with their own handles publish one wap id at once, some the
// same staged snapshot, some another staged under that id, some by a
// fast-forward and some by a new snapshot: exactly one commits, every
// other is refused with ErrPublished, and main holds the rows once.
func TestConcurrentPublishOfOneWapID(t *testing.T) {
	ctx := context.Background()
	for _, moved := range []bool{false, true} {
		tbl, _, a := wapTable(t, wapOn)
		b := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(2, 100, 7), 7)
		staged := []int64{stage(t, tbl, b, "w"), stage(t, tbl, b, "w")}
		if moved {
			c := writeFiles(t, t.TempDir(), iceberg.PartitionSpec{}, rowsWithIDs(3, 200, 3), 3)
			if _, err := tbl.Append(ctx, c, CommitOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		versions := versionsOf(t, tbl)
		const writers = 6
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make([]error, writers)
		for w := range writers {
			h := reopen(t, tbl)
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, errs[w] = h.CherryPick(ctx, staged[w%2], CommitOptions{})
			}()
		}
		close(start)
		wg.Wait()
		ok := 0
		for w, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, ErrPublished):
				t.Errorf("moved %v, writer %d: %v", moved, w, err)
			}
		}
		fresh := reopen(t, tbl)
		if ok != 1 || versionsOf(t, tbl) != versions+1 || len(publishedUnder(fresh.Metadata, "w")) != 1 {
			t.Fatalf("moved %v: %d commits, versions %d→%d, published %v", moved, ok, versions, versionsOf(t, tbl), publishedUnder(fresh.Metadata, "w"))
		}
		plan, err := fresh.PlanFiles(ctx, SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(10 + 7)
		if moved {
			want += 3
		}
		if plan.RecordCount() != want || len(plan.Tasks) < len(a)+len(b) {
			t.Fatalf("moved %v: main holds %d rows in %d files", moved, plan.RecordCount(), len(plan.Tasks))
		}
		checkNoOrphans(t, fresh)
	}
}
