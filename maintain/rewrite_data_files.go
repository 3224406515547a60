package maintain

import (
	"context"
	"crypto/sha256"
	"sort"

	"fmt"
	"sync"

	"github.com/floedb/floe/iceberg/table"
)

// Result is what RewriteDataFiles did.
type Result struct {
	StartingSnapshotID int64 `json:"starting_snapshot_id"`
	// Groups are the plan's groups, each with what became of it.
	Groups []GroupOutcome `json:"groups"`
	// Totals over the committed groups.
	RewrittenDataFiles int   `json:"rewritten_data_files_count"`
	AddedDataFiles     int   `json:"added_data_files_count"`
	RewrittenBytes     int64 `json:"rewritten_bytes_count"`
	RemovedDeleteFiles int   `json:"removed_delete_files_count"`
	FailedDataFiles    int   `json:"failed_data_files_count"`
	// SnapshotIDs are the commits' snapshots, in order.
	SnapshotIDs []int64 `json:"snapshot_ids"`
	// TokenFound says a commit's token was found committed already.
	TokenFound bool `json:"token_found,omitempty"`
}

// GroupOutcome is one group's part of a Result.
type GroupOutcome struct {
	ID          int    `json:"id"`
	Partition   string `json:"partition"`
	InputFiles  int    `json:"input_files"`
	InputBytes  int64  `json:"input_bytes"`
	OutputFiles int    `json:"output_files"`
	// SnapshotID is the commit holding the group; 0 when it failed.
	SnapshotID int64 `json:"snapshot_id,omitempty"`
	// Err is why the group was not committed (errors.Is works on it, e.g.
	// table.ErrConflict); Error its text.
	Err   error  `json:"-"`
	Error string `json:"error,omitempty"`
}

