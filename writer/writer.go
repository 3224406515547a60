package writer

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/writer/parquetfile"
	"github.com/google/uuid"
)

// createdByVersion goes into each file's created_by. 0.1.0 files
// dictionary-encoded floats, whose bounds parquet-go gets wrong next to a
// NaN (see isFloating); the reader tells them by their encoding.
const createdByVersion = "0.2.0"

// A file takes rows in pieces, between which its row group and file size
// are checked. A piece is as many rows as the file's bytes per row so far
// say fit before either limit, within [minPieceRows, maxPieceRows]: the
// columns of a piece are written in parallel and wait for each other at
// its end, and 4096-row pieces left two threads at 1.42× the speed of one
// in the write section (benchmarks, -writes, zstd; 65 536: 1.84×).
const (
	minPieceRows = 4096
	maxPieceRows = 65536
)

// pieceRows is the rows of f's next piece.
func (w *Writer) pieceRows(f *dataFile) int {
	if f.rows == 0 {
		return minPieceRows
	}
	perRow := float64(max(f.size(), 1)) / float64(f.rows)
	left := min(w.opts.RowGroupSize-f.bufferedRowGroup(), w.opts.TargetFileSize-f.size())
	return int(min(max(float64(left)/perRow, minPieceRows), maxPieceRows))
}

// Writer writes a stream of Arrow batches as Iceberg data files of one
// table schema and partition spec. It commits nothing: Close returns the
// files' manifest entries for a commit to add. A Writer is not safe for
// concurrent use; it converts the columns of a batch in parallel itself.
type Writer struct {
	ctx      context.Context
	files    fileio.FileIO
	location string
	spec     *iceberg.PartitionSpec
	opts     Options
	fs       *fileSchema
	config   *parquetfile.Config
	parts    *partitioner
	binding  *batchBinding
	leaves   []*leafWriter
	order    []int // leaves by falling cost, for writeLeaves
	prefix   string
	counter  int
	done     []manifest.DataFile
	sort     *sorter // nil unless the options give a sort order
	err      error
	closed   bool
	// The table schema and its JSON, for the config that replaces the
	// first when the first file's columns are chosen dictionary or PLAIN
	// (dict_choice.go); dictDecided once they are.
	schema      *iceberg.Schema
	schemaJSON  []byte
	dictDecided bool
}

// chooseDictionaries writes the columns whose values in the bound batch
// are mostly distinct PLAIN in this and every later file of the writer.
func (w *Writer) chooseDictionaries() error {
	w.dictDecided = true
	plain := map[int]bool{}
	for _, lw := range w.leaves {
		if lw.highCardinality() {
			plain[lw.leaf.field.ID] = true
		}
	}
	if len(plain) == 0 {
		return nil
	}
	fs, err := buildFileSchema(w.schema, dictionaryChoice{on: true, plain: plain})
	if err != nil {
		return err
	}
	if len(fs.leaves) != len(w.fs.leaves) {
		return fmt.Errorf("internal error: %d leaves with PLAIN columns, %d without", len(fs.leaves), len(w.fs.leaves))
	}
	config, err := newFileConfig(fs, w.opts, w.schemaJSON)
	if err != nil {
		return err
	}
	w.config = config
	return nil
}

