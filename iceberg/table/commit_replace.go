package table

import (
	"context"
	"fmt"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// ReplacePartitions commits data files so that the partitions they land in
// lose the files earlier writers left there (dynamic partition
// overwrite). A partition is a partition spec and a
// tuple: files written under another spec are left alone, and an
// unpartitioned table is one partition. Delete files of a replaced
// partition go with its data files. The summary says
// replace-partitions=true and counts the files and rows replaced
// (deleted-data-files, deleted-records).
//
// With opts.RunID, a pipeline run may write one partition in several
// commits (steps, retries): only the run's first commit to a partition
// replaces what other runs left there; its later commits to that partition
// append, and files committed by the run itself are never removed. What to
// remove is planned again against the version each retry builds on.
//
// Concurrency: if another writer added or removed a file in one of the
// partitions after the snapshot the commit was planned on (t's current
// version), or, with a run id, after the run's first commit to the table,
// two writers are replacing it at once: the commit fails with ErrConflict,
// committing nothing, so only one keeps its rows.
func (t *Table) ReplacePartitions(ctx context.Context, added []manifest.DataFile, opts CommitOptions) (CommitResult, error) {
	u, err := t.replacePartitionsUpdate(added, opts)
	if err != nil {
		return CommitResult{}, err
	}
	return t.commitSnapshot(ctx, u)
}

// replacePartitionsUpdate validates a ReplacePartitions and describes its snapshot.
func (t *Table) replacePartitionsUpdate(added []manifest.DataFile, opts CommitOptions) (*snapshotUpdate, error) {
	for i := range added {
		if added[i].Content != manifest.ContentData {
			return nil, fmt.Errorf("replace partitions: %s is a %s file; only data files replace partitions", added[i].FilePath, added[i].Content)
		}
	}
	planned, err := t.plannedOn(opts)
	if err != nil {
		return nil, fmt.Errorf("replace partitions: %w", err)
	}
	targets := map[string]*manifest.DataFile{}
	specs := map[int]bool{}
	for i := range added {
		targets[PartitionKey(added[i].SpecID, added[i].Partition)] = &added[i]
		specs[added[i].SpecID] = true
	}
	u := &snapshotUpdate{what: "replace partitions", opts: opts, added: added, operation: func(*removal) string { return OpOverwrite }}
	u.plan = func(ctx context.Context, b *commitBase) (*removal, error) {
		run, err := runHistory(ctx, b, opts.RunID)
		if err != nil {
			return nil, err
		}
		var changes []snapshotChange
		if run.first != nil {
			changes = run.changes
		} else if changes, err = b.changesSince(ctx, planned); err != nil {
			return nil, err
		}
		for _, c := range changes {
			if run.snapshots[c.snap.SnapshotID] {
				continue
			}
			for _, group := range [][]manifest.Entry{c.added, c.deleted} {
				for i := range group {
					df := &group[i].DataFile
					if target := targets[PartitionKey(df.SpecID, df.Partition)]; target != nil {
						since := "the snapshot the commit was planned on, " + idString(planned)
						if run.first != nil {
							since = fmt.Sprintf("run %q first committed (snapshot %d)", opts.RunID, run.first.SnapshotID)
						}
						return nil, fmt.Errorf("snapshot %d changed %s (file %s) after %s: two writers are replacing it at once: %w",
							c.snap.SnapshotID, describePartition(b.t, df), df.FilePath, since, ErrConflict)
					}
				}
			}
		}
		rm := newRemoval()
		rm.summary["replace-partitions"] = "true"
		err = b.liveFiles(ctx, func(mf *manifest.ManifestFile) bool { return specs[mf.PartitionSpecID] }, func(lf liveFile) error {
			df := &lf.entry.DataFile
			key := PartitionKey(df.SpecID, df.Partition)
			if targets[key] == nil || run.partitions[key] || run.snapshots[lf.entry.SnapshotID] {
				return nil
			}
			rm.add(df)
			return nil
		})
		return rm, err
	}
	return u, nil
}

// runCommits is what a pipeline run has committed to the branch so far.
type runCommits struct {
	// snapshots are the run's snapshots among the branch's ancestors.
	snapshots map[int64]bool
	// first is the run's oldest snapshot; nil before its first commit.
	first *metadata.Snapshot
	// changes are what the snapshots from first on did, newest first.
	changes []snapshotChange
	// partitions are those the run has added files to.
	partitions map[string]bool
}

func runHistory(ctx context.Context, b *commitBase, runID string) (*runCommits, error) {
	r := &runCommits{snapshots: map[int64]bool{}, partitions: map[string]bool{}}
	if runID == "" || b.head == nil {
		return r, nil
	}
	ancestors := b.t.Metadata.Ancestors(b.head)
	firstIdx := -1
	for i, s := range ancestors {
		if s.Summary[SummaryRunID] == runID {
			r.snapshots[s.SnapshotID] = true
			firstIdx = i
		}
	}
	if firstIdx < 0 {
		return r, nil
	}
	r.first = ancestors[firstIdx]
	var err error
	if r.changes, err = b.changesOf(ctx, ancestors[:firstIdx+1]); err != nil {
		return nil, err
	}
	for _, c := range r.changes {
		if !r.snapshots[c.snap.SnapshotID] {
			continue
		}
		for i := range c.added {
			df := &c.added[i].DataFile
			if df.Content == manifest.ContentData {
				r.partitions[PartitionKey(df.SpecID, df.Partition)] = true
			}
		}
	}
	return r, nil
}
