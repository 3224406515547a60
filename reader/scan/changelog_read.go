package scan

import (
	"context"
	"fmt"
	"iter"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/coroloop"
	"github.com/floedb/floe/kernels"
)

// Schema is the Arrow schema of the group's batches: its Columns, table
// columns as its tasks read them.
func (g *ChangeGroup) Schema() (*arrow.Schema, error) {
	fields, err := g.outputFields()
	if err != nil {
		return nil, err
	}
	return arrowschema.ArrowSchema(fields)
}

// outputFields resolve Columns against the tasks' table columns and the
// change columns; index[i] is output column i's table column, -1 for a
// change column.
func (g *ChangeGroup) outputFields() ([]iceberg.NestedField, error) {
	fields, _, err := g.output()
	return fields, err
}

func (g *ChangeGroup) output() ([]iceberg.NestedField, []int, error) {
	if len(g.Items) == 0 {
		return nil, nil, fmt.Errorf("change group has no items")
	}
	data := g.Items[0].Task.dataFields()
	fields := make([]iceberg.NestedField, len(g.Columns))
	index := make([]int, len(g.Columns))
	for i, name := range g.Columns {
		found := false
		for j, f := range data {
			if f.Name == name {
				fields[i], index[i], found = f, j, true
				break
			}
		}
		for _, f := range changeFields {
			if !found && f.Name == name {
				fields[i], index[i], found = f, -1, true
			}
		}
		if !found {
			return nil, nil, errkind.Errorf(errkind.InvalidArgument, "change group: no column %q", name)
		}
	}
	return fields, index, nil
}

// Reader reads the group's changes. A group with both deleted and
// inserted rows is read whole before its first batch (its rows are
// matched); any other streams file by file.
func (g *ChangeGroup) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions) (array.RecordReader, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	schema, err := g.Schema()
	if err != nil {
		return nil, err
	}
	read := opts
	read.Limit = nil // a limit counts changes, not the rows read to find them
	seq := func(yield func(arrow.RecordBatch, error) bool) {
		err := g.each(ctx, files, alloc, read, schema, func(rec arrow.RecordBatch) error {
			if !yield(rec, nil) {
				return errStopGroup
			}
			return nil
		})
		if err != nil && err != errStopGroup {
			yield(nil, err)
		}
	}
	return newSeqReader(schema, seq, opts.Limit), nil
}

var errStopGroup = fmt.Errorf("change group: stopped")

