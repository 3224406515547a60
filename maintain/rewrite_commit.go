package maintain

import (
	"context"
	"fmt"
	"sort"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// RewriteCommitOptions are a CommitRewrite's options.
type RewriteCommitOptions struct {
	// Token makes the commit idempotent (table.CommitOptions.Token).
	Token string
	// Branch is the branch committed to; "" is main.
	Branch string
}

// RewriteCommit is what CommitRewrite did.
type RewriteCommit struct {
	// SnapshotID is the "replace" snapshot holding the rewrite (or, with
	// TokenFound, the one that already carried the token: nothing was
	// committed by this call, and the files the results name are the
	// caller's to delete unless they are that snapshot's).
	SnapshotID int64
	TokenFound bool
	// RemovedDeleteFiles are the delete files dropped because no live
	// data file needs them once the groups' files are gone (deletion
	// vectors of the removed files go with them and are not listed).
	RemovedDeleteFiles []string
}

// CommitRewrite commits the results of rewritten groups of one plan in
// one snapshot (table.RewriteFiles): the groups' data files are replaced
// by the files written, at the plan's starting snapshot, and delete files
// that applied to the removed files and to no other live data file go
// too. t is refreshed first and holds the committed version after. It
// fails with an error of kind Conflict, committing nothing, when
// another writer removed one of the files, or deleted rows of one after
// the starting snapshot by position (see table.RewriteFiles), or — when a
// group moved rows to another spec's partitions — by equality in a
// removed file's partition.
func CommitRewrite(ctx context.Context, t *table.Table, results []GroupResult, opts RewriteCommitOptions) (RewriteCommit, error) {
	if len(results) == 0 {
		return RewriteCommit{}, errkind.New(errkind.InvalidArgument, "commit rewrite: no group result")
	}
	start := results[0].StartingSnapshotID
	var removed []string
	var added []manifest.DataFile
	fresh := false
	for _, r := range results {
		if r.StartingSnapshotID != start {
			return RewriteCommit{}, errkind.Errorf(errkind.InvalidArgument,
				"commit rewrite: group %d read snapshot %d, group %d snapshot %d: one commit takes groups of one plan", results[0].GroupID, start, r.GroupID, r.StartingSnapshotID)
		}
		if len(r.Removed) == 0 {
			return RewriteCommit{}, errkind.Errorf(errkind.InvalidArgument, "commit rewrite: group %d removes no file", r.GroupID)
		}
		removed = append(removed, r.Removed...)
		added = append(added, r.Added...)
		fresh = fresh || r.SpecChange
	}
	// The delete files to drop are chosen on the newest version, so that
	// one another writer dropped meanwhile is not named (a conflict).
	if err := t.Refresh(ctx); err != nil {
		return RewriteCommit{}, fmt.Errorf("commit rewrite: %w", err)
	}
	if id, ok, err := table.SnapshotWithToken(t.Metadata, opts.Token); err != nil {
		return RewriteCommit{}, err
	} else if ok {
		return RewriteCommit{SnapshotID: id, TokenFound: true}, nil
	}
	deletes, err := deletesOnlyFor(ctx, t, opts.Branch, start, removed)
	if err != nil {
		return RewriteCommit{}, fmt.Errorf("commit rewrite: %w", err)
	}
	res, err := t.RewriteFiles(ctx, removed, deletes, added, table.RewriteOptions{
		CommitOptions:      table.CommitOptions{Token: opts.Token, Branch: opts.Branch},
		StartingSnapshotID: start,
		// Rows moved to another spec's partitions are out of reach of
		// the equality deletes of their old partitions: another writer's
		// committed after the start would not apply to them at the
		// starting sequence number. With the commit's own, such a delete
		// is a conflict instead (and older ones are applied already).
		FreshSequenceNumber: fresh,
	})
	if err != nil {
		return RewriteCommit{}, err
	}
	out := RewriteCommit{SnapshotID: res.SnapshotID, TokenFound: res.TokenFound}
	if !res.TokenFound {
		out.RemovedDeleteFiles = deletes
	}
	return out, nil
}

// deletesOnlyFor lists the delete files (not deletion vectors) that apply
// to some of the removed data files and to no other live data file of
// the branch, by the table's delete matching, among those committed by
// the starting snapshot: the rewrite applied those, while one committed
// later (an equality delete) still has rows of the new files to delete.
// Data files other writers add later never need them: their sequence
// numbers are higher.
func deletesOnlyFor(ctx context.Context, t *table.Table, branch string, start int64, removed []string) ([]string, error) {
	snap := t.Metadata.SnapshotByID(start)
	if snap == nil {
		return nil, nil // expired: which deletes it held is not known
	}
	gone := make(map[string]bool, len(removed))
	for _, p := range removed {
		gone[p] = true
	}
	plan, err := t.PlanFiles(ctx, table.SnapshotSelector{Ref: branch})
	if err != nil {
		return nil, err
	}
	candidate, needed := map[string]bool{}, map[string]bool{}
	for i := range plan.Tasks {
		dt := &plan.Tasks[i]
		removedFile := gone[dt.File.FilePath]
		for _, d := range dt.Deletes {
			switch {
			case d.IsDeletionVector():
			case !removedFile:
				needed[d.File.FilePath] = true
			case d.FileSequenceNumber <= snap.SequenceNumber:
				// Applied by the rewrite. A file sequence number the
				// manifest never recorded (-1) is of a commit long before.
				candidate[d.File.FilePath] = true
			}
		}
	}
	var out []string
	for p := range candidate {
		if !needed[p] {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out, nil
}
