package main

// #include "capi.h"
// void capi_call_progress(floe_progress_fn fn, const char* progress_json, void* user_data);
import "C"

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

// floe_table_maintain runs one table-maintenance action, named as
// pyiceberg's and Java's actions are (snake case), with JSON options and
// one JSON object as its result. Each action's options and result are
// here, beside the core they call; the cores are in iceberg/table
// (orphans, manifests, dangling deletes) and maintain (statistics,
// compaction).

// maintainProgress is told how far an action is, as a JSON object.
type maintainProgress func(progressJSON []byte)

// maintainRequest is one parsed call: the action to run and the call's
// timeout_ms (nil: the handle's).
type maintainRequest struct {
	action  string
	timeout *time.Duration
	run     func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error)
}

// maintainActions parse each action's options into its request.
var maintainActions = map[string]func(data []byte) (maintainRequest, error){
	"remove_orphan_files":     parseOrphanRequest,
	"rewrite_manifests":       parseRewriteManifestsRequest,
	"remove_dangling_deletes": parseDanglingRequest,
	"compute_statistics":      parseStatisticsRequest,
	"rewrite_data_files":      parseRewriteDataFilesRequest,
}

// parseMaintain reads the action's name and its options_json strictly:
// an unknown action or key is refused naming the closest one.
func parseMaintain(action string, data []byte) (maintainRequest, error) {
	parse, ok := maintainActions[action]
	if !ok {
		names := slices.Sorted(func(yield func(string) bool) {
			for n := range maintainActions {
				if !yield(n) {
					return
				}
			}
		})
		return maintainRequest{}, invalidArgument("unknown action %q%s; the actions are %s", action, closestHint(action, names), strings.Join(names, ", "))
	}
	req, err := parse(data)
	if err != nil {
		return maintainRequest{}, err
	}
	req.action = action
	return req, nil
}

// decodeMaintainOptions decodes options_json into v, refusing keys v
// does not have with the closest one it has (a misspelt "dry_run" must
// not run the action for real).
func decodeMaintainOptions(data []byte, v any, action string) error {
	what := action + " options"
	data, err := checkJSON(data, what)
	if err != nil || data == nil {
		return err
	}
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return invalidArgument("%s: want a JSON object: %v", what, err)
	}
	known := jsonKeys(reflect.TypeOf(v).Elem())
	for k := range keys {
		if !slices.Contains(known, k) {
			return invalidArgument("%s: unknown key %q%s; the keys are %s", what, k, closestHint(k, known), strings.Join(known, ", "))
		}
	}
	return decodeStrict(data, v, what)
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