// each reads the group and hands each output batch to emit, which takes
// ownership.
func (g *ChangeGroup) each(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions, schema *arrow.Schema, emit func(arrow.RecordBatch) error) error {
	_, index, err := g.output()
	if err != nil {
		return err
	}
	out := &changeOutput{g: g, schema: schema, index: index, alloc: alloc}
	if !g.twoSided() {
		for _, it := range g.Items {
			err := readItem(ctx, files, alloc, opts, it, func(data []arrow.Array, n int, change string) error {
				rec, err := out.batch(data, n, constantTypes(change))
				if err != nil {
					return err
				}
				return emit(rec)
			})
			if err != nil {
				return err
			}
		}
		return nil
	}
	m := changeMatch{limit: opts.MemoryLimit, snapshot: g.SnapshotID}
	defer m.release()
	for _, it := range g.Items {
		err := readItem(ctx, files, alloc, opts, it, func(data []arrow.Array, n int, change string) error {
			return m.add(data, n, change == ChangeInsert)
		})
		if err != nil {
			return err
		}
	}
	if err := m.match(g.KeyColumns); err != nil {
		return err
	}
	for _, side := range [][]*sideBatch{m.deleted, m.inserted} {
		for _, b := range side {
			rec, err := out.kept(b)
			if err != nil {
				return err
			}
			if rec == nil {
				continue
			}
			if err := emit(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// readItem reads one item's changed rows, handing each batch's table
// columns (borrowed for the call) and the change they are to fn.
func readItem(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions, it ChangeItem, fn func(data []arrow.Array, n int, change string) error) error {
	switch it.Kind {
	case "added":
		return readRows(ctx, files, alloc, opts, it.Task, func(rec arrow.RecordBatch) error {
			return fn(rec.Columns(), int(rec.NumRows()), ChangeInsert)
		})
	case "removed":
		return readRows(ctx, files, alloc, opts, it.Task, func(rec arrow.RecordBatch) error {
			return fn(rec.Columns(), int(rec.NumRows()), ChangeDelete)
		})
	}
	// deletes: the rows live before whose positions the deletes after
	// remove.
	posCol := len(it.Task.Fields) - 1
	if !it.Task.readsPos() || it.Task.Fields[posCol].ID != FieldIDPos {
		return fmt.Errorf("change item (deletes) must read _pos last")
	}
	alive, err := livePositions(ctx, files, alloc, opts, it, it.After)
	if err != nil {
		return err
	}
	if err := readChanged(ctx, files, alloc, opts, it.Task, alive, ChangeDelete, fn); err != nil {
		return err
	}
	if !withdraws(it) {
		return nil
	}
	// A delete file the snapshot removed (Java's RowDelta.removeDeletes)
	// brings back what no delete after covers: rows live after whose
	// position was not live before were inserted. A deletion vector
	// replaced by a larger one brings nothing back, which the positions
	// alone tell before any row is read.
	was, err := livePositions(ctx, files, alloc, opts, it, it.Task.Deletes)
	if err != nil {
		return err
	}
	if alive.within(was) {
		return nil
	}
	after := *it.Task
	after.Deletes = it.After
	return readChanged(ctx, files, alloc, opts, &after, was, ChangeInsert, fn)
}

// withdraws reports whether a deletes item has a delete before that is
// gone after.
func withdraws(it ChangeItem) bool {
	after := make(map[string]bool, len(it.After))
	for _, d := range it.After {
		after[d.Path] = true
	}
	for _, d := range it.Task.Deletes {
		if !after[d.Path] {
			return true
		}
	}
	return false
}

// readChanged reads t (whose last column is _pos) and hands fn, as
// change, its rows whose position is not in live.
func readChanged(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions, t *Task, live *bitset, change string, fn func(data []arrow.Array, n int, change string) error) error {
	posCol := len(t.Fields) - 1
	return readRows(ctx, files, alloc, opts, t, func(rec arrow.RecordBatch) error {
		pos := rec.Column(posCol).(*array.Int64).Int64Values()
		keep := make([]byte, (len(pos)+7)/8)
		kept := 0
		for i, p := range pos {
			if !live.has(p) {
				keep[i/8] |= 1 << (i % 8)
				kept++
			}
		}
		if kept == 0 {
			return nil
		}
		cols := rec.Columns()[:posCol]
		if kept == len(pos) {
			return fn(cols, len(pos), change)
		}
		taken := make([]arrow.Array, len(cols))
		for i, c := range cols {
			a, err := kernels.Filter(c, keep, alloc)
			if err != nil {
				releaseAll(taken[:i])
				return err
			}
			taken[i] = a
		}
		defer releaseAll(taken)
		return fn(taken, kept, change)
	})
}

// livePositions are the positions of the item's file live with deletes.
func livePositions(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions, it ChangeItem, deletes []TaskDelete) (*bitset, error) {
	after := *it.Task
	after.Deletes = deletes
	after.Fields = []iceberg.NestedField{it.Task.Fields[len(it.Task.Fields)-1]}
	after.Filter, after.FilterFields = nil, nil
	after.PartitionTuple = nil
	alive := newBitset(after.RecordCount)
	err := readRows(ctx, files, alloc, opts, &after, func(rec arrow.RecordBatch) error {
		for _, p := range rec.Column(0).(*array.Int64).Int64Values() {
			alive.set(p)
		}
		return nil
	})
	return alive, err
}

// readRows reads a task's batches, each released after fn.
func readRows(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions, t *Task, fn func(arrow.RecordBatch) error) error {
	r, err := t.Reader(ctx, files, alloc, opts)
	if err != nil {
		return err
	}
	defer r.Release()
	for r.Next() {
		rec := r.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		if err := fn(rec); err != nil {
			return err
		}
	}
	return r.Err()
}

func releaseAll(arrs []arrow.Array) {
	for _, a := range arrs {
		if a != nil {
			a.Release()
		}
	}
}

// bitset is a set of row positions of one file.
type bitset struct{ words []uint64 }

// maxBitsetHint bounds the room newBitset reserves from a row count it is
// told (a manifest's record_count, or a serialised task's): the set grows
// to the positions actually read, so a wrong count neither drops live
// rows nor allocates for rows the file does not have.
const maxBitsetHint = 1 << 27

func newBitset(n int64) *bitset {
	return &bitset{words: make([]uint64, (min(max(n, 0), maxBitsetHint)+63)/64)}
}

func (b *bitset) set(p int64) {
	if p < 0 {
		return
	}
	if w := int(p / 64); w >= len(b.words) {
		b.words = append(b.words, make([]uint64, w+1-len(b.words))...)
	}
	b.words[p/64] |= 1 << (p % 64)
}

// within reports whether every position of b is in o.
func (b *bitset) within(o *bitset) bool {
	for i, w := range b.words {
		var ow uint64
		if i < len(o.words) {
			ow = o.words[i]
		}
		if w&^ow != 0 {
			return false
		}
	}
	return true
}

func (b *bitset) has(p int64) bool {
	return p >= 0 && p/64 < int64(len(b.words)) && b.words[p/64]&(1<<(p%64)) != 0
}

// changeOutput builds output batches from table columns and changes.
type changeOutput struct {
	g      *ChangeGroup
	schema *arrow.Schema
	index  []int
	alloc  memory.Allocator
}

// constantTypes is a change type for every row.
func constantTypes(change string) func(n int) []string {
	return func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = change
		}
		return out
	}
}

// batch assembles an output batch of n rows from the table columns data
// (retained) and the rows' change types.
func (o *changeOutput) batch(data []arrow.Array, n int, types func(n int) []string) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, len(o.index))
	defer releaseAll(cols)
	for i, j := range o.index {
		if j >= 0 {
			data[j].Retain()
			cols[i] = data[j]
			continue
		}
		var err error
		switch o.schema.Field(i).Name {
		case "_change_type":
			b := array.NewStringBuilder(o.alloc)
			b.AppendValues(types(n), nil)
			cols[i] = b.NewArray()
			b.Release()
		case "_change_ordinal":
			cols[i], err = kernels.Constant(o.schema.Field(i).Type, int32(o.g.Ordinal), n, o.alloc)
		case "_commit_snapshot_id":
			cols[i], err = kernels.Constant(o.schema.Field(i).Type, o.g.SnapshotID, n, o.alloc)
		}
		if err != nil {
			return nil, err
		}
	}
	return array.NewRecordBatch(o.schema, cols, int64(n)), nil
}