// New starts a writer of files under dataLocation (the table's data
// directory, "<table location>/data" unless write.data.path says
// otherwise): <dataLocation>/<partition path>/<name>.parquet, with
// partition paths as Java spells them. spec nil means unpartitioned.
func New(ctx context.Context, files fileio.FileIO, dataLocation string, schema *iceberg.Schema, spec *iceberg.PartitionSpec, opts Options) (*Writer, error) {
	if files == nil || schema == nil {
		return nil, errors.New("writer: FileIO and schema are required")
	}
	if dataLocation == "" {
		return nil, errors.New("writer: empty data location")
	}
	if spec == nil {
		spec = &iceberg.PartitionSpec{}
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	fs, err := buildFileSchema(schema, dictionaryChoice{on: !opts.NoDictionary})
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	for _, l := range fs.leaves {
		l.mode = opts.metricsFor(l.field.ID)
	}
	parts, err := newPartitioner(spec, schema, fs)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	schemaJSON, err := schema.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	config, err := newFileConfig(fs, opts, schemaJSON)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	w := &Writer{
		ctx: ctx, files: files, location: dataLocation, spec: spec, opts: opts,
		fs: fs, config: config, parts: parts, prefix: opts.FilePrefix,
		schema: schema, schemaJSON: schemaJSON, dictDecided: opts.NoDictionary,
	}
	if w.prefix == "" {
		w.prefix = "00000-0-" + uuid.NewString()
	}
	for i, l := range fs.leaves {
		w.leaves = append(w.leaves, &leafWriter{leaf: l, index: i})
	}
	if o := opts.SortOrder; o != nil && len(o.Fields) > 0 {
		if w.sort, err = newSorter(o, schema, fs, opts.SortBufferSize); err != nil {
			return nil, fmt.Errorf("writer: %w", err)
		}
		id := o.OrderID
		w.opts.SortOrderID = &id
		if opts.RowOrder != nil {
			return nil, errkind.New(errkind.InvalidArgument, "writer: a sort order and a row order both given")
		}
	} else if opts.RowOrder != nil {
		w.sort = &sorter{limit: opts.SortBufferSize} // holds batches; no keys
	}
	return w, nil
}

// Write adds a batch. Its columns are matched to the table's by name at
// every depth, never by field id metadata (bindSchema); a missing optional
// column is written as nulls. After an error the writer accepts nothing
// more: call Abort.
func (w *Writer) Write(rec arrow.RecordBatch) error {
	if w.err != nil {
		return w.err
	}
	if w.closed {
		return errors.New("writer: Write after Close")
	}
	if err := w.write(rec); err != nil {
		w.fail(err)
		return err
	}
	return nil
}

func (w *Writer) write(rec arrow.RecordBatch) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	rec, err := unshredVariantColumns(rec, memory.DefaultAllocator)
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	defer rec.Release()
	if w.sort != nil {
		if err := checkBatch(rec); err != nil || rec.NumRows() == 0 {
			return err
		}
		if !w.sort.sameSchema(rec) {
			if err := w.flushSorted(); err != nil {
				return err
			}
		}
		if w.sort.add(rec) {
			return w.flushSorted()
		}
		return nil
	}
	return w.writeBatch(rec)
}

// checkBatch refuses a batch with fewer values in a column than rows.
func checkBatch(rec arrow.RecordBatch) error {
	n := int(rec.NumRows())
	for i, c := range rec.Columns() {
		if c.Len() < n {
			return fmt.Errorf("writer: malformed batch: column %d has %d values for %d rows", i, c.Len(), n)
		}
	}
	return nil
}

// flushSorted writes the batches a sorted writer holds, each partition's
// rows sorted into files it finishes (sorted.go).
func (w *Writer) flushSorted() error {
	rec, err := w.sort.take()
	if err != nil || rec == nil {
		return err
	}
	defer rec.Release()
	return w.writeBatch(rec)
}

