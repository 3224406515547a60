package scan

import "github.com/floedb/floe/iceberg/expr"

// filterSource is where a task running within a scan finds the filters
// added to the scan since it started: a small interface rather than the
// scan itself, so the task reader knows nothing of scans.
type filterSource interface {
	// current returns every filter added so far and a version that
	// changes with each addition.
	current() ([]expr.Expr, int)
	// tighten ANDs filters into a task's own.
	tighten(task *Task, added []expr.Expr) error
}

// refreshFilter rebinds a running task's filter when filters were added to
// its scan since it last looked; called between row groups, so a row group
// is filtered by one filter throughout.
func (r *taskReader) refreshFilter() error {
	if r.filters == nil {
		return nil
	}
	added, version := r.filters.current()
	if version == r.runtimeVersion {
		return nil
	}
	r.runtimeVersion = version
	task := *r.task
	task.Filter, task.FilterFields = r.baseFilter, r.baseFilterFields
	if err := r.filters.tighten(&task, added); err != nil {
		return err
	}
	r.task = &task
	resolver := newFileResolver(r.file, r.task)
	if err := r.bindFilter(resolver); err != nil {
		return err
	}
	// bindFilter may have planned hidden columns for the new predicates.
	r.requestNewPlans()
	return nil
}
