package ops

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/kernels"
	"github.com/floedb/floe/reader/scan"
)

// upsertRun is an upsert written and ready to commit.
type upsertRun struct {
	c       *rowChange
	plan    *table.RowsPlan
	changes table.RowChanges
	in      *upsertInput
	mode    UpsertMode
	keys    []iceberg.NestedField
	opts    UpsertOptions
	// full are the input batches' compared columns, prepared for comparing
	// rows; nil when rows are not compared (see compareColumns).
	full []*kernels.Keys
	// cols are the columns the matching scan reads: the keys, then _pos.
	cols []string
	// compared are the non-key columns read again from the files holding
	// matches to compare whole rows (when full is set); the keys are
	// already known equal.
	compared []iceberg.NestedField
	// onePass: the matching scan reads the compared columns too (the keys
	// reach most files), so compare reads nothing more.
	onePass bool
	// matches are the live rows whose key the input holds, by data file as
	// written; tasks the scan's tasks by data file.
	matches map[string][]upsertMatch
	tasks   map[string][]*scan.Task
	// matched and changed mark input rows: their key matched a live row,
	// and some such row differs from them in a column.
	matched, changed  []bool
	updated, inserted int64
}

// upsertMatch is a live row whose key an input row holds.
type upsertMatch struct {
	pos   int64
	row   int32
	equal bool // every column equals the input row's
}

func (u *upsertRun) release() { u.in.release() }

func (u *upsertRun) empty() bool { return emptyChanges(&u.changes) }

// prepareUpsert reads the input, finds the live rows its keys match and
// writes the new rows and the deletes of the replaced ones. On an error
// nothing written is left.
func prepareUpsert(ctx context.Context, tbl *table.Table, input array.RecordReader, opts UpsertOptions) (*upsertRun, error) {
	if !opts.WhenMatchedUpdateAll && !opts.WhenNotMatchedInsertAll {
		return nil, errkind.Errorf(errkind.InvalidArgument, "neither when-matched-update-all nor when-not-matched-insert-all is set: nothing to do")
	}
	md := tbl.Metadata
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, fmt.Errorf("table %s has no current schema", md.Location)
	}
	mode, err := upsertMode(opts.Mode, md.FormatVersion)
	if err != nil {
		return nil, err
	}
	keys, err := joinFields(schema, opts.JoinCols, opts.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	in, err := readUpsertInput(input, schema, keys)
	if err != nil {
		return nil, err
	}
	u := &upsertRun{in: in, mode: mode, keys: keys, opts: opts}
	if err := u.prepare(ctx, tbl, schema); err != nil {
		if u.c != nil {
			u.c.w.remove(ctx)
		}
		in.release()
		return nil, err
	}
	return u, nil
}

func (u *upsertRun) prepare(ctx context.Context, tbl *table.Table, schema *iceberg.Schema) error {
	c, err := newRowChange(ctx, tbl, RowOptions{Mode: u.mode.deleteModeOf(), Threads: u.opts.Threads})
	if err != nil {
		return err
	}
	u.c = c
	filter, err := u.in.filter(u.keys)
	if err != nil {
		return err
	}
	plan, err := tbl.PlanRows(ctx, filter, u.opts.Commit.Branch)
	if err != nil {
		return err
	}
	// The filter only narrows where keys may be: no file goes whole, and
	// the deletes of partitions it covers stay.
	plan.Partial = append(plan.Whole, plan.Partial...)
	plan.Whole = nil
	plan.KeepPartitionDeletes = true
	c.plan, u.plan = plan, plan
	n := u.in.rows()
	u.matched, u.changed = make([]bool, n), make([]bool, n)
	if plan.Snapshot != nil && n > 0 {
		if err := u.compareColumns(schema); err != nil {
			return err
		}
		if err := u.match(ctx, tbl); err != nil {
			return err
		}
		if err := u.compare(ctx, tbl); err != nil {
			return err
		}
	}
	// The new rows and the deletes are independent: written at once.
	var added []manifest.DataFile
	var rowsErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		added, rowsErr = u.writeRows(ctx, tbl)
	}()
	ch, err := u.writeDeletes(ctx, tbl, schema)
	<-done
	if err != nil {
		return err
	}
	if rowsErr != nil {
		return rowsErr
	}
	u.changes = table.RowChanges{
		RemovedDataFiles: ch.RemovedDataFiles,
		DataFiles:        append(added, ch.DataFiles...),
		DeleteFiles:      ch.DeleteFiles,
	}
	return nil
}