// timeoutOf reads an action's timeout_ms.
func timeoutOf(ms *int64, action string) (*time.Duration, error) {
	if ms == nil {
		return nil, nil
	}
	d, err := timeoutOption(action+" options", *ms)
	return &d, err
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

func parseOrphanRequest(data []byte) (maintainRequest, error) {
	const action = "remove_orphan_files"
	var o orphanOptionsJSON
	if err := decodeMaintainOptions(data, &o, action); err != nil {
		return maintainRequest{}, err
	}
	timeout, err := timeoutOf(o.TimeoutMs, action)
	if err != nil {
		return maintainRequest{}, err
	}
	return maintainRequest{timeout: timeout, run: func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error) {
		opts := table.OrphanOptions{Force: o.Force, DryRun: o.DryRun, Location: o.Location}
		if o.OlderThanMs != nil {
			opts.OlderThan = time.Since(time.UnixMilli(*o.OlderThanMs))
			if opts.OlderThan <= 0 {
				return nil, invalidArgument("%s options: older_than_ms %d is in the future", action, *o.OlderThanMs)
			}
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

func parseRewriteManifestsRequest(data []byte) (maintainRequest, error) {
	const action = "rewrite_manifests"
	var o rewriteManifestsOptionsJSON
	if err := decodeMaintainOptions(data, &o, action); err != nil {
		return maintainRequest{}, err
	}
	if o.TargetSizeBytes < 0 {
		return maintainRequest{}, invalidArgument("%s options: target_size_bytes %d is negative", action, o.TargetSizeBytes)
	}
	timeout, err := timeoutOf(o.TimeoutMs, action)
	if err != nil {
		return maintainRequest{}, err
	}
	return maintainRequest{timeout: timeout, run: func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error) {
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

func parseDanglingRequest(data []byte) (maintainRequest, error) {
	const action = "remove_dangling_deletes"
	var o maintainCommitOptions
	if err := decodeMaintainOptions(data, &o, action); err != nil {
		return maintainRequest{}, err
	}
	timeout, err := timeoutOf(o.TimeoutMs, action)
	if err != nil {
		return maintainRequest{}, err
	}
	return maintainRequest{timeout: timeout, run: func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error) {
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

type statisticsOptionsJSON struct {
	SnapshotID *int64   `json:"snapshot_id"`
	Columns    []string `json:"columns"`
	TimeoutMs  *int64   `json:"timeout_ms"`
}

type statisticsResultJSON struct {
	SnapshotID     int64            `json:"snapshot_id"`
	StatisticsPath string           `json:"statistics_path"`
	FileSizeBytes  int64            `json:"file_size_in_bytes"`
	NDV            map[string]int64 `json:"ndv"`
}

func newStatisticsResult(r maintain.StatisticsResult) statisticsResultJSON {
	return statisticsResultJSON{SnapshotID: r.SnapshotID, StatisticsPath: r.Path, FileSizeBytes: r.File.FileSizeInBytes, NDV: r.NDV}
}

func parseStatisticsRequest(data []byte) (maintainRequest, error) {
	const action = "compute_statistics"
	var o statisticsOptionsJSON
	if err := decodeMaintainOptions(data, &o, action); err != nil {
		return maintainRequest{}, err
	}
	timeout, err := timeoutOf(o.TimeoutMs, action)
	if err != nil {
		return maintainRequest{}, err
	}
	return maintainRequest{timeout: timeout, run: func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error) {
		res, err := maintain.ComputeStatistics(ctx, t, maintain.StatisticsOptions{SnapshotID: o.SnapshotID, Columns: o.Columns})
		if err != nil {
			return nil, err
		}
		progress.done(action)
		return newStatisticsResult(res), nil
	}}, nil
}

// rewriteDataFilesOptionsJSON are rewrite_data_files' options: Java's
// option names in snake case (maintain.RewriteDataFilesOptions says what
// each does and its default).
type rewriteDataFilesOptionsJSON struct {
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

func parseRewriteDataFilesRequest(data []byte) (maintainRequest, error) {
	const action = "rewrite_data_files"
	var o rewriteDataFilesOptionsJSON
	if err := decodeMaintainOptions(data, &o, action); err != nil {
		return maintainRequest{}, err
	}
	for name, v := range map[string]int64{
		"target_file_size_bytes": o.TargetFileSizeBytes, "min_file_size_bytes": o.MinFileSizeBytes, "max_file_size_bytes": o.MaxFileSizeBytes,
		"min_input_files": int64(o.MinInputFiles), "delete_file_threshold": int64(o.DeleteFileThreshold),
		"max_file_group_size_bytes": o.MaxFileGroupSizeBytes, "partial_progress_max_commits": int64(o.PartialProgressMaxCommits),
		"max_concurrent_file_group_rewrites": int64(o.MaxConcurrentGroups),
	} {
		if v < 0 {
			return maintainRequest{}, invalidArgument("%s options: %s %d is negative", action, name, v)
		}
	}
	opts := maintain.RewriteDataFilesOptions{
		TargetFileSizeBytes: o.TargetFileSizeBytes, MinFileSizeBytes: o.MinFileSizeBytes, MaxFileSizeBytes: o.MaxFileSizeBytes,
		MinInputFiles: o.MinInputFiles, DeleteFileThreshold: o.DeleteFileThreshold, DeleteRatioThreshold: o.DeleteRatioThreshold,
		RewriteAll: o.RewriteAll, MaxFileGroupSizeBytes: o.MaxFileGroupSizeBytes, PartialProgress: o.PartialProgress,
		PartialProgressMaxCommits: o.PartialProgressMaxCommits, MaxConcurrentGroups: o.MaxConcurrentGroups, Token: o.Token, Branch: o.Branch,
	}
	if len(o.Filter) > 0 {
		text := string(o.Filter)
		var s string
		if json.Unmarshal(o.Filter, &s) == nil {
			text = s
		}
		f, err := expr.ParseFilter(text)
		if err != nil {
			return maintainRequest{}, invalidArgument("%s options: filter: %v", action, err)
		}
		opts.Filter = f
	}
	timeout, err := timeoutOf(o.TimeoutMs, action)
	if err != nil {
		return maintainRequest{}, err
	}
	return maintainRequest{timeout: timeout, run: func(ctx context.Context, t *table.Table, progress maintainProgress) (any, error) {
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

// progressJSON is what the progress callback receives: the action, how
// many of its steps (compaction: file groups) are done of how many, and
// for a compaction the group just done.
type progressJSON struct {
	Action string                 `json:"action"`
	Done   int                    `json:"done"`
	Total  int                    `json:"total"`
	Group  *maintain.GroupOutcome `json:"group,omitempty"`
}

func (p maintainProgress) report(action string, done, total int, g *maintain.GroupOutcome) {
	if p == nil {
		return
	}
	data, err := json.Marshal(progressJSON{Action: action, Done: done, Total: total, Group: g})
	if err == nil {
		p(data)
	}
}

// done reports an action without steps of its own as one step, done.
func (p maintainProgress) done(action string) { p.report(action, 1, 1, nil) }

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

// runMaintain runs a parsed request on the handle's table version, one
// commit at a time per handle, and keeps the version it leaves.
func runMaintain(th *tableHandle, req maintainRequest, progress maintainProgress) ([]byte, error) {
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(context.Background(), overridden(th.timeout, req.timeout))
	defer cancel()
	res, err := req.run(ctx, &base, progress)
	if err != nil {
		return nil, err
	}
	th.set(&base)
	return json.Marshal(res)
}

//export capiTableMaintain
func capiTableMaintain(h C.uintptr_t, action, optionsJSON *C.char, progress C.floe_progress_fn, userData unsafe.Pointer, resultJSON **C.char) (rc C.int) {
	const fn = "floe_table_maintain"
	defer recoverStatus(fn, &rc)
	req, err := parseMaintain(C.GoString(action), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	var report maintainProgress
	if progress != nil {
		report = func(data []byte) {
			s := C.CString(string(data))
			defer C.free(unsafe.Pointer(s))
			C.capi_call_progress(progress, s, userData)
		}
	}
	out, err := runMaintain(th, req, report)
	if err != nil {
		return fail(fn+" "+req.action, err, commitFailureStatus(err))
	}
	*resultJSON = cString(out)
	return C.int(statusOK)
}
