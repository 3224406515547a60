package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/maintenance"
	"github.com/floedb/floe/internal/progress"
)

// The maintenance commands other than compact: each reads its flags into
// the options floe_table_maintain takes (internal/maintenance, so both
// print the same JSON) and prints one JSON object, the result with
// "command" added.
const (
	removeOrphansUsage    = "usage: floe remove-orphans TABLE [--dry-run] [--older-than 3d|36h|MS] [--force] [--location DIR]"
	rewriteManifestsUsage = "usage: floe rewrite-manifests TABLE [--target-size 8MiB] [--token T] [--branch NAME] [--property K=V]..."
	rewriteDeletesUsage   = "usage: floe rewrite-deletes TABLE [--position | --convert-equality] [--token T] [--branch NAME] [--property K=V]..."
	statsUsage            = "usage: floe stats TABLE [--columns a,b.c] [--snapshot ID] [--no-ndv] [--no-partition-stats]"
	maintainUsage         = "usage: floe maintain TABLE [--dry-run] [--skip-orphans] [--min-equality-delete-files N] [--min-position-delete-files N]"
	healthUsage           = "usage: floe inspect TABLE health [--skip-orphans]"
)

// runMaintain runs the maintenance planner: what the table needs, in a
// safe order, or with --dry-run only the report of it.
func runMaintain(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "min-equality-delete-files", "min-position-delete-files"}, []string{"no-relocate", "dry-run", "skip-orphans"})
	if err != nil {
		return err
	}
	opts := map[string]any{"dry_run": a.bools["dry-run"], "skip_orphans": a.bools["skip-orphans"]}
	// The delete rewrites' thresholds (0: the default, negative: never),
	// checked by the planner's own options.
	for _, flag := range []string{"min-equality-delete-files", "min-position-delete-files"} {
		if v, ok := a.last(flag); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("--%s wants a whole number of files (0: the default, negative: never), got %q", flag, v)
			}
			opts[strings.ReplaceAll(flag, "-", "_")] = n
		}
	}
	return runMaintenance(ctx, a, "maintain", maintainUsage, "maintain", opts, out, errOut)
}

func runRemoveOrphans(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "older-than", "location"}, []string{"no-relocate", "dry-run", "force"})
	if err != nil {
		return err
	}
	opts := map[string]any{"dry_run": a.bools["dry-run"], "force": a.bools["force"]}
	if v, ok := a.last("older-than"); ok {
		ms, err := parseOlderThan(v, time.Now())
		if err != nil {
			return err
		}
		opts["older_than_ms"] = ms
	}
	if v, ok := a.last("location"); ok {
		opts["location"] = v
	}
	return runMaintenance(ctx, a, "remove-orphans", removeOrphansUsage, "remove_orphan_files", opts, out, errOut)
}

func runRewriteManifests(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "target-size", "token", "branch", "property"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	opts, err := maintenanceCommit(a)
	if err != nil {
		return err
	}
	if v, ok := a.last("target-size"); ok {
		n, err := parseByteSize(v)
		if err != nil || n == 0 {
			return fmt.Errorf("--target-size: want a positive size such as 8MiB, got %q", v)
		}
		opts["target_size_bytes"] = n
	}
	return runMaintenance(ctx, a, "rewrite-manifests", rewriteManifestsUsage, "rewrite_manifests", opts, out, errOut)
}

// runRewriteDeletes removes the delete files that apply to no live data
// file (remove_dangling_deletes); with --position it merges position
// deletes (rewrite_position_deletes), with --convert-equality it turns
// equality deletes into positions (convert_equality_deletes).
func runRewriteDeletes(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "token", "branch", "property"}, []string{"no-relocate", "position", "convert-equality"})
	if err != nil {
		return err
	}
	opts, err := maintenanceCommit(a)
	if err != nil {
		return err
	}
	action := "remove_dangling_deletes"
	switch {
	case a.bools["position"] && a.bools["convert-equality"]:
		return errors.New("--position and --convert-equality are separate runs; give one")
	case a.bools["position"]:
		action = "rewrite_position_deletes"
	case a.bools["convert-equality"]:
		action = "convert_equality_deletes"
	}
	return runMaintenance(ctx, a, "rewrite-deletes", rewriteDeletesUsage, action, opts, out, errOut)
}

func runStats(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "columns", "snapshot"}, []string{"no-relocate", "no-ndv", "no-partition-stats"})
	if err != nil {
		return err
	}
	opts := map[string]any{}
	if a.bools["no-ndv"] {
		opts["ndv"] = false
	}
	if a.bools["no-partition-stats"] {
		opts["partition_statistics"] = false
	}
	if v, ok := a.last("columns"); ok {
		var cols []string
		for c := range strings.SplitSeq(v, ",") {
			if c = strings.TrimSpace(c); c != "" {
				cols = append(cols, c)
			}
		}
		opts["columns"] = cols
	}
	if v, ok := a.last("snapshot"); ok {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("--snapshot wants a snapshot id, got %q", v)
		}
		opts["snapshot_id"] = id
	}
	return runMaintenance(ctx, a, "stats", statsUsage, "compute_statistics", opts, out, errOut)
}

// maintenanceCommit reads --token, --branch and --property into a
// committing action's options.
func maintenanceCommit(a *args) (map[string]any, error) {
	props, err := keyValues(a.values["property"], "--property")
	if err != nil {
		return nil, err
	}
	opts := map[string]any{}
	if len(props) > 0 {
		opts["properties"] = props
	}
	if v, ok := a.last("token"); ok {
		opts["token"] = v
	}
	if v, ok := a.last("branch"); ok {
		opts["branch"] = v
	}
	return opts, nil
}

// runMaintenance runs action on the command's table and prints its result
// with "command" added. What the core tells a progress meter (the files
// remove-orphans deletes) shows on a terminal.
func runMaintenance(ctx context.Context, a *args, command, usage, action string, opts map[string]any, out, errOut io.Writer) error {
	if len(a.positional) != 1 {
		return errors.New(usage)
	}
	data, err := json.Marshal(opts)
	if err != nil {
		return err
	}
	req, err := maintenance.Parse(action, data)
	if err != nil {
		return err
	}
	t, _, err := a.openTable(ctx, usage)
	if err != nil {
		return err
	}
	meter := &progress.Meter{}
	status := startProgress(a, errOut, command, "files", meter.Sample)
	res, err := req.Run(progress.With(ctx, meter), t, nil)
	status.finish()
	if err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(res, &fields); err != nil {
		return err
	}
	fields["command"], _ = json.Marshal(command)
	line, err := json.Marshal(fields)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, string(line))
	return nil
}

// statisticsOnCommit keeps a table with write.statistics.on-commit=true
// current after a command committed to it. The command's commit stands
// whatever happens here; a failure is told on errOut.
func statisticsOnCommit(ctx context.Context, t *table.Table, errOut io.Writer) {
	if err := maintenance.AfterCommit(ctx, t); err != nil {
		fmt.Fprintf(errOut, "floe: warning: the rows are committed, but updating the statistics failed (floe stats catches up): %v\n", err)
	}
}
