package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"time"
	"unsafe"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/maintenance"
	"github.com/floedb/floe/maintain"
	"github.com/floedb/floe/writer/ops"
)

// A compaction split across processes: the client plans
// (floe_rewrite_plan), workers rewrite one group each from the plan's
// JSON (floe_rewrite_group, on a handle of the metadata the plan was
// made from), and the client commits the workers' results in one
// snapshot (floe_rewrite_commit) or deletes their files
// (floe_rewrite_discard). maintain.RewriteDataFiles is the same three
// steps in one process; the JSON of plans and results is maintain's.

//export capiRewritePlan
func capiRewritePlan(h C.uintptr_t, optionsJSON *C.char, planJSON **C.char) (rc C.int) {
	const fn = "floe_rewrite_plan"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	out, err := rewritePlan(th, cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, classify(err, statusInvalidArgument))
	}
	*planJSON = cString(out)
	return C.int(statusOK)
}

//export capiRewriteGroup
func capiRewriteGroup(h C.uintptr_t, group *C.uint8_t, n C.size_t, optionsJSON *C.char, out **C.uint8_t, outLen *C.size_t) (rc C.int) {
	const fn = "floe_rewrite_group"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	res, err := rewriteGroup(th, cSlice(group, n), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, classify(err, statusIO))
	}
	*out = cByteBuffer(res)
	*outLen = C.size_t(len(res))
	return C.int(statusOK)
}

//export capiRewriteCommit
func capiRewriteCommit(h C.uintptr_t, results *C.uint8_t, n C.size_t, optionsJSON *C.char, resultJSON **C.char) (rc C.int) {
	const fn = "floe_rewrite_commit"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	out, err := rewriteCommit(th, cSlice(results, n), cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	*resultJSON = cString(out)
	return C.int(statusOK)
}

//export capiRewriteDiscard
func capiRewriteDiscard(h C.uintptr_t, results *C.uint8_t, n C.size_t) (rc C.int) {
	const fn = "floe_rewrite_discard"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if err := rewriteDiscard(th, cSlice(results, n)); err != nil {
		return fail(fn, err, classify(err, statusIO))
	}
	return C.int(statusOK)
}

// cSlice is the caller's buffer, read in place during the call.
func cSlice(p *C.uint8_t, n C.size_t) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
}

// rewritePlan plans on the version the handle holds, with
// floe_table_maintain's rewrite_data_files options, and returns the plan
// as JSON (maintain.RewritePlan).
func rewritePlan(th *tableHandle, options []byte) ([]byte, error) {
	raw, err := checkJSON(options, "rewrite_data_files options")
	if err != nil {
		return nil, err
	}
	opts, timeoutMs, err := maintenance.ParseRewriteDataFilesOptions(raw)
	if err != nil {
		return nil, err
	}
	timeout, err := optionalTimeout("floe_rewrite_plan options", timeoutMs)
	if err != nil {
		return nil, err
	}
	ctx, cancel := callContext(context.Background(), overridden(th.timeout, timeout))
	defer cancel()
	plan, err := maintain.PlanRewrite(ctx, th.current(), opts)
	if err != nil {
		return nil, err
	}
	if plan.Groups == nil {
		plan.Groups = []maintain.FileGroup{}
	}
	return json.Marshal(plan)
}

// rewriteCallOptions are floe_rewrite_group's options: only the call's
// time limit.
type rewriteCallOptions struct {
	TimeoutMs *int64 `json:"timeout_ms"`
}

// rewriteGroup rewrites one group of a plan (its JSON) on the handle's
// version and returns the group's result as JSON (maintain.GroupResult).
func rewriteGroup(th *tableHandle, group, options []byte) ([]byte, error) {
	var o rewriteCallOptions
	if err := decodeStrict(options, &o, "rewrite group options"); err != nil {
		return nil, err
	}
	timeout, err := optionalTimeout("floe_rewrite_group options", o.TimeoutMs)
	if err != nil {
		return nil, err
	}
	var g maintain.FileGroup
	if err := decodeStrict(group, &g, "file group"); err != nil {
		return nil, err
	}
	if len(g.Tasks) == 0 || len(g.DataFiles) == 0 {
		return nil, invalidArgument("file group %d has no data file: give one element of floe_rewrite_plan's \"groups\"", g.ID)
	}
	ctx, cancel := callContext(context.Background(), overridden(th.timeout, timeout))
	defer cancel()
	t := th.current()
	res, err := maintain.RewriteGroup(ctx, t, g)
	if err != nil {
		return nil, err
	}
	out, err := json.Marshal(res)
	if err != nil {
		// Files nobody will be told of: deleted, the encoding's error
		// reported.
		_ = ops.DiscardFiles(ctx, t, res.Added)
		return nil, withStatus(statusInternal, err)
	}
	return out, nil
}

