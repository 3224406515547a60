package reader

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
)

// Reader streams the scan's batches: every task in order, at most
// Options.Limit rows, batches allocated from alloc (pass C memory, e.g.
// mallocator, when batches leave Go through the C Data Interface).
func (s *Scan) Reader(ctx context.Context, alloc memory.Allocator) (array.RecordReader, error) {
	return nil, fmt.Errorf("scan reading is not implemented yet")
}

// Reader streams one task's batches, opening its files through files.
func (t *Task) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator) (array.RecordReader, error) {
	return nil, fmt.Errorf("task reading is not implemented yet")
}
