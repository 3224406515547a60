package table

import (
	"context"
	"errors"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
)

// Planner plans a table's scans somewhere other than here: a REST
// catalog that plans on its server (catalog/rest). It returns the plan
// PlanFilesFiltered would (tasks with their deletes and residuals bound
// to schema); ok false means it declines this scan, which is then planned
// by reading manifests.
type Planner interface {
	PlanScan(ctx context.Context, t *Table, snap *metadata.Snapshot, schema *iceberg.Schema, filter expr.Expr, caseInsensitive bool) (plan *Plan, ok bool, err error)
}

// StreamScan plans a scan of the selected snapshot, handing each data
// file to each as StreamFiles does: through the table's Planner when it
// has one that takes the scan (its plan arrives whole, and is then handed
// over file by file), else streamed from the manifests. The plan returned
// has no Tasks. Scans plan here; commits read manifests themselves, since
// their conflict rules need what only manifests hold (sequence numbers,
// every entry's status).
func (t *Table) StreamScan(ctx context.Context, sel SnapshotSelector, filter expr.Expr, caseInsensitive bool, each func(DataFileTask) error) (*Plan, error) {
	if t.Planner != nil {
		snap, err := t.Snapshot(sel)
		if err != nil {
			return nil, err
		}
		if snap != nil {
			schema, err := t.ReadSchema(sel, snap)
			if err != nil {
				return nil, err
			}
			plan, ok, err := t.Planner.PlanScan(ctx, t, snap, schema, filter, caseInsensitive)
			if err != nil {
				return nil, err
			}
			if ok {
				tasks := plan.Tasks
				plan.Tasks = nil
				for _, task := range tasks {
					if err := each(task); err != nil {
						if errors.Is(err, ErrStop) {
							break
						}
						return nil, err
					}
				}
				return plan, nil
			}
		}
	}
	return t.StreamFiles(ctx, sel, filter, caseInsensitive, each)
}