// kept is the output batch of a matched side batch's remaining rows;
// nil when none remains.
func (o *changeOutput) kept(b *sideBatch) (arrow.RecordBatch, error) {
	var idx []int32
	var types []string
	for i, t := range b.types {
		if t != "" {
			idx = append(idx, int32(i))
			types = append(types, t)
		}
	}
	if len(idx) == 0 {
		return nil, nil
	}
	taken := make([]arrow.Array, len(b.cols))
	defer releaseAll(taken)
	for i, c := range b.cols {
		a, err := kernels.Take(c, idx, o.alloc)
		if err != nil {
			return nil, err
		}
		taken[i] = a
	}
	return o.batch(taken, len(idx), func(int) []string { return types })
}

// seqReader is an array.RecordReader over a sequence of batches, each of
// which it owns, stopping after limit rows (nil: none).
type seqReader struct {
	schema *arrow.Schema
	next   func() (arrow.RecordBatch, error, bool)
	stop   func()
	loop   *coroloop.Loop // where next and stop run; nil once closed
	cur    arrow.RecordBatch
	err    error
	// left is the rows the limit still allows; negative for no limit.
	left int64
	refs int64
	// onClose, when set, runs once the reader is released.
	onClose func()
}

func newSeqReader(schema *arrow.Schema, seq iter.Seq2[arrow.RecordBatch, error], limit *int64) *seqReader {
	// The sequence is pulled on a goroutine of the reader's own: hosts
	// call Next from whichever thread they like (coroloop).
	r := &seqReader{schema: schema, loop: coroloop.Start(), refs: 1, left: -1}
	r.loop.Do(func() { r.next, r.stop = iter.Pull2(seq) })
	if limit != nil {
		r.left = *limit
	}
	return r
}

func (r *seqReader) Schema() *arrow.Schema          { return r.schema }
func (r *seqReader) Record() arrow.RecordBatch      { return r.cur }
func (r *seqReader) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *seqReader) Err() error                     { return r.err }
func (r *seqReader) Retain()                        { r.refs++ }

func (r *seqReader) Release() {
	if r.refs--; r.refs == 0 {
		r.close()
	}
}

func (r *seqReader) close() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.loop != nil {
		r.loop.Do(r.stop)
		r.loop.Stop()
		r.loop = nil
	}
	if r.onClose != nil {
		r.onClose()
	}
}

func (r *seqReader) Next() bool {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
	if r.err != nil || r.left == 0 || r.loop == nil {
		return false
	}
	for {
		var rec arrow.RecordBatch
		var err error
		var ok bool
		r.loop.Do(func() { rec, err, ok = r.next() })
		if !ok {
			return false
		}
		if err != nil {
			r.err = err
			return false
		}
		if rec.NumRows() == 0 {
			rec.Release()
			continue
		}
		r.cur = trimToLimit(rec, &r.left)
		return true
	}
}
