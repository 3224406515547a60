package scan

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
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/parquet"
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
	// metered counts the bytes read through handle.
	metered *meteredFile
	file    *parquet.File
	plans   []*columnPlan
	// decoded[i] is the position of plans[i]'s column among the decoder's
	// outputs, -1 for a constant column.
	decoded []int
	request []parquet.Column

	// visible is how many plans are output columns; the rest are equality
	// delete keys read only to probe the delete sets.
	visible int
	deletes *deleteSet
	filter  *rowFilter
	// eqColumns[i] are the plan indexes of deletes.equality[i]'s keys.
	eqColumns [][]int
	// rgStart is the file position of the current row group's first row;
	// pos the file position of the next batch's first row.
	rgStart, pos  int64
	keep, passBuf []byte
	eqProbe       eqProbe
	// eqActive[i] is deletes.equality[i] narrowed to the keys the current
	// row group can match (nil: none), built in eqNarrowed[i].
	eqActive   []*equalityDeletes
	eqNarrowed []equalityDeletes

	rowGroup int
	batches  *parquet.BatchReader
	// late is the current row group's per-column readers when a filter
	// lets payload columns be decoded for surviving rows only.
	late      *lateRead
	conjuncts []*conjunct
	counters  *scanCounters
	// filters, when the task runs as part of a scan, is asked between row
	// groups for filters added since runtimeVersion; baseFilter is the
	// task's own filter they tighten.
	filters          filterSource
	runtimeVersion   int
	baseFilter       expr.Expr
	baseFilterFields []iceberg.NestedField
	remaining        int64 // rows the limit still allows; -1 for no limit
	batchSize        int
	verifyCRC        bool
	constRows        int64 // rows left in the current row group when nothing is decoded
	cur              arrow.RecordBatch
	err              error
}

// Reader streams the task's batches, opening its data file through files,
// with this process's read settings: no Scan is needed, so a task built by
// hand, or read from bytes, reads the same way.
func (t *Task) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions) (array.RecordReader, error) {
	schema, err := arrowschema.ArrowSchema(t.Fields)
	if err != nil {
		return nil, err
	}
	env, err := readerEnv(files, alloc, schema, opts)
	if err != nil {
		return nil, err
	}
	return t.open(ctx, env)
}

// readerEnv is the environment of a read outside a scan: opts, checked,
// with their memory limit turned into fetch settings for one task read at
// a time.
func readerEnv(files fileio.FileIO, alloc memory.Allocator, schema *arrow.Schema, opts ReadOptions) (readEnv, error) {
	if err := opts.Validate(); err != nil {
		return readEnv{}, err
	}
	env := readEnv{files: files, alloc: alloc, schema: schema, read: opts}
	if opts.MemoryLimit > 0 {
		env.fetch, _ = memoryBudget(opts.MemoryLimit, 1, leafCount(schema.Fields()), parquet.FetchOptions{}, 0)
	}
	return env, nil
}

// readEnv is what the process running a task lends its reader: where files
// open, the memory batches take, the output schema, the read settings
// (their MemoryLimit already turned into fetch), and, within a scan, the
// shared delete cache, the fetch settings, the data file opened ahead, the
// metrics to count into and the source of filters added while it runs.
// None of it is part of the task's bytes.
type readEnv struct {
	files    fileio.FileIO
	alloc    memory.Allocator
	schema   *arrow.Schema
	read     ReadOptions
	deletes  *deleteCache
	fetch    parquet.FetchOptions
	opened   *openedFile
	counters *scanCounters
	filters  filterSource
	// footers shares the footer parse between ranges of one file.
	footers *footerShare
}

