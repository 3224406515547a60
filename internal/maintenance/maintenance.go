// Package maintenance is the one form of floe's table-maintenance
// actions that its interfaces share: the C API's floe_table_maintain and
// the CLI's remove-orphans, rewrite-manifests, rewrite-deletes and stats
// commands parse the same JSON options (snake case, unknown keys refused
// naming the closest) and print the same JSON result. The actions
// themselves are in iceberg/table (orphan files, manifest rewrites,
// dangling deletes) and maintain (statistics, compaction).
package maintenance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// Progress is told how far an action is, as a JSON object.
type Progress func(progressJSON []byte)

// Request is one parsed call: the action to run and its timeout_ms
// (nil: the caller's default), which the caller applies to ctx.
type Request struct {
	Action    string
	TimeoutMs *int64
	run       func(ctx context.Context, t *table.Table, progress Progress) (any, error)
}

// Run runs the request on t, which holds the table as the action left
// it, and returns its result as one JSON object. progress may be nil.
func (r Request) Run(ctx context.Context, t *table.Table, progress Progress) ([]byte, error) {
	res, err := r.run(ctx, t, progress)
	if err != nil {
		return nil, err
	}
	return json.Marshal(res)
}

// actions parse each action's options into its request.
var actions = map[string]func(data []byte) (Request, error){
	"remove_orphan_files":     parseOrphanRequest,
	"rewrite_manifests":       parseRewriteManifestsRequest,
	"remove_dangling_deletes": parseDanglingRequest,
	"compute_statistics":      parseStatisticsRequest,
	"rewrite_data_files":      parseRewriteDataFilesRequest,
}

// Actions are the actions' names, sorted.
func Actions() []string {
	return slices.Sorted(func(yield func(string) bool) {
		for n := range actions {
			if !yield(n) {
				return
			}
		}
	})
}

// Parse reads the action's name and its options_json strictly:
// an unknown action or key is refused naming the closest one.
func Parse(action string, data []byte) (Request, error) {
	parse, ok := actions[action]
	if !ok {
		names := Actions()
		return Request{}, invalid("unknown action %q%s; the actions are %s", action, closestHint(action, names), strings.Join(names, ", "))
	}
	req, err := parse(data)
	if err != nil {
		return Request{}, err
	}
	req.Action = action
	return req, nil
}

// decodeOptions decodes options_json into v, refusing keys v
// does not have with the closest one it has (a misspelt "dry_run" must
// not run the action for real).
func decodeOptions(data []byte, v any, action string) error {
	what := action + " options"
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return invalid("%s: want a JSON object: %v", what, err)
	}
	known := jsonKeys(reflect.TypeOf(v).Elem())
	for k := range keys {
		if !slices.Contains(known, k) {
			return invalid("%s: unknown key %q%s; the keys are %s", what, k, closestHint(k, known), strings.Join(known, ", "))
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalid("%s: %v", what, err)
	}
	return nil
}

func closestHint(name string, names []string) string {
	if c := iceberg.ClosestName(name, names); c != "" {
		return fmt.Sprintf(" (did you mean %q?)", c)
	}
	return ""
}

// jsonKeys lists the JSON keys of a struct type, embedded structs' too,
// sorted.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonKeys(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// orphanOptionsJSON are remove_orphan_files' options. older_than_ms is a
// time (ms since the epoch), as floe_expire_snapshots takes it: files
// last modified after it are kept.
type orphanOptionsJSON struct {
	OlderThanMs *int64 `json:"older_than_ms"`
	Force       bool   `json:"force"`
	DryRun      bool   `json:"dry_run"`
	Location    string `json:"location"`
	TimeoutMs   *int64 `json:"timeout_ms"`
}

type orphanResultJSON struct {
	DryRun        bool     `json:"dry_run"`
	OrphanFiles   []string `json:"orphan_files"`
	Deleted       int      `json:"deleted_files_count"`
	FailedDeletes int      `json:"failed_deletes_count"`
	Listed        int      `json:"listed_files_count"`
	Referenced    int      `json:"referenced_files_count"`
	TooNew        int      `json:"too_new_files_count"`
}

func parseOrphanRequest(data []byte) (Request, error) {
	const action = "remove_orphan_files"
	var o orphanOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		opts := table.OrphanOptions{Force: o.Force, DryRun: o.DryRun, Location: o.Location}
		if o.OlderThanMs != nil {
			if *o.OlderThanMs > time.Now().UnixMilli() {
				return nil, invalid("%s options: older_than_ms %d is in the future", action, *o.OlderThanMs)
			}
			// At least 1ns: zero would mean the default age.
			opts.OlderThan = max(time.Since(time.UnixMilli(*o.OlderThanMs)), 1)
		}
		res, err := t.RemoveOrphanFiles(ctx, opts)
		if err != nil {
			return nil, err
		}
		progress.done(action)
		return orphanResultJSON{
			DryRun: o.DryRun, OrphanFiles: nonNil(res.Orphans), Deleted: res.Deleted, FailedDeletes: res.FailedDeletes,
			Listed: res.Listed, Referenced: res.Referenced, TooNew: res.TooNew,
		}, nil
	}}, nil
}