// compareColumns sets the columns the matching scan reads (the keys,
// _pos, and the compared columns when the keys reach most files: spread)
// and, when matched rows replace live ones, the columns compared so that
// rows equal to the live one are skipped. Rows are
// compared only when every column is primitive and in the input (a
// missing column would be written as nulls, which the comparison would
// have to model); otherwise every matched row counts as changed.
func (u *upsertRun) compareColumns(schema *iceberg.Schema) error {
	u.cols = u.cols[:0]
	for _, k := range u.keys {
		u.cols = append(u.cols, k.Name)
	}
	defer func() { u.cols = append(u.cols, "_pos") }()
	as := u.in.batches[0].Schema()
	compare := u.opts.WhenMatchedUpdateAll
	for _, f := range schema.Fields {
		_, primitive := f.Type.(iceberg.PrimitiveType)
		if !primitive || len(as.FieldIndices(f.Name)) != 1 {
			compare = false
		}
	}
	if !compare {
		return nil
	}
	isKey := map[int]bool{}
	for _, k := range u.keys {
		isKey[k.ID] = true
	}
	u.compared = u.compared[:0]
	for _, f := range schema.Fields {
		if !isKey[f.ID] {
			u.compared = append(u.compared, f)
		}
	}
	u.full = make([]*kernels.Keys, len(u.in.batches))
	for b, rec := range u.in.batches {
		arrs := make([]arrow.Array, 0, len(u.compared))
		for _, f := range u.compared {
			arrs = append(arrs, rec.Column(as.FieldIndices(f.Name)[0]))
		}
		k, err := kernels.NewKeys(arrs)
		if err != nil {
			// A type Keys cannot compare: count the rows as changed.
			u.full, u.compared = nil, nil
			return nil
		}
		u.full[b] = k
	}
	if len(u.compared) > 0 && u.spread() {
		// The keys reach most files: read the compared columns in the
		// matching scan rather than reading those files twice.
		u.onePass = true
		for _, f := range u.compared {
			u.cols = append(u.cols, f.Name)
		}
	}
	return nil
}

// onePassShare is the share of the planned files the input's keys must
// reach for the matching scan to read the compared columns too.
var onePassShare = 0.5

// spread reports whether the input's first key values fall within the
// bounds of more than onePassShare of the planned files (a file without
// bounds counts). Keys that are not integers cannot tell: false.
func (u *upsertRun) spread() bool {
	partial := u.plan.Partial
	if !u.in.ranged[0] || len(u.in.firsts) == 0 || len(partial) == 0 {
		return false
	}
	sorted := slices.Clone(u.in.firsts)
	slices.Sort(sorted)
	key := u.keys[0]
	reached := 0
	for i := range partial {
		lo, okLo := boundInt(partial[i].File.Metrics.LowerBound(key.ID))(key.Type)
		hi, okHi := boundInt(partial[i].File.Metrics.UpperBound(key.ID))(key.Type)
		if !okLo || !okHi {
			reached++
			continue
		}
		j, _ := slices.BinarySearch(sorted, lo)
		if j < len(sorted) && sorted[j] <= hi {
			reached++
		}
	}
	return float64(reached) > onePassShare*float64(len(partial))
}

// boundInt decodes an integer column bound.
func boundInt(b []byte, ok bool) func(iceberg.Type) (int64, bool) {
	return func(t iceberg.Type) (int64, bool) {
		if !ok {
			return 0, false
		}
		v, err := iceberg.ValueFromBytes(t, b)
		if err != nil {
			return 0, false
		}
		switch v := v.(type) {
		case int32:
			return int64(v), true
		case int64:
			return v, true
		}
		return 0, false
	}
}

// match scans the planned snapshot for the key columns (and compared
// columns) and _pos, narrowed by filter, probing each batch's keys
// against the input's; tasks run c.threads at a time.
func (u *upsertRun) match(ctx context.Context, tbl *table.Table) error {
	id := u.c.plan.SnapshotID()
	sc, err := scan.New(ctx, tbl, scan.Options{Columns: u.cols, SnapshotID: &id, Filter: u.c.plan.Filter})
	if err != nil {
		return err
	}
	tasks := sc.Tasks()
	found := make([][]upsertMatch, len(tasks))
	errs := make([]error, len(tasks))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, min(u.c.threads, len(tasks))))
	for i, task := range tasks {
		if err := ctx.Err(); err != nil {
			return err
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			found[i], errs[i] = u.probeTask(ctx, tbl, task)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", task.WrittenPath, errs[i])
			}
		}()
	}
	wg.Wait()
	u.matches = map[string][]upsertMatch{}
	u.tasks = map[string][]*scan.Task{}
	for i, task := range tasks {
		if errs[i] != nil {
			return errs[i]
		}
		u.tasks[task.WrittenPath] = append(u.tasks[task.WrittenPath], task)
		if len(found[i]) > 0 {
			u.matches[task.WrittenPath] = append(u.matches[task.WrittenPath], found[i]...)
		}
	}
	return nil
}