func (t *Task) open(ctx context.Context, env readEnv) (*taskReader, error) {
	fail := func(err error) (*taskReader, error) {
		if env.opened != nil {
			env.opened.close()
		}
		return nil, err
	}
	if !strings.EqualFold(t.FileFormat, "parquet") {
		return fail(errkind.Errorf(errkind.Unsupported, "%s: data file format %q is not supported (only Parquet)", t.Path, t.FileFormat))
	}
	base, baseFields, version := t.Filter, t.FilterFields, 0
	if env.filters != nil {
		var added []expr.Expr
		added, version = env.filters.current()
		if len(added) > 0 {
			tightened := *t
			if err := env.filters.tighten(&tightened, added); err != nil {
				return fail(err)
			}
			t = &tightened
		}
	}
	alloc := env.alloc
	if alloc == nil {
		alloc = memory.DefaultAllocator
	}
	var handle fileio.File
	var metered *meteredFile
	var f *parquet.File
	var err error
	if pre := env.opened; pre != nil {
		<-pre.done
		handle, metered, f, err = pre.handle, pre.metered, pre.file, pre.err
	} else {
		handle, metered, f, err = openDataFile(ctx, env.files, t, env.fetch, env.footers)
	}
	if err != nil {
		return nil, err
	}
	counters := env.counters
	if counters == nil {
		counters = &scanCounters{}
	}
	read := env.read.forTask(t)
	r := &taskReader{ctx: ctx, task: t, schema: env.schema, mem: alloc, handle: handle, metered: metered, file: f, counters: counters,
		remaining: read.remaining(), batchSize: read.BatchSize, verifyCRC: read.VerifyCRC,
		filters: env.filters, runtimeVersion: version, baseFilter: base, baseFilterFields: baseFields}
	r.refs.Store(1)
	if err := r.plan(env.deletes, env.files); err != nil {
		f.Close()
		handle.Close()
		return nil, err
	}
	r.rowGroup = -1
	return r, nil
}

// openDataFile opens a task's data file and reads its footer.
func openDataFile(ctx context.Context, files fileio.FileIO, t *Task, fetch parquet.FetchOptions, footers *footerShare) (fileio.File, *meteredFile, *parquet.File, error) {
	handle, err := fileio.OpenSized(ctx, files, t.Path, t.FileSize)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open data file: %w", err)
	}
	metered := &meteredFile{r: handle}
	if !fetch.Shaped() && fileio.IsLocal(handle) {
		// A local read has no round trip to save: chunks are read when
		// decoding needs them, as they come, without merged spans held
		// across row groups (measured: the spans cost a full local scan
		// about 10 % in page faults and zeroing).
		fetch.Direct = true
	}
	opts := &parquet.OpenOptions{Fetch: fetch}
	f, err := footers.open(t.Path,
		func() (*parquet.File, error) { return parquet.OpenFile(metered, handle.Size(), opts) },
		func(parsed *parquet.File) *parquet.File { return parsed.Reopen(metered, opts) })
	if err != nil {
		handle.Close()
		return nil, nil, nil, fmt.Errorf("data file %s: %w", t.Path, err)
	}
	if err := checkRecordCount(t, f); err != nil {
		f.Close()
		handle.Close()
		return nil, nil, nil, err
	}
	return handle, metered, f, nil
}

// checkRecordCount holds the file's footer to the manifest's record_count.
// The footer's row groups are checked against each other when it is parsed,
// but a footer that agrees with itself can still have lost rows (a row
// group left out), and reading it would return fewer rows without a word.
// The whole footer is compared, also for a task that reads a byte-range
// split of the file, so the check does not depend on how far a read goes
// (a limit stops early) or on filters and deletes. A task built by hand
// may leave record_count 0, which is taken as unknown: manifests list no
// empty data files.
func checkRecordCount(t *Task, f *parquet.File) error {
	if t.RecordCount > 0 && f.NumRows != t.RecordCount {
		return errkind.Errorf(errkind.Corrupt, "file %s: its footer holds %d rows but the manifest's record_count is %d",
			t.Path, f.NumRows, t.RecordCount)
	}
	return nil
}

// plan resolves the output columns and the equality-delete keys against
// the file, and loads the deletes.
func (r *taskReader) plan(cache *deleteCache, files fileio.FileIO) error {
	t := r.task
	resolver := newFileResolver(r.file, t)
	plans, err := resolver.planFields(t.Fields)
	if err != nil {
		return err
	}
	r.plans, r.visible = plans, len(plans)
	if r.deletes, err = t.loadDeletes(r.ctx, files, cache); err != nil {
		return err
	}
	if r.deletes != nil {
		for _, eq := range r.deletes.equality {
			cols := make([]int, len(eq.fieldIDs))
			for i, id := range eq.fieldIDs {
				if cols[i], err = r.keyColumn(resolver, id); err != nil {
					return err
				}
			}
			r.eqColumns = append(r.eqColumns, cols)
		}
	}
	if err := r.bindFilter(resolver); err != nil {
		return err
	}
	r.requestNewPlans()
	return nil
}

