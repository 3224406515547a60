package parquet

import (
	"fmt"
	"io"
	"math"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/kernels"
)

// DefaultBatchSize is the most rows a batch holds unless the request (or
// the scan) says otherwise; batches never span row groups, so they may be
// smaller.
const DefaultBatchSize = 64 * 1024

// RowRange is rows [Start, End) of a row group.
type RowRange struct{ Start, End int64 }

// ReadRequest asks for columns of one row group, rows [RowStart, RowEnd)
// or the rows of Ranges.
type ReadRequest struct {
	// Columns are the arrays to produce, one per entry, in order.
	Columns []Column
	// RowGroup indexes File.RowGroups.
	RowGroup int
	// RowStart and RowEnd bound the rows read, relative to the row group.
	// RowEnd <= 0 means the end of the row group.
	RowStart, RowEnd int64
	// Ranges, when set, replaces RowStart/RowEnd: ascending, disjoint row
	// ranges (say, the pages a page-index filter kept). Rows between them
	// are skipped without decompressing whole pages; batches never span
	// two ranges (Batch.FirstRow tells where each starts).
	Ranges []RowRange
	// BatchSize caps the rows per batch (default 65536).
	BatchSize int
	// Allocator provides every output buffer. Use memory/mallocator when
	// the arrays leave Go through the C Data Interface. Default:
	// memory.DefaultAllocator (Go heap).
	Allocator memory.Allocator
	// VerifyCRC checks each page's CRC where the writer stored one
	// and fails the read on a mismatch.
	VerifyCRC bool
	// Parallelism decodes up to this many leaf columns of a batch at once
	// (default 1: the caller parallelises across files and row groups).
	Parallelism int
}

// Batch is one set of aligned arrays; the caller owns it and must Release.
type Batch struct {
	NumRows int
	// FirstRow is the index of the batch's first row within its row group
	// (add the sizes of earlier row groups for the row's file position).
	FirstRow int64
	Columns  []arrow.Array
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
	Leaves    []*LeafReader
	fields    []arrow.Field
	mem       memory.Allocator
	batchSize int
	parallel  int
	ranges    []RowRange
	cur       int   // index of the range being read
	pos       int64 // row the column readers stand at
	remaining int64
	err       error
	rowGroup  int
}

// NewBatchReader checks the request and prepares the column readers. No
// column data is read until the first Next.
func (f *File) NewBatchReader(req ReadRequest) (br *BatchReader, err error) {
	defer RecoverAsError(&err, "parquet: preparing read")
	if req.RowGroup < 0 || req.RowGroup >= len(f.RowGroups) {
		return nil, fmt.Errorf("row group %d out of range (file has %d)", req.RowGroup, len(f.RowGroups))
	}
	rg := &f.RowGroups[req.RowGroup]
	ranges, err := requestRanges(req, rg.NumRows)
	if err != nil {
		return nil, err
	}
	br = &BatchReader{
		mem:       req.Allocator,
		batchSize: req.BatchSize,
		parallel:  max(req.Parallelism, 1),
		ranges:    ranges,
		rowGroup:  req.RowGroup,
	}
	for _, r := range ranges {
		br.remaining += r.End - r.Start
	}
	readStart, readEnd := int64(0), int64(0)
	if len(ranges) > 0 {
		readStart, readEnd = ranges[0].Start, ranges[len(ranges)-1].End
	}
	if br.mem == nil {
		br.mem = memory.DefaultAllocator
	}
	if br.batchSize <= 0 {
		br.batchSize = DefaultBatchSize
	}
	newLeaf := func(n *Node, c *conversion, slotDef int) *LeafReader {
		l := newLeafReader(f, rg, n, c, br.mem, req.VerifyCRC, readStart, readEnd)
		l.slotDef = slotDef
		br.Leaves = append(br.Leaves, l)
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
		first := len(br.Leaves)
		a, err := planNode(resolved, 0, 0, newLeaf)
		if err != nil {
			return nil, err
		}
		markWholeUnderSelection(br.Leaves[first:])
		br.cols = append(br.cols, a)
		name := col.Name
		if name == "" {
			name = col.Node.Name
		}
		br.fields = append(br.fields, arrow.Field{Name: name, Type: resolved.Type, Nullable: col.Node.Repetition != Required})
	}
	return br, nil
}

