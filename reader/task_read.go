package reader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
)

// taskReader streams one task's batches: row group by row group, batch by
// batch, each batch decoded from the file's columns and completed with the
// constants that stand in for the columns the file lacks.
type taskReader struct {
	refs   atomic.Int64
	ctx    context.Context
	task   *Task
	schema *arrow.Schema
	mem    memory.Allocator
	handle fileio.File
	file   *File
	plans  []*columnPlan
	// decoded[i] is the position of plans[i]'s column among the decoder's
	// outputs, -1 for a constant column.
	decoded []int
	request []Column

	rowGroup  int
	batches   *BatchReader
	remaining int64 // rows the limit still allows; -1 for no limit
	constRows int64 // rows left in the current row group when nothing is decoded
	cur       arrow.RecordBatch
	err       error
}

// Reader streams the task's batches, opening its data file through files.
func (t *Task) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator) (array.RecordReader, error) {
	schema, err := ArrowSchema(t.Fields)
	if err != nil {
		return nil, err
	}
	return t.open(ctx, files, alloc, schema)
}

func (t *Task) open(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, schema *arrow.Schema) (*taskReader, error) {
	if len(t.Deletes) > 0 {
		return nil, fmt.Errorf("%s has %d delete files; applying deletes is not supported yet, and reading without them would return deleted rows", t.Path, len(t.Deletes))
	}
	if !strings.EqualFold(t.FileFormat, "parquet") {
		return nil, fmt.Errorf("%s: data file format %q is not supported (only Parquet)", t.Path, t.FileFormat)
	}
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	handle, err := files.Open(ctx, t.Path)
	if err != nil {
		return nil, fmt.Errorf("open data file: %w", err)
	}
	f, err := OpenFile(handle, handle.Size(), nil)
	if err != nil {
		handle.Close()
		return nil, fmt.Errorf("data file %s: %w", t.Path, err)
	}
	r := &taskReader{ctx: ctx, task: t, schema: schema, mem: alloc, handle: handle, file: f, remaining: -1}
	r.refs.Store(1)
	if t.Limit != nil {
		r.remaining = *t.Limit
	}
	if r.plans, err = newFileResolver(f, t).planFields(t.Fields); err != nil {
		handle.Close()
		return nil, err
	}
	for _, p := range r.plans {
		if p.node == nil {
			r.decoded = append(r.decoded, -1)
			continue
		}
		r.decoded = append(r.decoded, len(r.request))
		r.request = append(r.request, p.request())
	}
	r.rowGroup = -1
	return r, nil
}

func (r *taskReader) Retain() { r.refs.Add(1) }

func (r *taskReader) Release() {
	if r.refs.Add(-1) == 0 {
		r.close()
	}
}

func (r *taskReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.batches != nil {
		r.batches.Close()
		r.batches = nil
	}
	if r.handle != nil {
		r.handle.Close()
		r.handle = nil
	}
}

func (r *taskReader) Schema() *arrow.Schema          { return r.schema }
func (r *taskReader) Record() arrow.RecordBatch      { return r.cur }
func (r *taskReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *taskReader) Err() error                     { return r.err }

// Next decodes the next batch. Empty batches are never returned.
func (r *taskReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.remaining == 0 {
		r.close()
		return false
	}
	for {
		if err := r.ctx.Err(); err != nil {
			r.err = err
			r.close()
			return false
		}
		rec, err := r.nextBatch()
		if err == io.EOF {
			r.close()
			return false
		}
		if err != nil {
			r.err = fmt.Errorf("%s: %w", r.task.Path, err)
			r.close()
			return false
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		if r.remaining >= 0 {
			if rec.NumRows() > r.remaining {
				sliced := rec.NewSlice(0, r.remaining)
				rec.Release()
				rec = sliced
			}
			r.remaining -= rec.NumRows()
		}
		r.cur = rec
		return true
	}
}

// nextBatch returns the next batch of the current row group, moving to the
// next row group when one is exhausted; io.EOF after the last.
func (r *taskReader) nextBatch() (arrow.RecordBatch, error) {
	for {
		if r.rowGroup >= 0 {
			if len(r.request) == 0 && r.constRows > 0 {
				n := min(r.constRows, int64(r.task.BatchSize))
				if r.remaining >= 0 {
					n = min(n, r.remaining)
				}
				r.constRows -= n
				return r.assemble(nil, int(n))
			}
			if r.batches != nil {
				b, err := r.batches.Next()
				if err == nil {
					defer b.Release()
					return r.assemble(b.Columns, b.NumRows)
				}
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				r.batches.Close()
				r.batches = nil
			}
		}
		r.rowGroup++
		if r.rowGroup >= len(r.file.RowGroups) {
			return nil, io.EOF
		}
		if err := r.startRowGroup(); err != nil {
			return nil, err
		}
	}
}

func (r *taskReader) startRowGroup() error {
	rg := r.file.RowGroups[r.rowGroup]
	rows := rg.NumRows
	if r.remaining >= 0 {
		rows = min(rows, r.remaining)
	}
	if len(r.request) == 0 {
		r.constRows = rows
		return nil
	}
	br, err := r.file.NewBatchReader(ReadRequest{
		Columns:         r.request,
		RowGroup:        r.rowGroup,
		RowEnd:          rows,
		BatchSize:       r.task.BatchSize,
		Allocator:       r.mem,
		VerifyChecksums: r.task.VerifyCRC,
	})
	if err != nil {
		return err
	}
	r.batches = br
	return nil
}

// assemble builds one output batch from the decoder's columns.
func (r *taskReader) assemble(decoded []arrow.Array, n int) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(r.plans))
	release := func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}
	for i, p := range r.plans {
		var err error
		if r.decoded[i] >= 0 {
			cols[i], err = p.build(decoded[r.decoded[i]], r.mem)
		} else {
			cols[i], err = p.missing(n, r.mem)
		}
		if err != nil {
			release()
			return nil, err
		}
	}
	rec := array.NewRecordBatch(r.schema, cols, int64(n))
	release()
	return rec, nil
}