// maintainCommitOptions are the commit options the committing actions
// take (as commit_json).
type maintainCommitOptions struct {
	Token      string            `json:"token"`
	Properties map[string]string `json:"properties"`
	Branch     string            `json:"branch"`
	TimeoutMs  *int64            `json:"timeout_ms"`
}

func (o maintainCommitOptions) table() table.CommitOptions {
	return table.CommitOptions{Token: o.Token, Properties: o.Properties, Branch: o.Branch}
}

type rewriteManifestsOptionsJSON struct {
	maintainCommitOptions
	TargetSizeBytes int64 `json:"target_size_bytes"`
}

type rewriteManifestsResultJSON struct {
	SnapshotID int64 `json:"snapshot_id"`
	Committed  bool  `json:"committed"`
	TokenFound bool  `json:"token_found"`
	// The counts of the snapshot's summary (0 when nothing committed).
	RewrittenManifests int64 `json:"rewritten_manifests_count"`
	AddedManifests     int64 `json:"added_manifests_count"`
	KeptManifests      int64 `json:"kept_manifests_count"`
	EntriesProcessed   int64 `json:"processed_entries_count"`
}

func parseRewriteManifestsRequest(data []byte) (Request, error) {
	const action = "rewrite_manifests"
	var o rewriteManifestsOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	if o.TargetSizeBytes < 0 {
		return Request{}, invalid("%s options: target_size_bytes %d is negative", action, o.TargetSizeBytes)
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		before := headID(t, o.Branch)
		res, err := t.RewriteManifests(ctx, table.RewriteManifestsOptions{CommitOptions: o.table(), TargetSizeBytes: o.TargetSizeBytes})
		if err != nil {
			return nil, err
		}
		progress.done(action)
		out := rewriteManifestsResultJSON{SnapshotID: res.SnapshotID, TokenFound: res.TokenFound}
		out.Committed = !res.TokenFound && res.SnapshotID != before
		if out.Committed {
			if s := t.Metadata.SnapshotByID(res.SnapshotID); s != nil {
				out.AddedManifests = summaryCount(s.Summary, "manifests-created")
				out.RewrittenManifests = summaryCount(s.Summary, "manifests-replaced")
				out.KeptManifests = summaryCount(s.Summary, "manifests-kept")
				out.EntriesProcessed = summaryCount(s.Summary, "entries-processed")
			}
		}
		return out, nil
	}}, nil
}

type danglingResultJSON struct {
	SnapshotID         int64    `json:"snapshot_id"`
	Committed          bool     `json:"committed"`
	TokenFound         bool     `json:"token_found"`
	RemovedDeleteFiles []string `json:"removed_delete_files"`
}

func parseDanglingRequest(data []byte) (Request, error) {
	const action = "remove_dangling_deletes"
	var o maintainCommitOptions
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		res, err := t.RemoveDanglingDeletes(ctx, o.table())
		if err != nil {
			return nil, err
		}
		progress.done(action)
		out := danglingResultJSON{SnapshotID: res.SnapshotID, TokenFound: res.TokenFound, RemovedDeleteFiles: []string{}}
		out.Committed = res.SnapshotID != 0 && !res.TokenFound
		if !out.Committed && !res.TokenFound {
			out.SnapshotID = headID(t, o.Branch)
		}
		for _, f := range res.Removed {
			out.RemovedDeleteFiles = append(out.RemovedDeleteFiles, f.FilePath)
		}
		return out, nil
	}}, nil
}

// statisticsOptionsJSON are compute_statistics' options. ndv (default
// true) sketches the columns' distinct values into a Puffin statistics
// file; partition_statistics writes the snapshot's partition statistics
// file too: by default on partitioned tables only (it reads manifests,
// never data, so it costs little beside the sketches), true to require
// it (an unpartitioned table is then refused), false to skip it.
type statisticsOptionsJSON struct {
	SnapshotID          *int64   `json:"snapshot_id"`
	Columns             []string `json:"columns"`
	NDV                 *bool    `json:"ndv"`
	PartitionStatistics *bool    `json:"partition_statistics"`
	TimeoutMs           *int64   `json:"timeout_ms"`
}