// writeBatch routes a batch's rows to their partitions' files; a sorted
// writer's go sorted, each partition's into files of their own.
func (w *Writer) writeBatch(rec arrow.RecordBatch) error {
	if w.binding == nil || (w.binding.schema != rec.Schema() && !w.binding.schema.Equal(rec.Schema())) {
		b, err := bindSchema(w.fs, rec.Schema())
		if err != nil {
			return fmt.Errorf("writer: %w", err)
		}
		w.binding = b
	}
	n := int(rec.NumRows())
	if n == 0 {
		return nil
	}
	if err := checkBatch(rec); err != nil {
		return err
	}
	for i, lw := range w.leaves {
		if err := lw.bind(rec, &w.binding.leaves[i]); err != nil {
			return fmt.Errorf("writer: %w", err)
		}
	}
	if err := w.parts.bind(rec, w.fs, w.binding); err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	groups, err := w.parts.split(n)
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	if w.sort != nil {
		if err := w.sort.compute(rec, w.fs, w.binding, n); err != nil {
			return fmt.Errorf("writer: %w", err)
		}
		for _, st := range groups {
			rows := w.sort.rowsOf(st, n)
			w.sort.order(rows)
			if w.opts.RowOrder != nil {
				if err := w.opts.RowOrder(rec, rows); err != nil {
					return fmt.Errorf("writer: ordering rows: %w", err)
				}
			}
			if err := w.writeRows(st, rows, len(rows)); err != nil {
				return err
			}
			if err := w.finishFile(st); err != nil {
				return err
			}
		}
		return nil
	}
	for _, st := range groups {
		if st.all {
			err = w.writeRows(st, nil, n)
		} else {
			err = w.writeRows(st, st.rows, len(st.rows))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// writeRows writes n rows of the batch (rows[k], or k when rows is nil) to
// the partition's file, rolling to a new file at the target size.
func (w *Writer) writeRows(st *partitionState, rows []int32, n int) error {
	for done := 0; done < n; {
		if st.file == nil {
			f, err := w.openFile(st)
			if err != nil {
				return err
			}
			st.file = f
		}
		f := st.file
		m := min(w.pieceRows(f), n-done)
		var piece []int32
		if rows != nil {
			piece = rows[done : done+m]
		}
		if err := w.writeLeaves(f, piece, done, m); err != nil {
			return fmt.Errorf("writer: %s: %w", f.path, err)
		}
		f.rows += int64(m)
		done += m
		if f.bufferedRowGroup() >= w.opts.RowGroupSize {
			if err := f.pf.FlushRowGroup(); err != nil {
				return fmt.Errorf("writer: %s: %w", f.path, err)
			}
		}
		if f.size() >= w.opts.TargetFileSize {
			st.file = nil
			df, err := f.finish(w.fs, w.spec.ID, &w.opts)
			if err != nil {
				return fmt.Errorf("writer: %w", err)
			}
			w.done = append(w.done, df)
		}
	}
	return nil
}

// writeLeaves writes the rows to every column of f, the columns in
// parallel when the piece is big enough to pay for it.
func (w *Writer) writeLeaves(f *dataFile, rows []int32, first, n int) error {
	workers := w.opts.Parallelism
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(w.leaves))
	if workers <= 1 || n*len(w.leaves) < 8192 {
		for _, lw := range w.leaves {
			if err := lw.write(f, rows, first, n); err != nil {
				return err
			}
		}
		return nil
	}
	// The costliest columns start first (longest processing time first):
	// a piece is done when its slowest worker is, and a column taken last
	// leaves the other workers idle while it runs. On the write section's
	// rows (benchmarks, -writes) the text column costs as much as several
	// others together and comes last in the schema.
	order := w.order[:0]
	for i := range w.leaves {
		order = append(order, i)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(w.leaves[b].cost, w.leaves[a].cost) })
	w.order = order
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, len(w.leaves))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				k := int(next.Add(1) - 1)
				if k >= len(order) {
					return
				}
				i := order[k]
				lw := w.leaves[i]
				start := time.Now()
				errs[i] = lw.write(f, rows, first, n)
				// A moving average per value, so pieces of any size
				// compare and a column whose data changes is re-ranked.
				perValue := float64(time.Since(start)) / float64(n)
				lw.cost += (perValue - lw.cost) / 8
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (w *Writer) openFile(st *partitionState) (*dataFile, error) {
	if !w.dictDecided {
		if err := w.chooseDictionaries(); err != nil {
			return nil, fmt.Errorf("writer: %w", err)
		}
	}
	w.counter++
	name := fmt.Sprintf("%s-%05d.parquet", w.prefix, w.counter)
	path := fileio.JoinPath(w.location, st.dir, name)
	out, err := w.files.Create(w.ctx, path)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	f, err := newDataFile(out, path, st.tuple, w.fs, w.config)
	if err != nil {
		return nil, fmt.Errorf("writer: %w", err)
	}
	return f, nil
}

// fail makes err sticky and discards the files still open; finished files
// stay until Abort, so the caller decides.
func (w *Writer) fail(err error) {
	if w.err == nil {
		w.err = err
	}
	if w.sort != nil {
		w.sort.release()
	}
	for _, st := range w.parts.order {
		if st.file != nil {
			st.file.abort()
			st.file = nil
		}
	}
}

// Close finishes every open file and returns the entries of all files
// written, in the order they were finished: content data, format PARQUET,
// the spec's id and the partition tuple in canonical Go forms. Nothing is
// committed. After an error, call Abort to delete what was written.
func (w *Writer) Close() ([]manifest.DataFile, error) {
	if w.err != nil {
		return nil, w.err
	}
	if w.closed {
		return w.done, nil
	}
	if w.sort != nil {
		if err := w.flushSorted(); err != nil {
			w.fail(err)
			return nil, err
		}
	}
	for _, st := range w.parts.order {
		if err := w.finishFile(st); err != nil {
			w.fail(err)
			return nil, err
		}
	}
	w.closed = true
	return w.done, nil
}

// finishFile finishes the partition's open file, if any, adding its entry
// to those written.
func (w *Writer) finishFile(st *partitionState) error {
	if st.file == nil {
		return nil
	}
	f := st.file
	st.file = nil
	df, err := f.finish(w.fs, w.spec.ID, &w.opts)
	if err != nil {
		return fmt.Errorf("writer: %w", err)
	}
	w.done = append(w.done, df)
	return nil
}

// Abort discards the files still open and deletes every file this writer
// finished, so nothing it wrote is left behind. It can follow Close (for a
// commit that failed) and can be called more than once.
func (w *Writer) Abort() error {
	if w.err == nil {
		w.err = errors.New("writer: aborted")
	}
	w.fail(w.err)
	ctx := context.WithoutCancel(w.ctx)
	var errs []error
	for _, df := range w.done {
		if err := w.files.Delete(ctx, df.FilePath); err != nil && !isNotExist(err) {
			errs = append(errs, err)
		}
	}
	w.done = nil
	return errors.Join(errs...)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