// probeTask reads one scan task and returns its rows whose key the input
// holds.
func (u *upsertRun) probeTask(ctx context.Context, tbl *table.Table, task *scan.Task) ([]upsertMatch, error) {
	rr, err := task.Reader(ctx, tbl.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	nk := len(u.keys)
	var out []upsertMatch
	var probe keyProbe
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		last := int(rec.NumCols()) - 1
		if last != len(u.cols)-1 {
			return nil, fmt.Errorf("the matching scan returned %d columns, want %d", rec.NumCols(), len(u.cols))
		}
		pos, ok := rec.Column(last).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("_pos is a %s column", rec.Column(last).DataType())
		}
		k, err := kernels.NewKeys(rec.Columns()[:nk])
		if err != nil {
			return nil, err
		}
		var full *kernels.Keys
		if u.onePass {
			if full, err = kernels.NewKeys(rec.Columns()[nk:last]); err != nil {
				return nil, err
			}
		}
		positions := pos.Int64Values()
		u.in.matchRows(k, &probe, func(r, j int) {
			m := upsertMatch{pos: positions[r], row: int32(j)}
			if full != nil {
				b, rj := u.in.local(j)
				m.equal = u.full[b].Equal(rj, full, r)
			}
			out = append(out, m)
		})
	}
	return out, rr.Err()
}