type statisticsResultJSON struct {
	SnapshotID     int64            `json:"snapshot_id"`
	StatisticsPath string           `json:"statistics_path,omitempty"`
	FileSizeBytes  int64            `json:"file_size_in_bytes,omitempty"`
	NDV            map[string]int64 `json:"ndv,omitempty"`
	// PartitionStatistics is the partition statistics file written, or
	// absent when none was.
	PartitionStatistics *partitionStatisticsResultJSON `json:"partition_statistics,omitempty"`
}

type partitionStatisticsResultJSON struct {
	StatisticsPath string `json:"statistics_path"`
	FileSizeBytes  int64  `json:"file_size_in_bytes"`
	Partitions     int    `json:"partitions"`
}

func newStatisticsResult(r maintain.StatisticsResult) statisticsResultJSON {
	return statisticsResultJSON{SnapshotID: r.SnapshotID, StatisticsPath: r.Path, FileSizeBytes: r.File.FileSizeInBytes, NDV: r.NDV}
}

func parseStatisticsRequest(data []byte) (Request, error) {
	const action = "compute_statistics"
	var o statisticsOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return Request{}, err
	}
	ndv := o.NDV == nil || *o.NDV
	if !ndv && o.PartitionStatistics != nil && !*o.PartitionStatistics {
		return Request{}, invalid("%s: ndv and partition_statistics are both false: nothing to compute", action)
	}
	if !ndv && o.Columns != nil {
		return Request{}, invalid("%s: columns are the columns sketched, but ndv is false", action)
	}
	return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		var out statisticsResultJSON
		snapshotID := o.SnapshotID
		partitions := o.PartitionStatistics == nil && maintain.IsPartitioned(t.Metadata) || o.PartitionStatistics != nil && *o.PartitionStatistics
		if !ndv && !partitions {
			// Known only now (the table's specs): refused as both false
			// are, rather than a success that wrote nothing.
			return nil, invalid("%s: ndv is false and the table is unpartitioned (no partition statistics): nothing to compute", action)
		}
		if ndv {
			res, err := maintain.ComputeStatistics(ctx, t, maintain.StatisticsOptions{SnapshotID: o.SnapshotID, Columns: o.Columns})
			if err != nil {
				return nil, err
			}
			out = newStatisticsResult(res)
			snapshotID = &res.SnapshotID
		}
		if partitions {
			res, err := maintain.ComputePartitionStatistics(ctx, t, maintain.PartitionStatisticsOptions{SnapshotID: snapshotID})
			if err != nil {
				return nil, err
			}
			out.SnapshotID = res.SnapshotID
			out.PartitionStatistics = &partitionStatisticsResultJSON{StatisticsPath: res.Path, FileSizeBytes: res.File.FileSizeInBytes, Partitions: res.Partitions}
		}
		progress.done(action)
		return out, nil
	}}, nil
}

// rewriteDataFilesOptionsJSON are rewrite_data_files' options: Java's
// option names in snake case (maintain.RewriteDataFilesOptions says what
// each does and its default).
type rewriteDataFilesOptionsJSON struct {
	Strategy                  string          `json:"strategy"`
	SortOrderID               *int            `json:"sort_order_id"`
	ZOrderColumns             []string        `json:"zorder_columns"`
	OutputSpecID              *int            `json:"output_spec_id"`
	TargetFileSizeBytes       int64           `json:"target_file_size_bytes"`
	MinFileSizeBytes          int64           `json:"min_file_size_bytes"`
	MaxFileSizeBytes          int64           `json:"max_file_size_bytes"`
	MinInputFiles             int             `json:"min_input_files"`
	DeleteFileThreshold       int             `json:"delete_file_threshold"`
	DeleteRatioThreshold      float64         `json:"delete_ratio_threshold"`
	RewriteAll                bool            `json:"rewrite_all"`
	MaxFileGroupSizeBytes     int64           `json:"max_file_group_size_bytes"`
	PartialProgress           bool            `json:"partial_progress_enabled"`
	PartialProgressMaxCommits int             `json:"partial_progress_max_commits"`
	MaxConcurrentGroups       int             `json:"max_concurrent_file_group_rewrites"`
	Filter                    json.RawMessage `json:"filter"`
	Token                     string          `json:"token"`
	Branch                    string          `json:"branch"`
	TimeoutMs                 *int64          `json:"timeout_ms"`
}

