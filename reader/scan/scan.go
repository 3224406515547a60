package scan

import (
	"context"
	"runtime"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
)

// Options are a scan's settings, as plain Go values (the C API owns their
// JSON form); the zero value scans everything at the current snapshot.
type Options struct {
	// Columns are dotted column names; nil for all, empty for none.
	Columns       []string
	SnapshotID    *int64
	AsOfTimestamp *int64
	Ref           string
	// FromSnapshotID and ToSnapshotID, either set, make the scan an
	// incremental append scan (table.StreamAppends): the rows the append
	// snapshots after FromSnapshotID (exclusive; nil for the oldest) up to
	// ToSnapshotID (inclusive; nil for the snapshot SnapshotID, Ref or
	// AsOfTimestamp selects, else the current one) added, with no deletes
	// applied. See incremental.go.
	FromSnapshotID *int64
	ToSnapshotID   *int64
	// Changelog makes the scan a changelog scan (NewChangelog) of the
	// snapshots FromSnapshotID and ToSnapshotID bound: every row change,
	// with _change_type, _change_ordinal and _commit_snapshot_id. New
	// refuses it.
	Changelog bool
	// Limit stops the scan after this many rows; nil for no limit.
	Limit     *int64
	BatchSize int
	// Threads decode tasks in parallel; 0 means every core.
	Threads         int
	VerifyCRC       bool
	CaseInsensitive bool
	// Filter is the row filter, unbound (expr.ParseFilter reads the text
	// and REST JSON forms); nil for none.
	Filter expr.Expr
	// SplitSize is the most bytes of data a task group reads: larger files
	// are cut into byte ranges, smaller ones packed together. 0 means the
	// table's read.split.target-size, else DefaultSplitSize.
	SplitSize int64
	// Ordered, when false, lets a parallel scan return each batch as soon
	// as any task has one, in no set order; nil or true returns batches in
	// task order, the order of a one-thread scan.
	Ordered *bool
	// BufferBytes bounds the decoded batches an ordered parallel scan holds
	// for the tasks after the one being returned; default
	// DefaultBufferBytes.
	BufferBytes int64
	// FetchOptions tune how data files' bytes are requested.
	parquet.FetchOptions
	// MemoryLimit bounds what the scan holds at once: decoded batches
	// waiting (BufferBytes), read-ahead (PrefetchBytes), requests
	// (MaxRequest), column chunks (read through windows, ChunkWindow) and
	// one page (MaxPageBytes, which also refuses a file claiming larger
	// pages before allocating). Options set explicitly stay when smaller.
	// 0: no limit. See memoryBudget.
	MemoryLimit int64
}

// Validate refuses settings out of range (New validates too, so callers
// that parse options can report a bad one early).
func (o *Options) Validate() error { return o.validate() }

func (o *Options) validate() error {
	if o.Limit != nil && *o.Limit < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: limit must not be negative")
	}
	if o.BatchSize < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: batch_size must not be negative")
	}
	if o.Threads < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: threads must not be negative")
	}
	if o.SplitSize < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "scan options: split_size must not be negative")
	}
	if err := o.validateIncremental(); err != nil {
		return err
	}
	return checkMemoryLimit(o.MemoryLimit)
}

// budget applies MemoryLimit (memoryBudget) for a read of leaves columns.
func (o *Options) budget(leaves int) {
	o.FetchOptions, o.BufferBytes = memoryBudget(o.MemoryLimit, o.threads(), leaves, o.FetchOptions, o.BufferBytes)
}

// ordered reports whether batches must come in task order.
func (o *Options) ordered() bool { return o.Ordered == nil || *o.Ordered }

func (o *Options) batchSize() int {
	if o.BatchSize > 0 {
		return o.BatchSize
	}
	return parquet.DefaultBatchSize
}

func (o *Options) threads() int {
	if o.Threads > 0 {
		return o.Threads
	}
	return runtime.GOMAXPROCS(0)
}

