package scan

import (
	"context"
	"sync"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// runtimeFilters are the filters added to a running scan (say, a join's
// build side learnt the keys it needs). Each only ever tightens the scan:
// the effective filter is the AND of the scan's own and all added ones.
type runtimeFilters struct {
	mu      sync.Mutex
	added   []expr.Expr
	version int
	// metrics rule out, by their column metrics, the data files no added
	// filter can match, before they are opened.
	metrics []*table.MetricsEvaluator
	// schema is the snapshot's schema, which added filters bind to.
	schema          *iceberg.Schema
	caseInsensitive bool
}

// AddFilter tightens a scan, running or not, by an unbound filter (as
// Options.Filter). Tasks, row groups and pages not yet started apply it;
// rows already returned stay returned, and nothing an earlier filter
// dropped comes back.
func (s *Scan) AddFilter(e expr.Expr) error {
	if e == nil {
		return nil
	}
	if _, err := filterFields(e, s.schemaForFilters(), s.Options.CaseInsensitive); err != nil {
		return err
	}
	s.runtime.mu.Lock()
	defer s.runtime.mu.Unlock()
	// Every task must take the tightened filter (Tasks relies on it).
	added := append(s.runtime.added[:len(s.runtime.added):len(s.runtime.added)], e)
	for _, t := range s.tasks {
		c := *t
		if err := s.runtime.tighten(&c, added); err != nil {
			return err
		}
	}
	pf, err := s.table.BindPruningFilter(e, s.tableSchema, s.Options.CaseInsensitive)
	if err != nil {
		return expr.InvalidFilter(err)
	}
	s.runtime.added = added
	s.runtime.metrics = append(s.runtime.metrics, pf.Metrics)
	s.runtime.version++
	return nil
}

// current returns the filters added so far and their version.
func (f *runtimeFilters) current() ([]expr.Expr, int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.added[:len(f.added):len(f.added)], f.version
}

// rulesOut reports whether an added filter's metrics show that file holds
// no row it accepts.
func (f *runtimeFilters) rulesOut(file plannedFile) bool {
	f.mu.Lock()
	evs := f.metrics[:len(f.metrics):len(f.metrics)]
	f.mu.Unlock()
	if len(evs) == 0 {
		return false
	}
	df := &manifest.DataFile{RecordCount: file.records, Metrics: file.metrics}
	for _, ev := range evs {
		if !ev.MightMatch(df) {
			return true
		}
	}
	return false
}

// openTask opens the scan's task i for reading at most limit rows (nil:
// no limit) with the stream's settings o, tightened by the filters added
// to the scan so far, counting into the scan's metrics; nil when an added
// filter rules its file out.
func (s *Scan) openTask(ctx context.Context, i int, task *Task, alloc memory.Allocator, o StreamOptions, opened *openedFile, limit *int64) (*taskReader, error) {
	if i < len(s.files) && s.runtime.rulesOut(s.files[i]) {
		s.counters.filesSkipped.Add(1)
		if opened != nil {
			opened.close()
		}
		return nil, nil
	}
	read := s.Options.readOptions(limit)
	if o.BatchSize > 0 {
		read.BatchSize = o.BatchSize
	}
	return task.open(ctx, readEnv{
		files: s.table.IO, alloc: alloc, schema: s.schema, read: read, deletes: s.deleteCache,
		fetch: s.Options.FetchOptions, opened: opened, counters: &s.counters, filters: &s.runtime,
		footers: s.footers,
	})
}

// tighten ANDs filters into a task's own, bound to the table schema.
func (f *runtimeFilters) tighten(task *Task, added []expr.Expr) error {
	if len(added) == 0 {
		return nil
	}
	combined := task.Filter
	for _, e := range added {
		if combined == nil {
			combined = e
		} else {
			combined = expr.NewAnd(combined, e)
		}
	}
	fields, err := filterFields(combined, f.schema, f.caseInsensitive)
	if err != nil {
		return err
	}
	task.Filter, task.FilterFields = combined, fields
	return nil
}

// any tells whether a filter has been added.
func (r *runtimeFilters) any() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.added) > 0
}
