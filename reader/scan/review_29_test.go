package scan

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A changelog reader released before its first batch (a limit of 0, or a
// caller that only wanted the schema) leaves no goroutine reading groups
// and no Arrow memory queued.
func TestReview29ChangelogReleasedUnreadLeaksNothing(t *testing.T) {
	tbl := openFixture(t, changelogFixture)
	for _, opts := range []Options{{Threads: 2}, {Threads: 2, Limit: ptr[int64](0)}} {
		s, err := NewChangelog(context.Background(), tbl, opts)
		if err != nil {
			t.Fatal(err)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		before := runtime.NumGoroutine()
		rr, err := s.Reader(context.Background(), mem)
		if err != nil {
			t.Fatal(err)
		}
		for rr.Next() {
		}
		rr.Release()
		deadline := time.Now().Add(5 * time.Second)
		for (runtime.NumGoroutine() > before || mem.CurrentAlloc() != 0) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if n := runtime.NumGoroutine(); n > before {
			t.Errorf("limit %v: %d goroutines after release, %d before", opts.Limit, n, before)
		}
		mem.AssertSize(t, 0)
	}
}
