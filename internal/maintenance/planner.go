package maintenance

import (
	"context"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// plannerOptionsJSON are the options of "maintain" (the planner) and
// "health" (its check alone).
type plannerOptionsJSON struct {
	DryRun      bool   `json:"dry_run"`
	SkipOrphans bool   `json:"skip_orphans"`
	TimeoutMs   *int64 `json:"timeout_ms"`
	// The delete rewrites' thresholds (maintain.MaintainOptions): 0 is
	// the default, negative never.
	MinEqualityDeleteFiles int `json:"min_equality_delete_files"`
	MinPositionDeleteFiles int `json:"min_position_delete_files"`
}

type healthOptionsJSON struct {
	SkipOrphans bool   `json:"skip_orphans"`
	TimeoutMs   *int64 `json:"timeout_ms"`
}

func init() {
	actions["maintain"] = parseMaintainRequest
	actions["health"] = parseHealthRequest
}

// parseMaintainRequest: maintain.Maintain, its report as the result; a
// run stopped by a failing action returns the error (the report says
// which action in the error's text).
func parseMaintainRequest(data []byte) (Request, error) {
	const action = "maintain"
	var o plannerOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		rep, err := maintain.Maintain(ctx, t, maintain.MaintainOptions{
			DryRun: o.DryRun, Health: maintain.HealthOptions{SkipOrphans: o.SkipOrphans},
			MinEqualityDeleteFiles: o.MinEqualityDeleteFiles, MinPositionDeleteFiles: o.MinPositionDeleteFiles,
		})
		if err != nil {
			return nil, err
		}
		progress.done(action)
		if rep.Actions == nil {
			rep.Actions = []maintain.MaintainAction{}
		}
		return rep, nil
	}}, nil
}

// parseHealthRequest: maintain.CheckHealth, changing nothing.
func parseHealthRequest(data []byte) (Request, error) {
	const action = "health"
	var o healthOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		h, err := maintain.CheckHealth(ctx, t, maintain.HealthOptions{SkipOrphans: o.SkipOrphans})
		if err != nil {
			return nil, err
		}
		progress.done(action)
		return h, nil
	}}, nil
}