// requestNewPlans adds the column plans not requested yet (all of them at
// first; later the hidden columns a rebound filter planned) to the
// decoder's request, a constant column as -1.
func (r *taskReader) requestNewPlans() {
	for _, p := range r.plans[len(r.decoded):] {
		if p.node == nil {
			r.decoded = append(r.decoded, -1)
			continue
		}
		r.decoded = append(r.decoded, len(r.request))
		r.request = append(r.request, p.request())
	}
}

// keyColumn is the plan index of an equality key: an output column when
// the scan returns that column whole, else a hidden one read for probing.
func (r *taskReader) keyColumn(resolver *fileResolver, id int) (int, error) {
	for i, p := range r.plans {
		if p.field.ID == id && !iceberg.IsNested(p.field.Type) {
			return i, nil
		}
	}
	fields, err := r.task.equalityFields([]int{id})
	if err != nil {
		return 0, err
	}
	return r.hiddenColumn(resolver, fields[0])
}

// hiddenColumn plans a column read only to evaluate deletes or filters.
func (r *taskReader) hiddenColumn(resolver *fileResolver, f iceberg.NestedField) (int, error) {
	f.Required = false
	hidden, err := resolver.planFields([]iceberg.NestedField{f})
	if err != nil {
		return 0, err
	}
	r.plans = append(r.plans, hidden[0])
	return len(r.plans) - 1, nil
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
	if r.late != nil {
		r.late.close()
		r.late = nil
	}
	r.file.Close()
	r.flushBytes()
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
			r.counters.tasksDone.Add(1)
			r.counters.taskBytesDone.Add(r.task.span())
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
		r.cur = trimToLimit(rec, &r.remaining)
		r.counters.rowsReturned.Add(r.cur.NumRows())
		return true
	}
}

// trimToLimit slices rec to the rows the limit still allows and counts
// them off; a negative remaining means no limit. It takes over rec.
func trimToLimit(rec arrow.RecordBatch, remaining *int64) arrow.RecordBatch {
	if *remaining < 0 {
		return rec
	}
	if rec.NumRows() > *remaining {
		sliced := rec.NewSlice(0, *remaining)
		rec.Release()
		rec = sliced
	}
	*remaining -= rec.NumRows()
	return rec
}

// nextBatch returns the next batch of the current row group, moving to the
// next row group when one is exhausted; io.EOF after the last.
func (r *taskReader) nextBatch() (arrow.RecordBatch, error) {
	for {
		if r.rowGroup >= 0 {
			if len(r.request) == 0 && r.constRows > 0 {
				n := min(r.constRows, int64(r.batchSize))
				if r.remaining >= 0 && !r.dropsRows() {
					n = min(n, r.remaining)
				}
				r.constRows -= n
				return r.assemble(nil, int(n))
			}
			if r.late != nil {
				rec, err := r.nextLate()
				if err == nil {
					return rec, nil
				}
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				r.late.close()
				r.late = nil
			}
			if r.batches != nil {
				b, err := r.batches.Next()
				if err == nil {
					defer b.Release()
					r.pos = r.rgStart + b.FirstRow
					return r.assemble(b.Columns, b.NumRows)
				}
				if !errors.Is(err, io.EOF) {
					return nil, err
				}
				r.batches.Close()
				r.batches = nil
			}
		}
		if !r.advanceRowGroup() {
			return nil, io.EOF
		}
		if err := r.startRowGroup(); err != nil {
			return nil, err
		}
	}
}