// markWholeUnderSelection marks the leaves of one column that must be
// decoded whole when a batch is read for a selection: all of them, when
// one is repeated. Repeated leaves cannot skip rows value by value, and
// the leaves of a column must agree on the rows they hold for the column
// to be assembled from them.
func markWholeUnderSelection(leaves []*LeafReader) {
	repeated := false
	for _, l := range leaves {
		repeated = repeated || l.maxRep > 0
	}
	for _, l := range leaves {
		l.wholeUnderSelection = repeated
	}
}

// requestRanges checks and normalises the rows a request asks for.
func requestRanges(req ReadRequest, rows int64) ([]RowRange, error) {
	if len(req.Ranges) == 0 {
		end := req.RowEnd
		if end <= 0 || end > rows {
			end = rows
		}
		if req.RowStart < 0 || req.RowStart > end {
			return nil, fmt.Errorf("row range [%d,%d) does not fit row group %d of %d rows", req.RowStart, req.RowEnd, req.RowGroup, rows)
		}
		if req.RowStart == end {
			return nil, nil
		}
		return []RowRange{{req.RowStart, end}}, nil
	}
	if req.RowStart != 0 || req.RowEnd != 0 {
		return nil, fmt.Errorf("a read request takes RowStart/RowEnd or Ranges, not both")
	}
	var out []RowRange
	prev := int64(0)
	for _, r := range req.Ranges {
		if r.Start < prev || r.End < r.Start || r.End > rows {
			return nil, fmt.Errorf("row ranges must be ascending, disjoint and within the row group's %d rows; got [%d,%d) after row %d", rows, r.Start, r.End, prev)
		}
		if r.End > r.Start {
			out = append(out, r)
		}
		prev = r.End
	}
	return out, nil
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
func (b *BatchReader) Remaining() int64 { return b.remaining }

// Next decodes the next batch; it returns io.EOF after the last one. After
// an error every later call returns the same error.
func (b *BatchReader) Next() (batch *Batch, err error) {
	return b.next(nil)
}

// window moves to the reader's next batch and returns its row count: the
// batch is rows [b.pos, b.pos+n) of the row group. ok is false after the
// last batch.
func (b *BatchReader) window() (n int, ok bool) {
	for b.cur < len(b.ranges) && b.pos >= b.ranges[b.cur].End {
		b.cur++
	}
	if b.cur >= len(b.ranges) {
		return 0, false
	}
	r := b.ranges[b.cur]
	b.pos = max(b.pos, r.Start)
	return int(min(int64(b.batchSize), r.End-b.pos)), true
}

// next decodes the next batch: every row when sel is nil, else only the
// rows sel keeps, without building the values of the others.
func (b *BatchReader) next(sel *RowSelection) (batch *Batch, err error) {
	if b.err != nil {
		return nil, b.err
	}
	n, ok := b.window()
	if !ok {
		return nil, io.EOF
	}
	defer func() {
		if err != nil {
			b.err = err
			for _, l := range b.Leaves {
				l.out.free()
			}
		}
	}()
	defer RecoverAsError(&err, "parquet: decoding")
	if sel != nil && sel.Kept() == n {
		sel = nil
	}
	rows := n
	var keep []byte
	if sel != nil {
		if sel.Rows() != n {
			return nil, fmt.Errorf("selection of %d rows for a batch of %d", sel.Rows(), n)
		}
		rows, keep = sel.Kept(), sel.keep
	}
	if err := b.forEachLeaf(func(l *LeafReader) error {
		if l.rowPos < b.pos {
			if err := l.skipTo(b.pos); err != nil {
				return err
			}
		}
		switch {
		case sel == nil || l.wholeUnderSelection:
			return l.readRows(n)
		case sel.fewRuns:
			return l.readSelected(keep, n, rows)
		case l.keptDecodable():
			return l.readKept(sel.indices(), n)
		}
		return l.readRows(n)
	}); err != nil {
		return nil, err
	}
	batch = &Batch{NumRows: rows, FirstRow: b.pos, Columns: make([]arrow.Array, 0, len(b.cols))}
	for _, c := range b.cols {
		d, err := c.build(b.mem)
		if err != nil {
			batch.Release()
			return nil, err
		}
		col := array.MakeFromData(d)
		d.Release()
		if sel != nil && col.Len() == n && n != rows {
			// a column decoded whole: drop the unselected rows
			filtered, err := kernels.Select(col, sel.sel, b.mem)
			col.Release()
			if err != nil {
				batch.Release()
				return nil, err
			}
			col = filtered
		}
		if col.Len() != rows {
			col.Release()
			batch.Release()
			return nil, fmt.Errorf("column %s produced %d rows for a batch of %d", c.node.DottedPath(), col.Len(), rows)
		}
		batch.Columns = append(batch.Columns, col)
	}
	b.pos += int64(n)
	b.remaining -= int64(n)
	return batch, nil
}

// NextSelected decodes the rows of the next batch that sel keeps (sel
// covers the rows the batch Next would return; see PeekRows). Flat
// columns build only those rows, skipping the values of the others; pages
// holding none of them are not decompressed. The batch's NumRows is
// sel.Kept(), its FirstRow the first row of the whole window.
func (b *BatchReader) NextSelected(sel *RowSelection) (*Batch, error) {
	return b.next(sel)
}

// Skip passes over the next batch without decoding it and returns its row
// count; io.EOF after the last. The pages it spans are decompressed only
// if a later batch starts inside them.
func (b *BatchReader) Skip() (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, ok := b.window()
	if !ok {
		return 0, io.EOF
	}
	b.pos += int64(n)
	b.remaining -= int64(n)
	return n, nil
}

// PeekRows is the row count and first row of the batch Next, NextSelected
// or Skip would produce; ok is false after the last.
func (b *BatchReader) PeekRows() (n int, first int64, ok bool) {
	n, ok = b.window()
	return n, b.pos, ok
}

func (b *BatchReader) forEachLeaf(fn func(*LeafReader) error) error {
	if b.parallel <= 1 || len(b.Leaves) <= 1 {
		for _, l := range b.Leaves {
			if err := fn(l); err != nil {
				return err
			}
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(b.Leaves))
	work := make(chan int, len(b.Leaves))
	for i := range b.Leaves {
		work <- i
	}
	close(work)
	for range min(b.parallel, len(b.Leaves)) {
		wg.Go(func() {
			for i := range work {
				func() {
					// a panic in a worker goroutine would bypass the
					// caller's recover and kill the process
					defer RecoverAsError(&errs[i], "parquet: decoding")
					errs[i] = fn(b.Leaves[i])
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
	for _, l := range b.Leaves {
		l.release()
	}
	b.Leaves = nil
	if b.err == nil {
		b.err = fmt.Errorf("parquet: batch reader is closed")
	}
}

// ReadAll reads the requested rows of one range (RowStart/RowEnd) as a
// single batch.
func (f *File) ReadAll(req ReadRequest) (*Batch, error) {
	if len(req.Ranges) > 0 {
		return nil, fmt.Errorf("ReadAll reads one row range; use a BatchReader for several")
	}
	req.BatchSize = math.MaxInt32
	br, err := f.NewBatchReader(req)
	if err != nil {
		return nil, err
	}
	defer br.Close()
	b, err := br.Next()
	if err == io.EOF {
		return &Batch{FirstRow: req.RowStart, Columns: emptyColumns(br, req.Allocator)}, nil
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