// Scan is a planned read of one snapshot of a table: the projected schema
// and its tasks, one per data file or byte range of a large one, packed
// in order into task groups.
type Scan struct {
	Options    Options
	Projection *Projection
	schema     *arrow.Schema
	tasks      []*Task
	// groupStarts[g] is the index in tasks of group g's first task.
	groupStarts []int
	table       *table.Table
	// deleteCache shares parsed delete files across the scan's tasks.
	deleteCache *deleteCache
	counters    scanCounters
	runtime     runtimeFilters
	// tableSchema is the snapshot's schema, which filters bind to.
	tableSchema *iceberg.Schema
	// files[i] is what filters added later check task i's file by: its
	// record count and compact column metrics (the same for each split of
	// a file). Only these are kept, not the manifest entry: a million
	// tasks holding their entries (with metric maps) took 3.9 GB.
	files []plannedFile
	// sure[i] is how many rows task i returns for certain: a whole file
	// whose record count is its answer (recordCountAnswers); 0 for a
	// split or anything a filter or deletes may thin. A limited parallel
	// scan holds back tasks the earlier ones cover (parallelReader).
	sure       []int64
	sureOnce   sync.Once
	surePrefix []int64
	// records sums the record counts of the planned files, each file once
	// however many splits it has and once per time the plan lists it, and
	// countable says every planned file's record count is its answer
	// (recordCountAnswers): then they answer Count without a read.
	records   int64
	countable bool
	// footers lets the ranges spread cut from one file parse its footer
	// once (nil when nothing was spread).
	footers *footerShare
}

func (s *Scan) schemaForFilters() *iceberg.Schema { return s.tableSchema }

// New plans a scan of t. With a filter, planning skips the manifests
// and data files it rules out, and each task carries only the residual its
// partition does not already decide.
func New(ctx context.Context, t *table.Table, opts Options) (*Scan, error) {
	return newScan(ctx, t, opts, true)
}

