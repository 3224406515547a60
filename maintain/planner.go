package maintain

import (
	"context"
	"fmt"
	"slices"

	"github.com/floedb/floe/iceberg/table"
)

// MaintainOptions steer the maintenance planner.
type MaintainOptions struct {
	// DryRun reports what the table needs and would be done, doing
	// nothing.
	DryRun bool
	// Health are the options of the health check (and SkipOrphans keeps
	// orphan removal out of the run); Health.Rewrite are the compaction's.
	Health HealthOptions
	// MinEqualityDeleteFiles: convert_equality_deletes runs when at least
	// this many live equality delete files apply to live data files; 0
	// means 1 (every read of those files joins on the deleted keys, a cost
	// that only grows), negative never.
	MinEqualityDeleteFiles int
	// MinPositionDeleteFiles: on format v2, rewrite_position_deletes runs
	// when at least this many position delete files can be merged (apply
	// in a partition holding two or more); 0 means 5, Java's min-input-
	// files for the same procedure (merging fewer saves a file open or two
	// and rewrites the merged positions again); negative never. On v3 any
	// position delete file applying to a live data file is turned into
	// deletion vectors (v3 writers write vectors only, one per data file)
	// unless the threshold is negative.
	MinPositionDeleteFiles int
}

// The delete thresholds' defaults (see MaintainOptions).
const (
	defaultMinEqualityDeleteFiles = 1
	defaultMinPositionDeleteFiles = 5
)

// threshold is n, or def for 0; ok is false for a negative n (never).
func threshold(n, def int) (int, bool) {
	if n == 0 {
		return def, true
	}
	return n, n > 0
}

// MaintainReport is what the planner found and did, as one JSON object.
type MaintainReport struct {
	DryRun bool   `json:"dry_run"`
	Health Health `json:"health"`
	// Actions are those the health called for, in the order run.
	Actions []MaintainAction `json:"actions"`
}