// RewriteDataFiles compacts t: PlanRewrite, then RewriteGroup for each
// group (MaxConcurrentGroups at once), then CommitRewrite. With partial
// progress the groups are committed as they finish, several to a commit
// so that there are at most PartialProgressMaxCommits commits, and a group
// that fails (to rewrite, or to commit: a conflict) is reported in its
// GroupOutcome while the others stay committed; the error is then nil
// unless ctx ended. Without it the groups are one commit: any failure
// fails the whole, every group, and commits nothing. Files written for what is not committed are deleted.
// On success t holds the table as the last commit left it.
func RewriteDataFiles(ctx context.Context, t *table.Table, opts RewriteDataFilesOptions) (Result, error) {
	if opts.Token != "" && !opts.PartialProgress {
		// A compaction that committed and was run again does nothing.
		if id, ok, err := table.SnapshotWithToken(t.Metadata, opts.Token); err != nil {
			return Result{}, err
		} else if ok {
			return Result{SnapshotIDs: []int64{id}, TokenFound: true}, nil
		}
	}
	plan, err := PlanRewrite(ctx, t, opts)
	if err != nil {
		return Result{}, err
	}
	opts = plan.Options
	res := Result{StartingSnapshotID: plan.StartingSnapshotID, Groups: make([]GroupOutcome, len(plan.Groups))}
	for i, g := range plan.Groups {
		res.Groups[i] = GroupOutcome{ID: g.ID, Partition: g.Partition, InputFiles: len(g.DataFiles), InputBytes: g.InputBytes}
	}
	if len(plan.Groups) == 0 {
		return res, nil
	}
	// Workers read the table as planned; commits replace *t meanwhile.
	planned := *t
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := runGroups(ctx, &planned, plan.Groups, opts.MaxConcurrentGroups)

	perCommit := len(plan.Groups)
	if opts.PartialProgress {
		perCommit = (len(plan.Groups) + opts.PartialProgressMaxCommits - 1) / opts.PartialProgressMaxCommits
	}
	var pending []GroupResult
	var firstErr error
	finished := 0
	progress := func(i int) {
		finished++
		if opts.Progress != nil {
			opts.Progress(finished, len(plan.Groups), res.Groups[i])
		}
	}
	commit := func() {
		if len(pending) == 0 {
			return
		}
		token := opts.Token
		if token != "" && opts.PartialProgress {
			token = partialToken(token, pending)
		}
		c, err := CommitRewrite(ctx, t, pending, RewriteCommitOptions{Token: token, Branch: opts.Branch})
		if err == nil && c.TokenFound {
			res.TokenFound = true
		}
		res.record(pending, c, err)
		if err != nil || c.TokenFound {
			for _, r := range pending {
				discardFiles(ctx, t, r.Added)
			}
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
		if opts.PartialProgress {
			for _, r := range pending {
				progress(r.GroupID)
			}
		}
		pending = nil
	}
	for out := range done {
		if out.err != nil {
			res.Groups[out.index].Err, res.Groups[out.index].Error = out.err, out.err.Error()
			progress(out.index)
			res.FailedDataFiles += res.Groups[out.index].InputFiles
			if firstErr == nil {
				firstErr = out.err
			}
			if !opts.PartialProgress {
				cancel()
			}
			continue
		}
		pending = append(pending, out.result)
		if !opts.PartialProgress {
			res.Groups[out.index].OutputFiles = len(out.result.Added)
			progress(out.index)
		} else if len(pending) >= perCommit {
			commit()
		}
	}
	if !opts.PartialProgress && firstErr != nil {
		for _, r := range pending {
			discardFiles(ctx, t, r.Added)
		}
		res.failAll(firstErr)
		return res, fmt.Errorf("rewrite data files: %w", firstErr)
	}
	commit()
	if !opts.PartialProgress && firstErr != nil {
		return res, fmt.Errorf("rewrite data files: %w", firstErr)
	}
	if err := ctx.Err(); err != nil {
		// The caller gave up: what was committed is in res.
		return res, err
	}
	return res, nil
}

// failAll marks the groups not failed already as not committed because
// of err (one commit: one group's failure fails them all).
func (r *Result) failAll(err error) {
	for i := range r.Groups {
		if o := &r.Groups[i]; o.Err == nil {
			o.Err = fmt.Errorf("not committed: %w", err)
			o.Error, o.OutputFiles = o.Err.Error(), 0
			r.FailedDataFiles += o.InputFiles
		}
	}
}

// partialToken is a partial-progress commit's token: the run's, and what
// the commit replaces. A run retried after a crash plans again: the groups
// it committed are gone from its plan, and a commit of the same files
// again finds its token.
func partialToken(token string, groups []GroupResult) string {
	var removed []string
	for _, g := range groups {
		removed = append(removed, g.Removed...)
	}
	sort.Strings(removed)
	h := sha256.New()
	for _, p := range removed {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return fmt.Sprintf("%s/%x", token, h.Sum(nil)[:8])
}

// record notes a commit's outcome on its groups.
func (r *Result) record(groups []GroupResult, c RewriteCommit, err error) {
	if err == nil {
		r.SnapshotIDs = append(r.SnapshotIDs, c.SnapshotID)
		r.RemovedDeleteFiles += len(c.RemovedDeleteFiles)
	}
	for _, g := range groups {
		o := &r.Groups[g.GroupID]
		if err != nil {
			o.Err, o.Error = err, err.Error()
			r.FailedDataFiles += o.InputFiles
			continue
		}
		o.SnapshotID, o.OutputFiles = c.SnapshotID, len(g.Added)
		if !c.TokenFound {
			r.RewrittenDataFiles += o.InputFiles
			r.RewrittenBytes += o.InputBytes
			r.AddedDataFiles += len(g.Added)
		}
	}
}

type groupDone struct {
	index  int
	result GroupResult
	err    error
}

// runGroups rewrites the groups, n at a time, and sends each outcome as
// it comes; the channel closes when all are done.
func runGroups(ctx context.Context, t *table.Table, groups []FileGroup, n int) <-chan groupDone {
	out := make(chan groupDone)
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(n, len(groups)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				var d groupDone
				if err := ctx.Err(); err != nil {
					d = groupDone{index: i, err: err}
				} else {
					r, err := RewriteGroup(ctx, t, groups[i])
					d = groupDone{index: i, result: r, err: err}
				}
				out <- d
			}
		}()
	}
	go func() {
		for i := range groups {
			next <- i
		}
		close(next)
		wg.Wait()
		close(out)
	}()
	return out
}
