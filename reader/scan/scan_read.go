package scan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reader streams the scan's batches: every task in order, at most
// Options.Limit rows, batches allocated from alloc (pass C memory, e.g.
// mallocator, when batches leave Go through the C Data Interface).
//
// With Options.Threads > 1 (the default is every core), several tasks
// decode at once; batches still come in task order unless Options.Ordered
// is false.
func (s *Scan) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	if threads := s.Options.threads(); threads > 1 && len(s.tasks) > 1 {
		if !s.Options.ordered() {
			return newUnorderedReader(ctx, s, alloc, threads), nil
		}
		return newParallelReader(ctx, s, alloc, threads), nil
	}
	remaining := int64(-1)
	if s.Options.Limit != nil {
		remaining = *s.Options.Limit
	}
	// The next task's file opens while this one decodes.
	ahead := newOpenAhead(ctx, s, 1)
	c := newTaskChain(s.schema, len(s.tasks), remaining, func(i int, limit *int64) (*taskReader, error) {
		task := *s.tasks[i]
		if limit != nil {
			task.Limit = limit
		}
		opened := ahead.take(i)
		ahead.after(i)
		return s.openTask(ctx, i, &task, alloc, opened) // nil when an added filter ruled the file out
	})
	c.done = ahead.close
	return c, nil
}