func (r *taskReader) startRowGroup() error {
	r.flushBytes()
	r.file.ReleaseFetched(r.rowGroup)
	if err := r.refreshFilter(); err != nil {
		return err
	}
	r.pos = r.rgStart
	r.constRows = 0
	req, read, err := r.planRowGroup()
	if err != nil || !read {
		return err
	}
	r.counters.rowGroupsRead.Add(1)
	r.narrowEquality()
	if r.filter != nil || r.deletes != nil {
		return r.startLate(req)
	}
	br, err := r.file.NewBatchReader(req)
	if err != nil {
		return err
	}
	br.Prefetch(false, false)
	r.batches = br
	r.readAhead(br.Leaves)
	return nil
}

// planRowGroup decides what the current row group needs: nothing (its
// rows are all deleted or pruned), constant rows only (r.constRows, when
// no column is decoded), or the read req.
func (r *taskReader) planRowGroup() (req parquet.ReadRequest, read bool, err error) {
	rows := r.file.RowGroups[r.rowGroup].NumRows
	if r.deletes.deletedIn(r.rgStart, r.rgStart+rows) == rows {
		// Every row of the group is deleted: decode nothing.
		r.counters.rowGroupsSkipped.Add(1)
		return req, false, nil
	}
	if r.remaining >= 0 && !r.dropsRows() {
		// Without deletes or a filter every decoded row is returned, so the
		// limit bounds decoding too.
		rows = min(rows, r.remaining)
	}
	if len(r.request) == 0 {
		r.constRows = rows
		return req, false, nil
	}
	req = parquet.ReadRequest{
		Columns:   r.request,
		RowGroup:  r.rowGroup,
		BatchSize: r.batchSize,
		Allocator: r.mem,
		VerifyCRC: r.verifyCRC,
	}
	skip, pruned, err := r.pruneRowGroup()
	if err != nil || skip {
		return req, false, err
	}
	req.Ranges = intersectRanges(r.aliveRanges(rows), pruned)
	if req.Ranges == nil {
		req.RowEnd = rows
	} else if len(req.Ranges) == 0 {
		return req, false, nil // the page index and the deletes leave no row
	}
	return req, true, nil
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
	start := r.pos
	for i, p := range r.plans {
		var stored arrow.Array
		if r.decoded[i] >= 0 {
			stored = decoded[r.decoded[i]]
		}
		var err error
		switch {
		case p.meta == FieldIDPos || p.meta == FieldIDRowID || p.meta == FieldIDLastUpdatedSequenceNumber:
			cols[i], err = r.lineage(p, stored, start, n)
		case stored != nil:
			cols[i], err = p.build(stored, r.mem)
		default:
			cols[i], err = p.missing(n, r.mem)
		}
		if err != nil {
			release()
			return nil, err
		}
	}
	r.pos += int64(n)
	keep, kept, err := r.survivors(cols, start, n)
	if err != nil {
		release()
		return nil, err
	}
	visible := cols[:r.visible]
	if kept == n {
		rec := array.NewRecordBatch(r.schema, visible, int64(n))
		release()
		return rec, nil
	}
	rec := array.NewRecordBatch(r.schema, visible, int64(n))
	release()
	defer rec.Release()
	return kernels.FilterRecord(rec, keep, r.mem)
}

// dropsRows reports whether deletes or a filter may drop decoded rows, so
// that a limit cannot bound decoding.
func (r *taskReader) dropsRows() bool { return r.deletes != nil || r.filter != nil }

// lineage computes _pos, and _row_id and _last_updated_sequence_number
// (v3 row lineage): a value the file stores wins; a null becomes the
// file's first_row_id + _pos and the file's data sequence number; both
// stay null when the file has no first_row_id. Positions are the rows'
// positions in the data file, before deletes.
func (r *taskReader) lineage(p *columnPlan, stored arrow.Array, start int64, n int) (arrow.Array, error) {
	var computed arrow.Array
	switch {
	case p.meta == FieldIDPos:
		return kernels.Sequence(start, n, r.mem)
	case r.task.FirstRowID == nil:
	case p.meta == FieldIDRowID:
		seq, err := kernels.Sequence(*r.task.FirstRowID+start, n, r.mem)
		if err != nil {
			return nil, err
		}
		computed = seq
	default:
		c, err := kernels.Constant(arrow.PrimitiveTypes.Int64, r.task.DataSequenceNumber, n, r.mem)
		if err != nil {
			return nil, err
		}
		computed = c
	}
	if stored == nil {
		if computed == nil {
			return kernels.Nulls(arrow.PrimitiveTypes.Int64, n, r.mem)
		}
		return computed, nil
	}
	s, err := p.build(stored, r.mem)
	if err != nil || computed == nil {
		return s, err
	}
	defer s.Release()
	defer computed.Release()
	return kernels.CoalesceInt64(s.(*array.Int64), computed.(*array.Int64), r.mem)
}

