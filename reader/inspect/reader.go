package inspect

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/coroloop"
)

// reader is a metadata table's rows as an array.RecordReader: rows pulled
// from the source, filtered, projected and appended a batch at a time.
type reader struct {
	refs   atomic.Int64
	what   string
	schema *arrow.Schema
	// fields are the projected fields and their positions in a row.
	fields []iceberg.NestedField
	pos    []int
	filter *expr.TupleEvaluator
	next   func() ([]any, error, bool)
	stop   func()
	loop   *coroloop.Loop // where next, nextItem and stop run
	b      *array.RecordBuilder
	limit  int64
	sent   int64
	batch  int
	rec    arrow.RecordBatch
	err    error

	// With a columnar source (cols): its row handles, an appender per
	// projected field, and what to do before a batch is made.
	cols     *columns
	nextItem func() (any, error, bool)
	app      []func(item any) error
	flush    func()
}

func newReader(ctx context.Context, what string, src *source, opts Options, mem memory.Allocator) (*reader, error) {
	r := &reader{what: what, limit: opts.Limit, batch: opts.BatchSize}
	if r.batch <= 0 {
		r.batch = DefaultBatchSize
	}
	fields := src.schema.Fields
	if opts.Columns == nil {
		r.fields = fields
		for i := range fields {
			r.pos = append(r.pos, i)
		}
	} else {
		for _, name := range opts.Columns {
			i := -1
			for j, f := range fields {
				if f.Name == name || opts.CaseInsensitive && strings.EqualFold(f.Name, name) {
					i = j
					break
				}
			}
			if i < 0 {
				names := make([]string, len(fields))
				for j, f := range fields {
					names[j] = f.Name
				}
				msg := fmt.Sprintf("inspect %s: no column %q", what, name)
				if near := iceberg.ClosestName(name, names); near != "" {
					msg += fmt.Sprintf("; did you mean %q?", near)
				}
				return nil, errkind.New(errkind.InvalidArgument, msg)
			}
			r.fields = append(r.fields, fields[i])
			r.pos = append(r.pos, i)
		}
	}
	if opts.Filter != nil {
		bound, err := expr.Bind(opts.Filter, src.schema, opts.CaseInsensitive)
		if err != nil {
			return nil, fmt.Errorf("inspect %s: filter: %w", what, err)
		}
		if r.filter, err = expr.NewTupleEvaluator(bound, src.schema.AsStruct()); err != nil {
			return nil, fmt.Errorf("inspect %s: filter: %w", what, err)
		}
	}
	as, err := arrowschema.ArrowSchema(r.fields)
	if err != nil {
		return nil, err
	}
	r.schema = as
	r.b = array.NewRecordBuilder(mem, as)
	if src.cols != nil {
		r.cols = src.cols
		bs := make([]array.Builder, len(r.fields))
		for i := range bs {
			bs[i] = r.b.Field(i)
		}
		if r.app, r.flush, err = src.cols.appenders(r.pos, bs); err != nil {
			r.b.Release()
			return nil, fmt.Errorf("inspect %s: %w", what, err)
		}
	}
	// The source is pulled on a goroutine of the reader's own: hosts call
	// Next from whichever thread they like (coroloop).
	r.loop = coroloop.Start()
	r.loop.Do(func() {
		if src.cols != nil {
			r.nextItem, r.stop = iter.Pull2(src.cols.items(ctx))
		} else {
			r.next, r.stop = iter.Pull2(src.rows(ctx))
		}
	})
	r.refs.Store(1)
	return r, nil
}

func (r *reader) Schema() *arrow.Schema { return r.schema }

func (r *reader) Next() bool {
	if r.rec != nil {
		if r.cols != nil && r.b != nil {
			for i := range r.fields {
				reserveLike(r.b.Field(i), r.rec.Column(i))
			}
		}
		r.rec.Release()
		r.rec = nil
	}
	if r.err != nil || r.b == nil {
		return false
	}
	var n int
	r.loop.Do(func() { n = r.fill() })
	if r.err != nil {
		return false
	}
	if n == 0 {
		r.close()
		return false
	}
	if r.flush != nil {
		r.flush()
	}
	r.rec = r.b.NewRecordBatch()
	return true
}

// fill appends the next batch's rows to the builders and returns how
// many it kept; it runs on the reader's loop, which owns the source's
// coroutine.
func (r *reader) fill() int {
	n := 0
	for n < r.batch && (r.limit == 0 || r.sent < r.limit) {
		var kept, ok bool
		if r.cols != nil {
			kept, ok = r.appendItem()
		} else {
			kept, ok = r.appendRow()
		}
		if r.err != nil || !ok {
			break
		}
		if kept {
			n++
			r.sent++
		}
	}
	return n
}

// appendRow appends the source's next row unless the filter drops it:
// ok false at its end or on an error (r.err).
func (r *reader) appendRow() (kept, ok bool) {
	row, err, ok := r.next()
	if !ok {
		return false, false
	}
	if err != nil {
		r.err = r.sourceError(err)
		return false, false
	}
	if r.filter != nil && !r.filter.Eval(row) {
		return false, true
	}
	for i, f := range r.fields {
		if err := arrowschema.AppendValue(r.b.Field(i), f.Type, row[r.pos[i]]); err != nil {
			r.err = fmt.Errorf("inspect %s: column %s: %w", r.what, f.Name, err)
			return false, false
		}
	}
	return true, true
}

// appendItem is appendRow for a columnar source: the row's tuple is
// built only for a filter.
func (r *reader) appendItem() (kept, ok bool) {
	item, err, ok := r.nextItem()
	if !ok {
		return false, false
	}
	if err != nil {
		r.err = r.sourceError(err)
		return false, false
	}
	if r.filter != nil && !r.filter.Eval(r.cols.tuple(item)) {
		return false, true
	}
	for i, a := range r.app {
		if err := a(item); err != nil {
			r.err = fmt.Errorf("inspect %s: column %s: %w", r.what, r.fields[i].Name, err)
			return false, false
		}
	}
	return true, true
}

// sourceError is an error reading the source's rows. A file the metadata
// names that is gone (an expired snapshot's manifest list) is not found,
// not corrupt.
func (r *reader) sourceError(err error) error {
	kind := errkind.Corrupt
	if errors.Is(err, fs.ErrNotExist) {
		kind = errkind.NotFound
	}
	return errkind.Default(kind, fmt.Errorf("inspect %s: %w", r.what, err))
}

func (r *reader) RecordBatch() arrow.RecordBatch { return r.rec }

// Record is RecordBatch, for readers of the older name.
func (r *reader) Record() arrow.RecordBatch { return r.rec }

func (r *reader) Err() error { return r.err }

func (r *reader) Retain() { r.refs.Add(1) }

func (r *reader) Release() {
	if r.refs.Add(-1) != 0 {
		return
	}
	if r.rec != nil {
		r.rec.Release()
		r.rec = nil
	}
	r.close()
}

// close stops the source and frees the builder.
func (r *reader) close() {
	if r.stop != nil {
		r.loop.Do(r.stop)
		r.stop = nil
		r.loop.Stop()
	}
	if r.b != nil {
		r.b.Release()
		r.b = nil
	}
}