func parseRewriteDataFilesRequest(data []byte) (Request, error) {
	const action = "rewrite_data_files"
	opts, timeoutMs, err := ParseRewriteDataFilesOptions(data)
	if err != nil {
		return Request{}, err
	}
	return Request{TimeoutMs: timeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
		if progress != nil {
			opts.Progress = func(done, total int, g maintain.GroupOutcome) {
				progress.report(action, done, total, &g)
			}
		}
		res, err := maintain.RewriteDataFiles(ctx, t, opts)
		if err != nil {
			return nil, err
		}
		if len(res.Groups) == 0 {
			progress.done(action) // no group to tell of: once, at the end
		}
		if res.Groups == nil {
			res.Groups = []maintain.GroupOutcome{}
		}
		res.SnapshotIDs = nonNil(res.SnapshotIDs)
		return res, nil
	}}, nil
}

// ParseRewriteDataFilesOptions reads rewrite_data_files' options_json
// strictly into the compaction's options and its timeout_ms (nil: not
// given): floe_table_maintain's form, which the distributed entry points
// (floe_rewrite_plan) take too.
func ParseRewriteDataFilesOptions(data []byte) (maintain.RewriteDataFilesOptions, *int64, error) {
	const action = "rewrite_data_files"
	var o rewriteDataFilesOptionsJSON
	if err := decodeOptions(data, &o, action); err != nil {
		return maintain.RewriteDataFilesOptions{}, nil, err
	}
	for name, v := range map[string]int64{
		"target_file_size_bytes": o.TargetFileSizeBytes, "min_file_size_bytes": o.MinFileSizeBytes, "max_file_size_bytes": o.MaxFileSizeBytes,
		"min_input_files": int64(o.MinInputFiles), "delete_file_threshold": int64(o.DeleteFileThreshold),
		"max_file_group_size_bytes": o.MaxFileGroupSizeBytes, "partial_progress_max_commits": int64(o.PartialProgressMaxCommits),
		"max_concurrent_file_group_rewrites": int64(o.MaxConcurrentGroups),
	} {
		if v < 0 {
			return maintain.RewriteDataFilesOptions{}, nil, invalid("%s options: %s %d is negative", action, name, v)
		}
	}
	opts := maintain.RewriteDataFilesOptions{
		TargetFileSizeBytes: o.TargetFileSizeBytes, MinFileSizeBytes: o.MinFileSizeBytes, MaxFileSizeBytes: o.MaxFileSizeBytes,
		MinInputFiles: o.MinInputFiles, DeleteFileThreshold: o.DeleteFileThreshold, DeleteRatioThreshold: o.DeleteRatioThreshold,
		RewriteAll: o.RewriteAll, MaxFileGroupSizeBytes: o.MaxFileGroupSizeBytes, PartialProgress: o.PartialProgress,
		PartialProgressMaxCommits: o.PartialProgressMaxCommits, MaxConcurrentGroups: o.MaxConcurrentGroups, Token: o.Token, Branch: o.Branch,
		Strategy: o.Strategy, SortOrderID: o.SortOrderID, ZOrderColumns: o.ZOrderColumns, OutputSpecID: o.OutputSpecID,
	}
	if o.OutputSpecID != nil && *o.OutputSpecID < 0 {
		return maintain.RewriteDataFilesOptions{}, nil, invalid("%s options: output_spec_id %d is negative", action, *o.OutputSpecID)
	}
	if len(o.Filter) > 0 {
		text := string(o.Filter)
		var s string
		if json.Unmarshal(o.Filter, &s) == nil {
			text = s
		}
		f, err := expr.ParseFilter(text)
		if err != nil {
			return maintain.RewriteDataFilesOptions{}, nil, invalid("%s options: filter: %v", action, err)
		}
		opts.Filter = f
	}
	return opts, o.TimeoutMs, nil
}

// progressJSON is what the progress callback receives: the action, how
// many of its steps (compaction: file groups) are done of how many, and
// for a compaction the group just done.
type progressJSON struct {
	Action string                 `json:"action"`
	Done   int                    `json:"done"`
	Total  int                    `json:"total"`
	Group  *maintain.GroupOutcome `json:"group,omitempty"`
}

func (p Progress) report(action string, done, total int, g *maintain.GroupOutcome) {
	if p == nil {
		return
	}
	data, err := json.Marshal(progressJSON{Action: action, Done: done, Total: total, Group: g})
	if err == nil {
		p(data)
	}
}

// done reports an action without steps of its own as one step, done.
func (p Progress) done(action string) { p.report(action, 1, 1, nil) }

func headID(t *table.Table, branch string) int64 {
	s, err := t.Snapshot(table.SnapshotSelector{Ref: branch})
	if err != nil || s == nil {
		return 0
	}
	return s.SnapshotID
}

func summaryCount(summary map[string]string, key string) int64 {
	var n int64
	fmt.Sscan(summary[key], &n)
	return n
}

func invalid(format string, args ...any) error {
	return errkind.Errorf(errkind.InvalidArgument, format, args...)
}

// nonNil makes an empty list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
