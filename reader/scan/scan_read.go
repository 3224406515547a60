package scan

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floedb/floe/errkind"
)

// Reader streams the scan's batches: every task in order, at most
// Options.Limit rows, batches allocated from alloc (pass C memory, e.g.
// mallocator, when batches leave Go through the C Data Interface).
//
// With Options.Threads > 1 (the default is every core), several tasks
// decode at once; batches still come in task order unless Options.Ordered
// is false.
func (s *Scan) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	return s.ReaderWith(ctx, alloc, StreamOptions{})
}

// StreamOptions are one stream's own read settings, where streams of one
// scan want different ones (a consumer that copies each batch away wants
// them large, one that overlaps its work with the decoding wants them
// small); unset, the scan's.
type StreamOptions struct {
	// BatchSize is the most rows per batch; 0 for the scan's.
	BatchSize int
}

// ReaderWith is Reader with this stream's own settings.
func (s *Scan) ReaderWith(ctx context.Context, alloc memory.Allocator, o StreamOptions) (array.RecordReader, error) {
	if o.BatchSize < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "stream options: batch_size %d must not be negative", o.BatchSize)
	}
	if threads := s.Options.threads(); threads > 1 && len(s.tasks) > 1 {
		if !s.Options.ordered() {
			return newUnorderedReader(ctx, s, alloc, o, threads), nil
		}
		return newParallelReader(ctx, s, alloc, o, threads), nil
	}
	remaining := int64(-1)
	if s.Options.Limit != nil {
		remaining = *s.Options.Limit
	}
	// The next task's file opens while this one decodes.
	ahead := newOpenAhead(ctx, s, 1)
	c := newTaskChain(s.schema, len(s.tasks), remaining, func(i int, limit *int64) (*taskReader, error) {
		opened := ahead.take(i)
		ahead.after(i)
		return s.openTask(ctx, i, s.tasks[i], alloc, o, opened, limit) // nil when an added filter ruled the file out
	})
	c.done = ahead.close
	return c, nil
}

// ReadOptions are the scan's settings for reading its tasks and task
// groups (batch size, limit, CRC checks, memory limit): what a process
// reading them outside the scan, perhaps serialised, passes to
// Task.Reader or TaskGroup.Reader to read them as the scan would. The
// limit bounds each group, as it bounds the scan.
func (s *Scan) ReadOptions() ReadOptions {
	return s.Options.readOptions(s.Options.Limit)
}

// readOptions are the read settings of a task of a scan with these
// options, limited to limit rows (nil: none).
func (o *Options) readOptions(limit *int64) ReadOptions {
	return ReadOptions{BatchSize: o.batchSize(), Limit: limit, VerifyCRC: o.VerifyCRC, MemoryLimit: o.MemoryLimit}
}