// compare marks the input rows that differ from a live row they match.
// Only files holding matches are read again, for the compared (non-key)
// columns and _pos, c.threads at a time: when keys cluster (recent rows
// changed again) most of the table is never read beyond its keys.
func (u *upsertRun) compare(ctx context.Context, tbl *table.Table) error {
	paths := make([]string, 0, len(u.matches))
	for p := range u.matches {
		paths = append(paths, p)
	}
	switch {
	case u.onePass:
		// probeTask compared the rows.
	case u.full != nil && len(u.compared) == 0:
		// Every column is a key: a matched row equals its live row.
		for _, p := range paths {
			for i := range u.matches[p] {
				u.matches[p][i].equal = true
			}
		}
	case u.full != nil:
		fields := append(slices.Clone(u.compared), posField)
		errs := make([]error, len(paths))
		var wg sync.WaitGroup
		sem := make(chan struct{}, max(1, u.c.threads))
		for i, p := range paths {
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer func() { <-sem; wg.Done() }()
				errs[i] = u.compareFile(ctx, tbl, u.tasks[p], fields, u.matches[p])
				if errs[i] != nil {
					errs[i] = fmt.Errorf("%s: %w", p, errs[i])
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	for _, p := range paths {
		for _, m := range u.matches[p] {
			u.matched[m.row] = true
			if !m.equal {
				u.changed[m.row] = true
			}
		}
	}
	return nil
}

// compareFile reads a file's tasks for fields (the compared columns, then
// _pos) and sets each match's equal. matches are sorted here by position;
// the tasks return ascending positions, so one walk pairs them.
func (u *upsertRun) compareFile(ctx context.Context, tbl *table.Table, tasks []*scan.Task, fields []iceberg.NestedField, matches []upsertMatch) error {
	slices.SortFunc(matches, func(a, b upsertMatch) int { return cmp.Compare(a.pos, b.pos) })
	for _, task := range tasks {
		t := *task
		t.Fields = fields
		rr, err := t.Reader(ctx, tbl.IO, memory.DefaultAllocator, scan.ReadOptions{})
		if err != nil {
			return err
		}
		err = u.compareBatches(rr, matches)
		rr.Release()
		if err != nil {
			return err
		}
	}
	return nil
}

func (u *upsertRun) compareBatches(rr array.RecordReader, matches []upsertMatch) error {
	for rr.Next() {
		rec := rr.RecordBatch()
		n := int(rec.NumRows())
		if n == 0 {
			continue
		}
		last := int(rec.NumCols()) - 1
		pos, ok := rec.Column(last).(*array.Int64)
		if !ok {
			return fmt.Errorf("_pos is a %s column", rec.Column(last).DataType())
		}
		positions := pos.Int64Values()
		j, _ := slices.BinarySearchFunc(matches, positions[0], func(m upsertMatch, p int64) int { return cmp.Compare(m.pos, p) })
		if j == len(matches) || matches[j].pos > positions[n-1] {
			continue
		}
		full, err := kernels.NewKeys(rec.Columns()[:last])
		if err != nil {
			return err
		}
		r := 0
		for ; j < len(matches) && matches[j].pos <= positions[n-1]; j++ {
			r += sort.Search(n-r, func(k int) bool { return positions[r+k] >= matches[j].pos })
			if r < n && positions[r] == matches[j].pos {
				b, rj := u.in.local(int(matches[j].row))
				matches[j].equal = u.full[b].Equal(rj, full, r)
			}
		}
	}
	return rr.Err()
}

// replaces reports whether input row g replaces the live rows it matched.
func (u *upsertRun) replaces(g int) bool {
	return u.opts.WhenMatchedUpdateAll && u.matched[g] && u.changed[g]
}

// writeRows writes the input rows that go into the table: those that
// replace live rows and those inserted, and counts them.
func (u *upsertRun) writeRows(ctx context.Context, tbl *table.Table) ([]manifest.DataFile, error) {
	keep := func(g int) bool {
		if u.matched[g] {
			return u.replaces(g)
		}
		return u.opts.WhenNotMatchedInsertAll
	}
	for g := range u.matched {
		switch {
		case u.replaces(g):
			u.updated++
		case !u.matched[g] && u.opts.WhenNotMatchedInsertAll:
			u.inserted++
		}
	}
	if u.updated+u.inserted == 0 {
		return nil, nil
	}
	recs, err := u.in.pick(keep)
	if err != nil {
		return nil, err
	}
	defer releaseAll(recs)
	rr, err := array.NewRecordReader(u.in.batches[0].Schema(), recs)
	if err != nil {
		return nil, err
	}
	defer rr.Release()
	return write(ctx, tbl, rr, u.c.w)
}

// pick returns the input's rows for which keep is true, batch by batch
// (empty batches left out).
func (in *upsertInput) pick(keep func(g int) bool) ([]arrow.RecordBatch, error) {
	var out []arrow.RecordBatch
	var bits []byte
	for b, rec := range in.batches {
		n := int(rec.NumRows())
		bits = append(bits[:0], make([]byte, (n+7)/8)...)
		kept := 0
		start := in.starts[b]
		for r := 0; r < n; r++ {
			if keep(start + r) {
				bits[r>>3] |= 1 << (r & 7)
				kept++
			}
		}
		switch kept {
		case 0:
			continue
		case n:
			rec.Retain()
			out = append(out, rec)
			continue
		}
		f, err := kernels.FilterRecord(rec, bits, memory.DefaultAllocator)
		if err != nil {
			releaseAll(out)
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func releaseAll(recs []arrow.RecordBatch) {
	for _, r := range recs {
		r.Release()
	}
}

// writeDeletes deletes the live rows replaced: by position (delete files,
// deletion vectors or rewrites, as DeleteRows does) or by equality.
func (u *upsertRun) writeDeletes(ctx context.Context, tbl *table.Table, schema *iceberg.Schema) (table.RowChanges, error) {
	if !u.opts.WhenMatchedUpdateAll || len(u.matches) == 0 {
		return table.RowChanges{}, nil
	}
	if u.mode == UpsertEqualityDeletes {
		files, err := u.writeEqualityDeletes(ctx, tbl, schema)
		return table.RowChanges{DeleteFiles: files}, err
	}
	partial := u.c.plan.Partial
	outcomes := make([]fileOutcome, len(partial))
	errs := make([]error, len(partial))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, u.c.threads))
	for i := range partial {
		dt := &partial[i]
		bm := roaring64.New()
		for _, m := range u.matches[dt.File.FilePath] {
			if u.replaces(int(m.row)) {
				bm.Add(uint64(m.pos))
			}
		}
		if bm.IsEmpty() {
			continue
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			outcomes[i], errs[i] = u.c.fileOutcome(dt, u.tasks[dt.File.FilePath], bm)
			outcomes[i].deleted = int64(bm.GetCardinality())
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", dt.File.FilePath, errs[i])
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return table.RowChanges{}, err
		}
	}
	return u.c.collect(partial, outcomes)
}
