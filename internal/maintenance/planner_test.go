package maintenance

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/floedb/floe/internal/rowstest"
)

// maintainJSON runs the "maintain" action with options on tbl and returns
// its report's actions (name, reason, result) and health.
func maintainJSON(t *testing.T, run func(string) []byte, options string) ([]map[string]any, map[string]any) {
	t.Helper()
	var rep struct {
		DryRun  bool             `json:"dry_run"`
		Health  map[string]any   `json:"health"`
		Actions []map[string]any `json:"actions"`
	}
	if err := json.Unmarshal(run(options), &rep); err != nil {
		t.Fatal(err)
	}
	return rep.Actions, rep.Health
}

func hasAction(actions []map[string]any, name string) map[string]any {
	for _, a := range actions {
		if a["action"] == name {
			return a
		}
	}
	return nil
}

// The planner's JSON names the delete rewrites with their reasons in a
// dry run, takes their thresholds (a negative one turns the action off),
// and reports the conversion's result when it runs; health reports what
// they fix. On Impala's copy of a Flink table with equality deletes.
func TestMaintainJSONRunsDeleteRewrites(t *testing.T) {
	ctx := context.Background()
	tbl := rowstest.CopyFixture(t, "impala_iceberg_v2_delete_equality_partitioned")
	run := func(action string) func(string) []byte {
		return func(options string) []byte {
			req, err := Parse(action, []byte(options))
			if err != nil {
				t.Fatal(err)
			}
			out, err := req.Run(ctx, tbl, nil)
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
	}
	var h map[string]any
	if err := json.Unmarshal(run("health")(`{"skip_orphans": true}`), &h); err != nil {
		t.Fatal(err)
	}
	if h["equality_delete_files_applied"] != 2.0 || h["equality_delete_rows"] != 8.0 || h["position_delete_files_to_rewrite"] != 0.0 {
		t.Fatalf("health %v", h)
	}
	actions, _ := maintainJSON(t, run("maintain"), `{"skip_orphans": true, "dry_run": true}`)
	if a := hasAction(actions, "convert_equality_deletes"); a == nil || a["reason"] == "" || a["result"] != nil {
		t.Fatalf("dry run: %v", actions)
	}
	actions, _ = maintainJSON(t, run("maintain"), `{"skip_orphans": true, "dry_run": true, "min_equality_delete_files": -1}`)
	if hasAction(actions, "convert_equality_deletes") != nil {
		t.Fatalf("threshold -1: %v", actions)
	}
	actions, _ = maintainJSON(t, run("maintain"), `{"skip_orphans": true, "min_equality_delete_files": 2}`)
	a := hasAction(actions, "convert_equality_deletes")
	var names []string
	for _, a := range actions {
		names = append(names, a["action"].(string))
	}
	// Converted, the deletes are positions removing half of each file's
	// rows: compaction, which could not judge equality deletes before,
	// takes the files in the same run.
	if a == nil || !slices.Equal(names[:2], []string{"convert_equality_deletes", "rewrite_data_files"}) {
		t.Fatalf("run: %v", names)
	}
	if res, _ := a["result"].(map[string]any); res == nil || res["snapshot_id"] == 0.0 || len(res["removed_delete_files"].([]any)) == 0 {
		t.Fatalf("conversion result %v", a)
	}
	if err := tbl.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	actions, h = maintainJSON(t, run("maintain"), `{"skip_orphans": true}`)
	if len(actions) != 0 || h["equality_delete_files"] != 0.0 {
		t.Fatalf("second run: %v, health %v", actions, h)
	}
}