// newScan is New; with keepTasks false it builds no task and stops, with
// errCountNeedsRead, at the first file whose record count is not its
// answer, so that CountRows checks and sets up exactly what New does and
// counts what New's Count would without holding the tasks.
func newScan(ctx context.Context, t *table.Table, opts Options, keepTasks bool) (*Scan, error) {
	if err := opts.validate(); err != nil {
		return nil, err
	}
	if opts.Changelog {
		return nil, errkind.Errorf(errkind.InvalidArgument, "scan options: a changelog scan is planned by NewChangelog")
	}
	sel := opts.selector()
	// The schema the plan's residuals are bound to (ReadSchema, as
	// planning picks it): the projection and the tasks are built from it
	// as the planned files stream in, so the plan is never held whole
	// beside the tasks made of it.
	tableSchema, err := t.SchemaFor(sel)
	if err != nil {
		return nil, err
	}
	filter := opts.Filter
	if filter != nil {
		// Bind first, so that a bad filter is the caller's error, not a
		// planning failure.
		if _, err := filterFields(filter, tableSchema, opts.CaseInsensitive); err != nil {
			return nil, err
		}
	}
	partitionType, err := t.UnifiedPartitionType()
	if err != nil {
		return nil, err
	}
	proj, err := ProjectColumns(tableSchema, opts.Columns, opts.CaseInsensitive, partitionType)
	if err != nil {
		return nil, err
	}
	schema, err := arrowschema.ArrowSchema(proj.Fields)
	if err != nil {
		return nil, err
	}
	opts.budget(leafCount(schema.Fields()))
	nameMapping, err := t.Metadata.NameMapping()
	if err != nil {
		return nil, err
	}
	nameMapping = iceberg.EffectiveNameMapping(nameMapping, tableSchema.Fields)
	splitSize, openCost, err := splitSettings(&opts, t.Metadata.Properties)
	if err != nil {
		return nil, err
	}
	s := &Scan{Options: opts, Projection: proj, schema: schema, table: t, deleteCache: newDeleteCache(), tableSchema: tableSchema, countable: true}
	s.runtime.schema, s.runtime.caseInsensitive = tableSchema, opts.CaseInsensitive
	// One location map for every task (a map each was a million maps).
	locations := t.Locations.Prefixes()
	var metrics manifest.MetricsStore
	var files int64
	spreadable := newSpreadOffsets(&opts)
	plan, err := opts.stream(ctx, t, sel, filter, func(dt table.DataFileTask) error {
		files++
		// Counted per planned file, not per task: the splits of a file
		// share its records, while a file the plan lists twice is read
		// twice.
		s.records += dt.File.RecordCount
		if s.countable && !recordCountAnswers(&dt) {
			s.countable = false
			if !keepTasks {
				return errCountNeedsRead
			}
		}
		if !keepTasks {
			return nil
		}
		task, err := newTask(t, tableSchema, &dt, proj, nameMapping, locations, opts)
		if err != nil {
			return err
		}
		task.CaseInsensitive = opts.CaseInsensitive
		task.Filter, task.FilterFields = residualFilter(dt.Residual, tableSchema)
		// Each split keeps the file's metrics for filters added later, in
		// the scan's own store: the manifest's arena they share would
		// otherwise be held whole for the few files a filter keeps.
		file := plannedFile{records: dt.File.RecordCount, metrics: metrics.Keep(dt.File.Metrics)}
		splits := splitTask(task, dt.File.SplitOffsets, splitSize)
		for _, split := range splits {
			sure := int64(0)
			if len(splits) == 1 && recordCountAnswers(&dt) {
				sure = dt.File.RecordCount
			}
			spreadable.keep(len(s.tasks), dt.File.SplitOffsets)
			s.tasks = append(s.tasks, split)
			s.files = append(s.files, file)
			s.sure = append(s.sure, sure)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if plan.IO != nil {
		// The planner's credentials read this plan's files.
		planned := *t
		planned.IO = plan.IO
		s.table = &planned
	}
	s.spread(spreadable, openCost)
	s.groupStarts = packTasks(s.tasks, splitSize, openCost)
	s.counters.filesPlanned.Store(files)
	s.counters.tasksPlanned.Store(int64(len(s.tasks)))
	var spans int64
	for _, t := range s.tasks {
		spans += t.span()
	}
	s.counters.taskBytesPlanned.Store(spans)
	s.counters.manifestsSkipped.Store(int64(plan.ManifestsSkipped))
	s.counters.filesSkipped.Store(int64(plan.DataFilesSkipped))
	return s, nil
}

// plannedFile is what a scan keeps of a planned file for the filters
// added to it later (runtimeFilters.rulesOut).
type plannedFile struct {
	records int64
	metrics manifest.Metrics
}

// residualFilter is a task's filter: its residual, unbound again in
// memory (the task binds it to each file, where a column may hold a
// constant), and the top-level columns it reads. A residual the partition
// already satisfies is no filter at all.
func residualFilter(residual expr.Expr, schema *iceberg.Schema) (expr.Expr, []iceberg.NestedField) {
	if residual == nil {
		return nil, nil
	}
	if _, all := residual.(expr.AlwaysTrue); all {
		return nil, nil
	}
	e := expr.Unbind(residual)
	var fields []iceberg.NestedField
	seen := map[int]bool{}
	expr.WalkPredicates(residual, func(pe expr.Expr) {
		p, ok := pe.(*expr.BoundPredicate)
		if !ok {
			return
		}
		if f, ok := schema.FindField(p.FieldID); ok {
			if top := fieldPath(schema, f)[0]; !seen[top.ID] {
				seen[top.ID] = true
				fields = append(fields, top)
			}
		}
	})
	return e, fields
}

// Schema is the Arrow schema of every batch the scan returns.
func (s *Scan) Schema() *arrow.Schema { return s.schema }

// Tasks are the scan's tasks in plan order: one per data file, or per
// byte range of a file larger than the split size. Each is readable on its
// own, here or, serialised, elsewhere. Filters added with AddFilter are
// carried in the tasks returned.
func (s *Scan) Tasks() []*Task { return s.exported(0, len(s.tasks)) }

// TaskGroups are the scan's tasks packed, in order, into groups of about
// the split size: the units to hand to other threads, processes or
// machines. Reading every group, in order, reads the scan.
func (s *Scan) TaskGroups() []*TaskGroup {
	out := make([]*TaskGroup, len(s.groupStarts))
	for g := range out {
		out[g] = s.TaskGroup(g)
	}
	return out
}

// NumTaskGroups is how many task groups the scan has.
func (s *Scan) NumTaskGroups() int { return len(s.groupStarts) }

// TaskGroup is group g (0 <= g < NumTaskGroups) of TaskGroups.
func (s *Scan) TaskGroup(g int) *TaskGroup {
	end := len(s.tasks)
	if g+1 < len(s.groupStarts) {
		end = s.groupStarts[g+1]
	}
	return &TaskGroup{Tasks: s.exported(s.groupStarts[g], end)}
}

// exported is tasks[from:to] as handed out: tightened by the filters
// added so far.
func (s *Scan) exported(from, to int) []*Task {
	added, _ := s.runtime.current()
	if len(added) == 0 {
		return s.tasks[from:to:to]
	}
	out := make([]*Task, to-from)
	for i, t := range s.tasks[from:to] {
		c := *t
		if err := s.runtime.tighten(&c, added); err != nil {
			// AddFilter bound every added filter already; this cannot fail
			// for a filter it accepted.
			panic(err)
		}
		out[i] = &c
	}
	return out
}
