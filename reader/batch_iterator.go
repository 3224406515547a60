package reader

import (
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// defaultBatchRows is the row count of a batch when the request names none.
const defaultBatchRows = 65536

// ReadRequest asks for columns of one row group, rows [RowStart, RowEnd).
type ReadRequest struct {
	// Columns are the arrays to produce, one per entry, in order.
	Columns []Column
	// RowGroup indexes File.RowGroups.
	RowGroup int
	// RowStart and RowEnd bound the rows read, relative to the row group.
	// RowEnd <= 0 means the end of the row group.
	RowStart, RowEnd int64
	// BatchSize caps the rows per batch (default 65536).
	BatchSize int
	// Allocator provides every output buffer. Use memory/mallocator when
	// the arrays leave Go through the C Data Interface. Default:
	// memory.DefaultAllocator (Go heap).
	Allocator memory.Allocator
	// VerifyChecksums checks each page's CRC where the writer stored one
	// and fails the read on a mismatch.
	VerifyChecksums bool
	// Parallelism decodes up to this many leaf columns of a batch at once
	// (default 1: the caller parallelises across files and row groups).
	Parallelism int
}

// Batch is one set of aligned arrays; the caller owns it and must Release.
type Batch struct {
	NumRows int
	Columns []arrow.Array
}

// Release releases every column.
func (b *Batch) Release() {
	for _, c := range b.Columns {
		if c != nil {
			c.Release()
		}
	}
	b.Columns = nil
}

// BatchReader yields the requested rows of one row group in batches. It is
// not safe for concurrent use; open one per goroutine. Stopping early
// (Close before io.EOF) decodes nothing more.
type BatchReader struct {
	cols      []*asmNode
	leaves    []*leafReader
	fields    []arrow.Field
	mem       memory.Allocator
	batchSize int
	parallel  int
	next, end int64
	skip      int64
	err       error
}

// NewBatchReader checks the request and prepares the column readers. No
// column data is read until the first Next.
func (f *File) NewBatchReader(req ReadRequest) (br *BatchReader, err error) {
	defer recoverAsError(&err, "parquet: preparing read")
	if req.RowGroup < 0 || req.RowGroup >= len(f.RowGroups) {
		return nil, fmt.Errorf("row group %d out of range (file has %d)", req.RowGroup, len(f.RowGroups))
	}
	rg := &f.RowGroups[req.RowGroup]
	end := req.RowEnd
	if end <= 0 || end > rg.NumRows {
		end = rg.NumRows
	}
	if req.RowStart < 0 || req.RowStart > end {
		return nil, fmt.Errorf("row range [%d,%d) does not fit row group %d of %d rows", req.RowStart, req.RowEnd, req.RowGroup, rg.NumRows)
	}
	br = &BatchReader{
		mem:       req.Allocator,
		batchSize: req.BatchSize,
		parallel:  max(req.Parallelism, 1),
		next:      req.RowStart,
		end:       end,
		skip:      req.RowStart,
	}
	if br.mem == nil {
		br.mem = memory.DefaultAllocator
	}
	if br.batchSize <= 0 {
		br.batchSize = defaultBatchRows
	}
	newLeaf := func(n *Node, c *conversion, slotDef int) *leafReader {
		l := newLeafReader(f, rg, n, c, br.mem, req.VerifyChecksums)
		l.slotDef = slotDef
		br.leaves = append(br.leaves, l)
		return l
	}
	for i, col := range req.Columns {
		if col.Node == nil || !f.owns(col.Node) {
			return nil, fmt.Errorf("column %d: node does not belong to this file", i)
		}
		resolved, err := resolveColumn(col)
		if err != nil {
			return nil, err
		}
		a, err := planNode(resolved, 0, 0, newLeaf)
		if err != nil {
			return nil, err
		}
		br.cols = append(br.cols, a)
		name := col.Name
		if name == "" {
			name = col.Node.Name
		}
		br.fields = append(br.fields, arrow.Field{Name: name, Type: resolved.Type, Nullable: col.Node.Repetition != Required})
	}
	return br, nil
}

// owns reports whether n is a node of this file's schema (a synthetic list
// element counts through its repeated field).
func (f *File) owns(n *Node) bool {
	for n.Parent != nil {
		n = n.Parent
	}
	return n == f.Root
}

// Fields are the output fields, one per requested column.
func (b *BatchReader) Fields() []arrow.Field { return b.fields }

// Remaining is the number of rows not yet returned.
func (b *BatchReader) Remaining() int64 { return b.end - b.next }

// Next decodes the next batch; it returns io.EOF after the last one. After
// an error every later call returns the same error.
func (b *BatchReader) Next() (batch *Batch, err error) {
	if b.err != nil {
		return nil, b.err
	}
	if b.next >= b.end {
		return nil, io.EOF
	}
	defer func() {
		if err != nil {
			b.err = err
			for _, l := range b.leaves {
				l.out.free()
			}
		}
	}()
	defer recoverAsError(&err, "parquet: decoding")
	if b.skip > 0 {
		if err := b.forEachLeaf(func(l *leafReader) error { return l.skipRows(int(b.skip)) }); err != nil {
			return nil, err
		}
		b.skip = 0
	}
	n := int(min(int64(b.batchSize), b.end-b.next))
	if err := b.forEachLeaf(func(l *leafReader) error { return l.readRows(n) }); err != nil {
		return nil, err
	}
	batch = &Batch{NumRows: n, Columns: make([]arrow.Array, 0, len(b.cols))}
	for _, c := range b.cols {
		d, err := c.build(b.mem)
		if err != nil {
			batch.Release()
			return nil, err
		}
		if d.Len() != n {
			d.Release()
			batch.Release()
			return nil, fmt.Errorf("column %s produced %d rows for a batch of %d", c.node.DottedPath(), d.Len(), n)
		}
		batch.Columns = append(batch.Columns, array.MakeFromData(d))
		d.Release()
	}
	b.next += int64(n)
	return batch, nil
}

func (b *BatchReader) forEachLeaf(fn func(*leafReader) error) error {
	if b.parallel <= 1 || len(b.leaves) <= 1 {
		for _, l := range b.leaves {
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(b.leaves))
	work := make(chan int, len(b.leaves))
	for i := range b.leaves {
		work <- i
	}
	close(work)
	for range min(b.parallel, len(b.leaves)) {
		wg.Go(func() {
			for i := range work {
				func() {
					// a panic in a worker goroutine would bypass the
					// caller's recover and kill the process
					defer recoverAsError(&errs[i], "parquet: decoding")
					errs[i] = fn(b.leaves[i])
				}()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// Close releases the reader's scratch memory and any half-built output.
func (b *BatchReader) Close() {
	for _, l := range b.leaves {
		l.release()
	}
	b.leaves = nil
	if b.err == nil {
		b.err = fmt.Errorf("parquet: batch reader is closed")
	}
}

// ReadAll reads the requested rows as a single batch.
func (f *File) ReadAll(req ReadRequest) (*Batch, error) {
	end := req.RowEnd
	if req.RowGroup >= 0 && req.RowGroup < len(f.RowGroups) && (end <= 0 || end > f.RowGroups[req.RowGroup].NumRows) {
		end = f.RowGroups[req.RowGroup].NumRows
	}
	req.BatchSize = int(max(end-req.RowStart, 1))
	br, err := f.NewBatchReader(req)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	b, err := br.Next()
	if err == io.EOF {
		return &Batch{Columns: emptyColumns(br, req.Allocator)}, nil
	}
	return b, err
}

func emptyColumns(br *BatchReader, mem memory.Allocator) []arrow.Array {
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	cols := make([]arrow.Array, len(br.fields))
	for i, f := range br.fields {
		cols[i] = array.MakeArrayOfNull(mem, f.Type, 0)
	}
	return cols
}
