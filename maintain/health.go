package maintain

import (
	"context"
	"sort"
	"time"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Health is what a table needs, read from its metadata (and, unless
// skipped, a listing of its location): the facts the maintenance planner
// decides on, each the same rule the action it leads to applies.
type Health struct {
	SnapshotID    int64 `json:"snapshot_id"`
	FormatVersion int   `json:"format_version"`
	// Data files of the current snapshot; small ones are below the
	// compaction's min-file-size-bytes.
	DataFiles      int   `json:"data_files"`
	DataBytes      int64 `json:"data_bytes"`
	SmallDataFiles int   `json:"small_data_files"`
	// Partitions counts the partitions holding data; WorstPartitions are
	// the ten with most small files.
	Partitions      int               `json:"partitions"`
	WorstPartitions []PartitionHealth `json:"worst_partitions,omitempty"`
	// Delete files live at the current snapshot, by kind, and how many
	// delete files a data file has to apply on average.
	PositionDeleteFiles    int     `json:"position_delete_files"`
	DeletionVectors        int     `json:"deletion_vectors"`
	EqualityDeleteFiles    int     `json:"equality_delete_files"`
	DeleteFilesPerDataFile float64 `json:"delete_files_per_data_file"`
	// What the delete rewrites fix. EqualityDeleteFilesApplied are the
	// equality delete files that apply to a live data file (each read of
	// DataFilesWithEqualityDeletes joins on their EqualityDeleteRows
	// keys); convert_equality_deletes turns them into positions.
	EqualityDeleteFilesApplied   int   `json:"equality_delete_files_applied"`
	EqualityDeleteRows           int64 `json:"equality_delete_rows"`
	DataFilesWithEqualityDeletes int   `json:"data_files_with_equality_deletes"`
	// Position delete files (not deletion vectors): the data files that
	// open at least one, the most one data file opens, those below three
	// quarters of the delete target size (write.delete.target-file-size-
	// bytes, as Java's min-file-size ratio), and those
	// rewrite_position_deletes would replace: on v2 the ones applying in a
	// partition that holds two or more, on v3 every one applying to a
	// live data file (v3 keeps one deletion vector per data file).
	DataFilesWithPositionDeleteFiles  int `json:"data_files_with_position_delete_files"`
	MaxPositionDeleteFilesPerDataFile int `json:"max_position_delete_files_per_data_file"`
	SmallPositionDeleteFiles          int `json:"small_position_delete_files"`
	PositionDeleteFilesToRewrite      int `json:"position_delete_files_to_rewrite"`
	// DanglingDeleteFiles apply to no live data file
	// (table.DanglingDeletes).
	DanglingDeleteFiles int `json:"dangling_delete_files"`
	// CompactionGroups and CompactionFiles are what PlanRewrite would
	// rewrite with the table's settings.
	CompactionGroups int `json:"compaction_groups"`
	CompactionFiles  int `json:"compaction_files"`
	// Manifests of the current snapshot, those under a quarter of
	// commit.manifest.target-size-bytes, and the small ones that share
	// their content and spec with another small one (what a manifest
	// rewrite can merge).
	Manifests          int `json:"manifests"`
	SmallManifests     int `json:"small_manifests"`
	MergeableManifests int `json:"mergeable_manifests"`
	// Snapshots, and those past retention (table.ExpirableSnapshots), and
	// refs past their age.
	Snapshots             int      `json:"snapshots"`
	ExpirableSnapshots    int      `json:"expirable_snapshots"`
	ExpirableRefs         []string `json:"expirable_refs,omitempty"`
	OrphanFiles           int      `json:"orphan_files"`
	OrphansListed         bool     `json:"orphans_listed"`
	StatisticsFiles       int      `json:"statistics_files"`
	StatisticsCurrent     bool     `json:"statistics_current"`
	StatisticsOnCommitSet bool     `json:"statistics_on_commit"`
	// Partitioned: some spec has a partition field, so the table can
	// have partition statistics; their files, and whether the current
	// snapshot has one.
	Partitioned                bool `json:"partitioned"`
	PartitionStatisticsFiles   int  `json:"partition_statistics_files"`
	PartitionStatisticsCurrent bool `json:"partition_statistics_current"`
	// StaleStatistics are the statistics the current snapshot lacks
	// although the table keeps statistics (StaleNDV,
	// StalePartitionStatistics): what the planner computes.
	StaleStatistics []string `json:"stale_statistics,omitempty"`
}

// PartitionHealth is one partition's files.
type PartitionHealth struct {
	Partition  string `json:"partition"`
	DataFiles  int    `json:"data_files"`
	SmallFiles int    `json:"small_files"`
}

// HealthOptions choose what the check reads.
type HealthOptions struct {
	// SkipOrphans leaves out listing the table's location (which can be
	// long on object stores); OrphansListed is then false.
	SkipOrphans bool
	// Rewrite are the compaction settings judged by (zero: the table's).
	Rewrite RewriteDataFilesOptions
	// Now is the time retention and orphan ages are judged at; zero is
	// the clock.
	Now time.Time
}

// manifestSmallFraction: a manifest under this fraction of the target
// size counts as small (Java sets no rule; a quarter leaves room for the
// last manifest of each group a rewrite writes).
const manifestSmallFraction = 4

// CheckHealth reads the table's health at its current snapshot. It
// changes nothing: the orphan search is a dry run.
func CheckHealth(ctx context.Context, t *table.Table, opts HealthOptions) (Health, error) {
	var h Health
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	md := t.Metadata
	h.FormatVersion = md.FormatVersion
	h.Snapshots = len(md.Snapshots)
	statisticsHealth(&h, md)
	expirable, refs, err := t.ExpirableSnapshots(now.UnixMilli())
	if err != nil {
		return h, err
	}
	h.ExpirableSnapshots, h.ExpirableRefs = len(expirable), refs
	if !opts.SkipOrphans {
		res, err := t.RemoveOrphanFiles(ctx, table.OrphanOptions{DryRun: true})
		if err != nil {
			return h, err
		}
		h.OrphanFiles, h.OrphansListed = len(res.Orphans), true
	}
	snap := md.CurrentSnapshot()
	if snap == nil {
		return h, nil
	}
	h.SnapshotID = snap.SnapshotID
	rw, err := opts.Rewrite.resolved(md)
	if err != nil {
		return h, err
	}
	parts := map[string]*PartitionHealth{}
	var applied int
	dv := newDeleteHealth(md.FormatVersion >= 3)
	plan, err := t.StreamFiles(ctx, table.SnapshotSelector{}, nil, false, func(dt table.DataFileTask) error {
		h.DataFiles++
		h.DataBytes += dt.File.FileSizeInBytes
		applied += len(dt.Deletes)
		dv.add(&dt)
		key := describePartition(t, &dt.File)
		p := parts[key]
		if p == nil {
			p = &PartitionHealth{Partition: key}
			parts[key] = p
		}
		p.DataFiles++
		if dt.File.FileSizeInBytes < rw.MinFileSizeBytes {
			h.SmallDataFiles++
			p.SmallFiles++
		}
		return nil
	})
	if err != nil {
		return h, err
	}
	for _, d := range plan.DeleteFiles {
		switch {
		case d.IsDeletionVector():
			h.DeletionVectors++
		case d.File.Content == manifest.ContentEqualityDeletes:
			h.EqualityDeleteFiles++
		default:
			h.PositionDeleteFiles++
		}
	}
	dv.finish(&h, plan, deleteTargetSize(t, DeleteRewriteOptions{}))
	if h.DataFiles > 0 {
		h.DeleteFilesPerDataFile = float64(applied) / float64(h.DataFiles)
	}
	h.Partitions = len(parts)
	worst := make([]PartitionHealth, 0, len(parts))
	for _, p := range parts {
		if p.SmallFiles > 0 {
			worst = append(worst, *p)
		}
	}
	sort.Slice(worst, func(i, j int) bool {
		if worst[i].SmallFiles != worst[j].SmallFiles {
			return worst[i].SmallFiles > worst[j].SmallFiles
		}
		return worst[i].Partition < worst[j].Partition
	})
	h.WorstPartitions = worst[:min(len(worst), 10)]
	dangling, err := t.DanglingDeletes(ctx, opts.Rewrite.Branch)
	if err != nil {
		return h, err
	}
	h.DanglingDeleteFiles = len(dangling)
	rp, err := PlanRewrite(ctx, t, opts.Rewrite)
	if err != nil {
		return h, err
	}
	h.CompactionGroups = len(rp.Groups)
	for _, g := range rp.Groups {
		h.CompactionFiles += len(g.DataFiles)
	}
	manifests, err := t.ManifestList(ctx, snap)
	if err != nil {
		return h, err
	}
	target, err := md.PropertyInt(table.PropManifestTargetSizeBytes, table.DefaultManifestTargetSizeBytes)
	if err != nil {
		return h, err
	}
	h.Manifests = len(manifests)
	small := map[[2]int]int{}
	for _, mf := range manifests {
		if mf.Length < target/manifestSmallFraction {
			h.SmallManifests++
			small[[2]int{int(mf.Content), mf.PartitionSpecID}]++
		}
	}
	for _, n := range small {
		if n > 1 {
			h.MergeableManifests += n
		}
	}
	return h, nil
}