// rewriteCommitOptions are floe_rewrite_commit's options.
type rewriteCommitOptions struct {
	Token  string `json:"token"`
	Branch string `json:"branch"`
	// DiscardRefused: the results' files were written for this commit
	// only, so they are deleted when it fails with a known outcome or
	// finds its token committed (as floe_append_files does).
	DiscardRefused bool `json:"discard_refused"`
	// PartialProgress: this commit is one of several of a run's groups
	// (partial progress), so it takes the run's token with a hash of the
	// files it replaces (maintain.PartialToken), as RewriteDataFiles'
	// partial commits do.
	PartialProgress bool   `json:"partial_progress"`
	TimeoutMs       *int64 `json:"timeout_ms"`
}

// rewriteCommitResult is floe_rewrite_commit's result JSON.
type rewriteCommitResult struct {
	SnapshotID         int64    `json:"snapshot_id"`
	TokenFound         bool     `json:"token_found"`
	RewrittenDataFiles int      `json:"rewritten_data_files_count"`
	AddedDataFiles     int      `json:"added_data_files_count"`
	RemovedDeleteFiles []string `json:"removed_delete_files"`
}

// rewriteCommit commits group results (a JSON array) in one snapshot,
// one commit at a time per handle, and keeps the version it leaves.
func rewriteCommit(th *tableHandle, results, options []byte) ([]byte, error) {
	var o rewriteCommitOptions
	if err := decodeStrict(options, &o, "rewrite commit options"); err != nil {
		return nil, err
	}
	timeout, err := optionalTimeout("floe_rewrite_commit options", o.TimeoutMs)
	if err != nil {
		return nil, err
	}
	groups, err := decodeGroupResults(results)
	if err != nil {
		return nil, err
	}
	if o.PartialProgress {
		o.Token = maintain.PartialToken(o.Token, groups)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(context.Background(), overridden(th.timeout, timeout))
	defer cancel()
	var c maintain.RewriteCommit
	commit := func() (ops.Result, error) {
		var err error
		c, err = maintain.CommitRewrite(ctx, &base, groups, maintain.RewriteCommitOptions{Token: o.Token, Branch: o.Branch})
		return ops.Result{SnapshotID: c.SnapshotID, Committed: err == nil && !c.TokenFound, TokenFound: c.TokenFound}, err
	}
	if o.DiscardRefused {
		_, err = ops.DiscardNotTaken(ctx, &base, addedFiles(groups))(commit())
	} else {
		_, err = commit()
	}
	if err != nil {
		return nil, err
	}
	statisticsOnCommit(ctx, &base)
	th.set(&base)
	out := rewriteCommitResult{SnapshotID: c.SnapshotID, TokenFound: c.TokenFound, RemovedDeleteFiles: nonNil(c.RemovedDeleteFiles)}
	if !c.TokenFound {
		for _, g := range groups {
			out.RewrittenDataFiles += len(g.Removed)
			out.AddedDataFiles += len(g.Added)
		}
	}
	return json.Marshal(out)
}

// rewriteDiscard deletes the files of group results no commit took (as
// floe_discard_files does).
func rewriteDiscard(th *tableHandle, results []byte) error {
	groups, err := decodeGroupResults(results)
	if err != nil {
		return err
	}
	ctx, cancel := callContext(context.Background(), th.timeout)
	defer cancel()
	return ops.DiscardFiles(ctx, th.current(), addedFiles(groups))
}

// decodeGroupResults reads a JSON array of floe_rewrite_group results.
func decodeGroupResults(data []byte) ([]maintain.GroupResult, error) {
	data, err := checkJSON(data, "group results")
	if err != nil {
		return nil, err
	}
	var groups []maintain.GroupResult
	if err := json.Unmarshal(data, &groups); err != nil {
		return nil, invalidArgument("group results: want a JSON array of floe_rewrite_group results: %v", err)
	}
	if len(groups) == 0 {
		return nil, invalidArgument("group results: no group result")
	}
	return groups, nil
}

func addedFiles(groups []maintain.GroupResult) []manifest.DataFile {
	var out []manifest.DataFile
	for _, g := range groups {
		out = append(out, g.Added...)
	}
	return out
}

func optionalTimeout(what string, ms *int64) (*time.Duration, error) {
	if ms == nil {
		return nil, nil
	}
	d, err := timeoutOption(what, *ms)
	if err != nil {
		return nil, err
	}
	return &d, nil
}
