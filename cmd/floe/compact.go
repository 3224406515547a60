package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/maintain"
)

const compactUsage = "usage: floe compact TABLE [--strategy binpack|sort|zorder|hilbert] [--sort-order-id N] [--zorder-columns a,b] [--output-spec-id N] [--target-file-size 512MiB] [--min-file-size SIZE] [--max-file-size SIZE] [--min-input-files N] [--delete-file-threshold N] [--max-group-size SIZE] [--rewrite-all] [--filter EXPR] [--partial-progress] [--max-commits N] [--concurrency N] [--token T] [--branch NAME] [--dry-run]"

// compactOutput is the JSON object floe compact prints: the result, or
// with --dry-run the plan's groups without their tasks.
type compactOutput struct {
	Command string `json:"command"`
	DryRun  bool   `json:"dry_run,omitempty"`
	maintain.Result
}

// runCompact compacts a table's small files (maintain.RewriteDataFiles,
// bin-pack) and prints one JSON object.
func runCompact(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw,
		[]string{"warehouse", "map", "target-file-size", "min-file-size", "max-file-size", "min-input-files", "delete-file-threshold",
			"max-group-size", "filter", "max-commits", "concurrency", "token", "branch", "strategy", "sort-order-id", "zorder-columns", "output-spec-id"},
		[]string{"no-relocate", "rewrite-all", "partial-progress", "dry-run"})
	if err != nil {
		return err
	}
	opts, err := compactOptions(a)
	if err != nil {
		return err
	}
	t, _, err := a.openTable(ctx, compactUsage)
	if err != nil {
		return err
	}
	res := compactOutput{Command: "compact", DryRun: a.bools["dry-run"]}
	if res.DryRun {
		plan, err := maintain.PlanRewrite(ctx, t, opts)
		if err != nil {
			return err
		}
		res.StartingSnapshotID = plan.StartingSnapshotID
		for _, g := range plan.Groups {
			res.Groups = append(res.Groups, maintain.GroupOutcome{ID: g.ID, Partition: g.Partition, InputFiles: len(g.DataFiles), InputBytes: g.InputBytes})
		}
	} else {
		var groups, groupsTotal, bytes atomic.Int64
		opts.Progress = func(done, total int, g maintain.GroupOutcome) {
			groups.Store(int64(done))
			groupsTotal.Store(int64(total))
			bytes.Add(g.InputBytes)
		}
		status := startProgress(a, errOut, "compact", "groups", func() progress.Sample {
			return progress.Sample{Files: groups.Load(), FilesTotal: groupsTotal.Load(), Bytes: bytes.Load()}
		})
		res.Result, err = maintain.RewriteDataFiles(ctx, t, opts)
		status.finish()
		if err != nil {
			return err
		}
	}
	data, err := json.Marshal(res)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, string(data))
	return nil
}

// compactOptions reads the flags into RewriteDataFilesOptions; what is
// not given takes Java's default (maintain).
func compactOptions(a *args) (maintain.RewriteDataFilesOptions, error) {
	var o maintain.RewriteDataFilesOptions
	sizes := []struct {
		flag string
		dst  *int64
	}{{"target-file-size", &o.TargetFileSizeBytes}, {"min-file-size", &o.MinFileSizeBytes}, {"max-file-size", &o.MaxFileSizeBytes}, {"max-group-size", &o.MaxFileGroupSizeBytes}}
	for _, s := range sizes {
		if v, ok := a.last(s.flag); ok {
			n, err := parseByteSize(v)
			if err != nil || n == 0 {
				return o, fmt.Errorf("--%s: want a positive size such as 128MiB, got %q", s.flag, v)
			}
			*s.dst = n
		}
	}
	counts := []struct {
		flag string
		dst  *int
	}{{"min-input-files", &o.MinInputFiles}, {"delete-file-threshold", &o.DeleteFileThreshold}, {"max-commits", &o.PartialProgressMaxCommits}, {"concurrency", &o.MaxConcurrentGroups}}
	for _, c := range counts {
		if v, ok := a.last(c.flag); ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return o, fmt.Errorf("--%s: want a positive number, got %q", c.flag, v)
			}
			*c.dst = n
		}
	}
	if v, ok := a.last("filter"); ok {
		f, err := expr.ParseFilter(v)
		if err != nil {
			return o, fmt.Errorf("--filter: %w", err)
		}
		o.Filter = f
	}
	o.Strategy, _ = a.last("strategy")
	if v, ok := a.last("sort-order-id"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return o, fmt.Errorf("--sort-order-id: want a sort order id, got %q", v)
		}
		o.SortOrderID = &n
	}
	if v, ok := a.last("output-spec-id"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return o, fmt.Errorf("--output-spec-id: want a partition spec id, got %q", v)
		}
		o.OutputSpecID = &n
	}
	if v, ok := a.last("zorder-columns"); ok {
		o.ZOrderColumns = strings.Split(v, ",")
	}
	o.RewriteAll = a.bools["rewrite-all"]
	o.PartialProgress = a.bools["partial-progress"]
	o.Token, _ = a.last("token")
	o.Branch, _ = a.last("branch")
	if o.Token != "" && a.bools["dry-run"] {
		return o, errors.New("--token commits; --dry-run does not")
	}
	return o, nil
}