// MaintainAction is one action of a run: why it was chosen and, unless a
// dry run, its result or the error that stopped the run.
type MaintainAction struct {
	Action string `json:"action"`
	Reason string `json:"reason"`
	Result any    `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
}

// The actions, by the names of Java's and pyiceberg's procedures.
const (
	ActionRewriteDataFiles       = "rewrite_data_files"
	ActionConvertEqualityDeletes = "convert_equality_deletes"
	ActionRewritePositionDeletes = "rewrite_position_deletes"
	ActionRemoveDanglingDeletes  = "remove_dangling_deletes"
	ActionRewriteManifests       = "rewrite_manifests"
	ActionExpireSnapshots        = "expire_snapshots"
	ActionRemoveOrphanFiles      = "remove_orphan_files"
	ActionComputeStatistics      = "compute_statistics"
)

// step is one action the planner may take: whether the health calls for
// it (and why), and how to run it.
type step struct {
	name string
	// onlyAfter: the step is a second look, judged only in a run (not a
	// dry run) where that action ran.
	onlyAfter string
	need      func(h *Health, opts *MaintainOptions) (string, bool)
	run       func(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error)
}

func compactionNeed(h *Health, _ *MaintainOptions) (string, bool) {
	return fmt.Sprintf("%d data files in %d groups to compact (%d of %d files are small)", h.CompactionFiles, h.CompactionGroups, h.SmallDataFiles, h.DataFiles), h.CompactionGroups > 0
}

func compact(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error) {
	o := opts.Health.Rewrite
	o.PartialProgress = true
	return RewriteDataFiles(ctx, t, o)
}

// steps are in the order that keeps each safe and useful: compaction
// first (it applies and drops every delete of the files it rewrites);
// then the delete rewrites for the files it left, equality deletes
// turned into positions (and compaction looking again at the files those
// positions show to be mostly deleted) before position files are merged,
// so a v2 conversion's files merge in the same run; then the deletes
// nothing needs any more, the manifests regrouped over what is left, old
// snapshots expired (their files deleted), orphans removed once nothing
// names them, and statistics computed last on the final snapshot. Each
// need after the first is judged on the table as the earlier ones left
// it.
var steps = []step{
	{name: ActionRewriteDataFiles, need: compactionNeed, run: compact},
	{name: ActionConvertEqualityDeletes,
		need: func(h *Health, opts *MaintainOptions) (string, bool) {
			n, on := threshold(opts.MinEqualityDeleteFiles, defaultMinEqualityDeleteFiles)
			return fmt.Sprintf("%d equality delete files (%d rows) apply to %d data files, which every read joins on their keys", h.EqualityDeleteFilesApplied, h.EqualityDeleteRows, h.DataFilesWithEqualityDeletes),
				on && h.EqualityDeleteFilesApplied >= n
		},
		run: func(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error) {
			return ConvertEqualityDeletes(ctx, t, DeleteRewriteOptions{Branch: opts.Health.Rewrite.Branch})
		}},
	// Converted, equality deletes become positions whose share of a
	// file's rows compaction can judge (delete-ratio-threshold): a file
	// they delete much of is compacted now, not at the next run.
	{name: ActionRewriteDataFiles, onlyAfter: ActionConvertEqualityDeletes, need: compactionNeed, run: compact},
	{name: ActionRewritePositionDeletes,
		need: func(h *Health, opts *MaintainOptions) (string, bool) {
			if h.FormatVersion >= 3 {
				return fmt.Sprintf("%d position delete files of a v3 table apply to %d data files: turn them into deletion vectors", h.PositionDeleteFilesToRewrite, h.DataFilesWithPositionDeleteFiles),
					opts.MinPositionDeleteFiles >= 0 && h.PositionDeleteFilesToRewrite > 0
			}
			n, on := threshold(opts.MinPositionDeleteFiles, defaultMinPositionDeleteFiles)
			return fmt.Sprintf("%d position delete files (%d small) can be merged per partition; a data file opens up to %d", h.PositionDeleteFilesToRewrite, h.SmallPositionDeleteFiles, h.MaxPositionDeleteFilesPerDataFile),
				on && h.PositionDeleteFilesToRewrite >= n
		},
		run: func(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error) {
			return RewritePositionDeletes(ctx, t, DeleteRewriteOptions{Branch: opts.Health.Rewrite.Branch})
		}},
	{name: ActionRemoveDanglingDeletes,
		need: func(h *Health, _ *MaintainOptions) (string, bool) {
			return fmt.Sprintf("%d delete files apply to no live data file", h.DanglingDeleteFiles), h.DanglingDeleteFiles > 0
		},
		run: func(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error) {
			res, err := t.RemoveDanglingDeletes(ctx, table.CommitOptions{Branch: opts.Health.Rewrite.Branch})
			return map[string]any{"removed_delete_files": len(res.Removed), "snapshot_id": res.SnapshotID}, err
		}},
	{name: ActionRewriteManifests,
		need: func(h *Health, _ *MaintainOptions) (string, bool) {
			return fmt.Sprintf("%d of %d manifests are small and can be merged", h.MergeableManifests, h.Manifests), h.MergeableManifests > 0
		},
		run: func(ctx context.Context, t *table.Table, opts *MaintainOptions) (any, error) {
			res, err := t.RewriteManifests(ctx, table.RewriteManifestsOptions{CommitOptions: table.CommitOptions{Branch: opts.Health.Rewrite.Branch}})
			return map[string]any{"snapshot_id": res.SnapshotID}, err
		}},
	{name: ActionExpireSnapshots,
		need: func(h *Health, _ *MaintainOptions) (string, bool) {
			return fmt.Sprintf("%d snapshots and %d refs are past retention", h.ExpirableSnapshots, len(h.ExpirableRefs)), h.ExpirableSnapshots > 0 || len(h.ExpirableRefs) > 0
		},
		run: func(ctx context.Context, t *table.Table, _ *MaintainOptions) (any, error) {
			res, err := t.ExpireSnapshots(ctx, nil, nil, table.ExpireOptions{})
			return map[string]any{"expired_snapshots": len(res.ExpiredSnapshots), "removed_refs": res.RemovedRefs, "deleted_files": len(res.DeletedFiles)}, err
		}},
	{name: ActionRemoveOrphanFiles,
		need: func(h *Health, _ *MaintainOptions) (string, bool) {
			return fmt.Sprintf("%d files under the table's location are referenced by nothing and older than %s", h.OrphanFiles, table.DefaultOrphanAge), h.OrphanFiles > 0
		},
		run: func(ctx context.Context, t *table.Table, _ *MaintainOptions) (any, error) {
			res, err := t.RemoveOrphanFiles(ctx, table.OrphanOptions{})
			return map[string]any{"orphan_files": len(res.Orphans), "deleted": res.Deleted, "failed_deletes": res.FailedDeletes}, err
		}},
	{name: ActionComputeStatistics, need: statisticsNeed, run: computeStaleStatistics},
}

// Maintain checks the table's health and runs what it calls for, in a
// safe order (see steps), each action judged on the table the earlier
// ones left; with DryRun it only reports them, judged on the health
// found first. It stops at the first action that fails: the report says
// which, and the error is returned with it.
func Maintain(ctx context.Context, t *table.Table, opts MaintainOptions) (MaintainReport, error) {
	rep := MaintainReport{DryRun: opts.DryRun}
	h, err := CheckHealth(ctx, t, opts.Health)
	if err != nil {
		return rep, err
	}
	rep.Health = h
	cur := h
	for i, s := range steps {
		if s.name == ActionRemoveOrphanFiles && opts.Health.SkipOrphans {
			continue
		}
		if s.onlyAfter != "" && (opts.DryRun || !slices.ContainsFunc(rep.Actions, func(a MaintainAction) bool { return a.Action == s.onlyAfter })) {
			continue
		}
		if i > 0 && !opts.DryRun && len(rep.Actions) > 0 {
			// The earlier actions changed the table: judge this one on
			// what they left.
			if err := t.Refresh(ctx); err != nil {
				return rep, err
			}
			if cur, err = CheckHealth(ctx, t, opts.Health); err != nil {
				return rep, err
			}
			// The run's own expiry drops the statistics files of the
			// snapshots it expires: the table kept statistics all the same.
			cur.StatisticsFiles = max(cur.StatisticsFiles, rep.Health.StatisticsFiles)
		}
		reason, needed := s.need(&cur, &opts)
		if !needed {
			continue
		}
		a := MaintainAction{Action: s.name, Reason: reason}
		if !opts.DryRun {
			res, err := s.run(ctx, t, &opts)
			a.Result = res
			if err != nil {
				a.Error = err.Error()
				rep.Actions = append(rep.Actions, a)
				return rep, fmt.Errorf("maintain: %s: %w", s.name, err)
			}
		}
		rep.Actions = append(rep.Actions, a)
	}
	return rep, nil
}
