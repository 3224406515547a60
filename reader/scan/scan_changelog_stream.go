package scan

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// Reader streams the changelog: its groups in order, Options.Threads of
// them read at once (each group's batches wait in a small queue until
// the groups before it are returned), stopping at Options.Limit changes.
func (s *ChangelogScan) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	threads, read := s.readSettings()
	files := s.table.IO
	ctx, cancel := context.WithCancel(ctx)
	order := make(chan chan groupResult, threads)
	slots := make(chan struct{}, threads)
	var wg sync.WaitGroup
	// The dispatcher starts the groups in order, a slot each; a group's
	// queue enters order before its worker starts, so the consumer takes
	// queues in group order. It starts with the first batch asked for: a
	// reader released unread (a limit of 0) never starts the sequence, so
	// nothing would stop or drain it.
	dispatch := func() {
		defer close(order)
		for _, g := range s.groups {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			q := make(chan groupResult, 2)
			select {
			case order <- q:
			case <-ctx.Done():
				<-slots
				return
			}
			wg.Go(func() {
				defer func() { <-slots }()
				defer close(q)
				err := g.each(ctx, files, alloc, read, s.schema, func(rec arrow.RecordBatch) error {
					select {
					case q <- groupResult{rec: rec}:
						return nil
					case <-ctx.Done():
						rec.Release()
						return ctx.Err()
					}
				})
				if err != nil && ctx.Err() == nil {
					select {
					case q <- groupResult{err: err}:
					case <-ctx.Done():
					}
				}
			})
		}
	}
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		wg.Go(dispatch)
		defer func() {
			cancel()
			// Release what the workers queued but nobody will take.
			go func() {
				for q := range order {
					for r := range q {
						if r.rec != nil {
							r.rec.Release()
						}
					}
				}
			}()
		}()
		for q := range order {
			for r := range q {
				if r.err != nil {
					yield(nil, r.err)
					for r := range q {
						if r.rec != nil {
							r.rec.Release()
						}
					}
					return
				}
				if !yield(r.rec, nil) {
					for r := range q {
						if r.rec != nil {
							r.rec.Release()
						}
					}
					return
				}
			}
		}
		if err := ctx.Err(); err != nil {
			yield(nil, err)
		}
	}
	r := newSeqReader(s.schema, seq, s.Options.Limit)
	r.onClose = cancel
	return r, nil
}

type groupResult struct {
	rec arrow.RecordBatch
	err error
}

// readSettings are how many groups the reader reads at once and the read
// options each gets. The limit counts changes: the reader applies it, not
// the groups. Under a memory limit the groups read at once share it, each
// its part (a matched snapshot holds up to its part); fewer run when the
// parts would fall below the smallest limit a read takes.
func (s *ChangelogScan) readSettings() (int, ReadOptions) {
	read := s.Options.readOptions(nil)
	threads := min(s.Options.threads(), max(len(s.groups), 1))
	if limit := s.Options.MemoryLimit; limit > 0 {
		threads = max(1, min(threads, int(limit/MinMemoryLimit)))
		read.MemoryLimit = limit / int64(threads)
	}
	return threads, read
}