// minDeletedRun is the shortest run of deleted rows worth skipping in
// the decoder: shorter runs cost less to decode and filter than to split
// a batch around.
const minDeletedRun = 4096

// aliveRanges are the row ranges of the current row group that hold rows
// no position delete removes, when long deleted runs make skipping
// worthwhile; nil means read the group whole. The decoder skips the rows
// between ranges without decompressing pages that hold none of them.
func (r *taskReader) aliveRanges(rows int64) []parquet.RowRange {
	ds := r.deletes
	if ds == nil || ds.deletedIn(r.rgStart, r.rgStart+rows) < minDeletedRun {
		return nil
	}
	var out []parquet.RowRange
	next := int64(0) // first row not yet covered
	runStart, runEnd := int64(-1), int64(-1)
	flush := func() {
		if runEnd-runStart >= minDeletedRun {
			if runStart > next {
				out = append(out, parquet.RowRange{Start: next, End: runStart})
			}
			next = runEnd
		}
	}
	for _, q := range ds.positionsIn(r.rgStart, r.rgStart+rows) {
		p := int64(q) - r.rgStart
		if p == runEnd {
			runEnd++
			continue
		}
		flush()
		runStart, runEnd = p, p+1
	}
	flush()
	if len(out) == 0 && next == 0 {
		return nil
	}
	if next < rows {
		out = append(out, parquet.RowRange{Start: next, End: rows})
	}
	if len(out) == 0 {
		// Everything is deleted; startRowGroup already skips that case.
		return nil
	}
	return out
}

// survivors marks the rows of a batch that no delete removes and the
// filter accepts: positions first, then equality keys for the rows still
// alive, then the filter.
func (r *taskReader) survivors(cols []arrow.Array, start int64, n int) (keep []byte, kept int, err error) {
	ds := r.deletes
	noDeletes := ds == nil || (ds.deletedIn(start, start+int64(n)) == 0 && len(ds.equality) == 0)
	if noDeletes && r.filter == nil {
		return nil, n, nil
	}
	keep, kept = r.resetKeep(n)
	if ds != nil {
		kept = clearDeletedPositions(ds, keep, start, n, kept)
		for e := range ds.equality {
			if kept, err = r.probeEquality(e, cols, keep, kept); err != nil {
				return nil, 0, err
			}
		}
		r.counters.rowsDeleted.Add(int64(n - kept))
	}
	if r.filter != nil {
		pass, err := r.filter.eval(r.filter.root, cols, n)
		if err != nil {
			return nil, 0, err
		}
		for i := range keep {
			keep[i] &= pass[i]
		}
		before := kept
		kept = kernels.CountBits(keep, 0, n)
		r.counters.rowsFiltered.Add(int64(before - kept))
	}
	return keep, kept, nil
}

// resetKeep readies the keep bitmap for n rows, every one kept.
func (r *taskReader) resetKeep(n int) ([]byte, int) {
	words := (n + 7) / 8
	if cap(r.keep) < words {
		r.keep = make([]byte, words)
	}
	keep := r.keep[:words]
	for i := range keep {
		keep[i] = 0xff
	}
	return keep, n
}

// clearDeletedPositions clears the bits of rows [start, start+n) that a
// position delete or deletion vector removes and returns the rows kept.
func clearDeletedPositions(ds *deleteSet, keep []byte, start int64, n, kept int) int {
	for _, p := range ds.positionsIn(start, start+int64(n)) {
		i := int(int64(p) - start)
		if keep[i>>3]&(1<<(i&7)) != 0 {
			keep[i>>3] &^= 1 << (i & 7)
			kept--
		}
	}
	return kept
}
