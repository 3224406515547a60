package maintain

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// RewritePlan is what a compaction will do: the groups of files it
// rewrites, all read at one starting snapshot. It is JSON, so a
// distributed engine can send its groups to workers.
type RewritePlan struct {
	// StartingSnapshotID is the snapshot the groups read; 0 for a table
	// with no snapshot (no groups).
	StartingSnapshotID int64 `json:"starting_snapshot_id"`
	// Options are the options planned with, defaults filled in.
	Options RewriteDataFilesOptions `json:"options"`
	Groups  []FileGroup             `json:"groups"`
}

// FileGroup is one group of a plan: data files of one partition (or of
// specs other than the table's default, together) that are read
// together and written again as files near the target size.
type FileGroup struct {
	ID                 int   `json:"id"`
	StartingSnapshotID int64 `json:"starting_snapshot_id"`
	// SpecID is the partition spec the files are written in (the output
	// spec). Repartition says the group's files span several partitions
	// or specs: its rows are written into as many partitions of SpecID as
	// they fall in; otherwise the group is one partition of SpecID and
	// stays one. SpecChange says some of its files are of another spec
	// than SpecID, so rows move to other partitions (see CommitRewrite).
	SpecID      int    `json:"spec_id"`
	Repartition bool   `json:"repartition,omitempty"`
	SpecChange  bool   `json:"spec_change,omitempty"`
	Partition   string `json:"partition"` // readable, for reports
	// DataFiles are the files rewritten, by path as the manifests write
	// them.
	DataFiles []string `json:"data_files"`
	// InputBytes and InputRows add up the files' sizes and record counts
	// (rows before deletes).
	InputBytes int64 `json:"input_bytes"`
	InputRows  int64 `json:"input_rows"`
	// DeleteFiles counts the delete files applying to the group's files.
	DeleteFiles         int   `json:"delete_files"`
	TargetFileSizeBytes int64 `json:"target_file_size_bytes"`
	// SortOrderID, when set, is the table's sort order the rows are
	// written in (the sort strategy).
	SortOrderID *int `json:"sort_order_id,omitempty"`
	// ZOrderColumns, when set, are the columns whose z-order the rows are
	// written in (the zorder strategy).
	ZOrderColumns []string `json:"zorder_columns,omitempty"`
	// Hilbert orders by the columns' Hilbert index instead (the hilbert
	// strategy).
	Hilbert bool `json:"hilbert,omitempty"`
	// Lineage says the rows' _row_id and _last_updated_sequence_number
	// are read and written with them (format version 3).
	Lineage bool `json:"lineage,omitempty"`
	// Tasks are the reader's serialised tasks of the files (scan.Task):
	// whole files, every delete that applies carried along.
	Tasks []json.RawMessage `json:"tasks"`
}

// lineageColumns are the v3 row lineage columns a rewrite carries.
var lineageColumns = []string{"_row_id", "_last_updated_sequence_number"}

// PlanRewrite chooses the files to compact and packs them into groups,
// as Java's bin-pack planner does, per partition of the table's default
// spec (files of any other spec count as one partition: their rows may
// fall in many of the default spec's, so they are packed together), and
// writes them in the output spec (output-spec-id, default the table's
// default spec):
//   - a file is a candidate when its size is outside
//     [min-file-size-bytes, max-file-size-bytes], it has at least
//     delete-file-threshold delete files, or its own position deletes
//     remove delete-ratio-threshold of its rows (every file with
//     rewrite-all);
//   - a partition's candidates, in path order, fill groups of at most
//     max-file-group-size-bytes, each started when the next file does not
//     fit;
//   - a group is kept when it has at least min-input-files files (and
//     two), holds more than the target size in several files, more than
//     max-file-size-bytes, or a file with too many deletes (all with
//     rewrite-all).
func PlanRewrite(ctx context.Context, t *table.Table, opts RewriteDataFilesOptions) (*RewritePlan, error) {
	opts, err := opts.resolved(t.Metadata)
	if err != nil {
		return nil, err
	}
	plan := &RewritePlan{Options: opts}
	head := branchHead(t, opts.Branch)
	if head == nil {
		return plan, nil
	}
	id := head.SnapshotID
	plan.StartingSnapshotID = id
	// Read the branch head as the branch, not by snapshot id: a read of a
	// snapshot by id sees the schema it was written with, while the files
	// are written in the current one (a column renamed since would not
	// bind).
	sel := table.SnapshotSelector{Ref: opts.Branch}
	files, err := t.PlanFilesFiltered(ctx, sel, opts.Filter, false)
	if err != nil {
		return nil, fmt.Errorf("rewrite data files: %w", err)
	}
	byPartition := map[string][]*table.DataFileTask{}
	var keys []string
	// Java's key for a file of another spec: the default spec's tuple of
	// nulls (a default-spec file whose partition values are all null
	// shares it, as in Java).
	current := t.Metadata.DefaultSpec()
	others := table.PartitionKey(current.ID, make([]any, len(current.Fields)))
	for i := range files.Tasks {
		dt := &files.Tasks[i]
		key := others
		if dt.File.SpecID == current.ID {
			key = table.PartitionKey(dt.File.SpecID, dt.File.Partition)
		}
		if _, ok := byPartition[key]; !ok {
			keys = append(keys, key)
		}
		byPartition[key] = append(byPartition[key], dt)
	}
	sort.Strings(keys)
	var chosen [][]*table.DataFileTask
	for _, key := range keys {
		chosen = append(chosen, chooseGroups(byPartition[key], &opts)...)
	}
	if len(chosen) == 0 {
		return plan, nil
	}
	lineage := t.Metadata.FormatVersion >= 3
	tasks, err := readTasks(ctx, t, opts, lineage)
	if err != nil {
		return nil, err
	}
	for _, files := range chosen {
		g := FileGroup{
			ID: len(plan.Groups), StartingSnapshotID: id, SpecID: *opts.OutputSpecID,
			TargetFileSizeBytes: opts.TargetFileSizeBytes, Lineage: lineage,
			SortOrderID: opts.SortOrderID, ZOrderColumns: opts.ZOrderColumns, Hilbert: opts.Strategy == StrategyHilbert,
		}
		describeGroup(t, &g, files)
		for _, dt := range files {
			g.DataFiles = append(g.DataFiles, dt.File.FilePath)
			g.InputBytes += dt.File.FileSizeInBytes
			g.InputRows += dt.File.RecordCount
			g.DeleteFiles += len(dt.Deletes)
			ts := tasks[dt.File.FilePath]
			if len(ts) == 0 {
				return nil, fmt.Errorf("rewrite data files: the reader planned no task for %s", dt.File.FilePath)
			}
			for _, task := range ts {
				whole := *task
				whole.Filter, whole.FilterFields = nil, nil
				raw, err := whole.MarshalBinary()
				if err != nil {
					return nil, fmt.Errorf("rewrite data files: task of %s: %w", dt.File.FilePath, err)
				}
				g.Tasks = append(g.Tasks, raw)
			}
		}
		plan.Groups = append(plan.Groups, g)
	}
	return plan, nil
}

// readTasks plans the reader's tasks of the branch head (every column of
// the current schema, the lineage columns on v3), by data file path as
// written.
func readTasks(ctx context.Context, t *table.Table, opts RewriteDataFilesOptions, lineage bool) (map[string][]*scan.Task, error) {
	schema := t.Metadata.CurrentSchema()
	if schema == nil {
		return nil, fmt.Errorf("rewrite data files: table %s has no current schema", t.Metadata.Location)
	}
	var cols []string
	if lineage {
		// Top-level columns by name pick the whole column, structs and all.
		for _, f := range schema.Fields {
			cols = append(cols, f.Name)
		}
		cols = append(cols, lineageColumns...)
	}
	sc, err := scan.New(ctx, t, scan.Options{Ref: opts.Branch, Columns: cols, Filter: opts.Filter})
	if err != nil {
		return nil, fmt.Errorf("rewrite data files: %w", err)
	}
	out := map[string][]*scan.Task{}
	for _, task := range sc.Tasks() {
		path := task.WrittenPath
		if path == "" {
			path = task.Path
		}
		out[path] = append(out[path], task)
	}
	return out, nil
}

// chooseGroups picks a partition's candidates and packs them.
func chooseGroups(files []*table.DataFileTask, o *RewriteDataFilesOptions) [][]*table.DataFileTask {
	var candidates []*table.DataFileTask
	for _, dt := range files {
		if o.RewriteAll || outsideSizeRange(dt, o) || tooManyDeletes(dt, o) || tooHighDeleteRatio(dt, o) {
			candidates = append(candidates, dt)
		}
	}
	slices.SortFunc(candidates, func(a, b *table.DataFileTask) int { return cmpString(a.File.FilePath, b.File.FilePath) })
	var groups [][]*table.DataFileTask
	var cur []*table.DataFileTask
	var curBytes int64
	for _, dt := range candidates {
		size := dt.File.FileSizeInBytes
		if len(cur) > 0 && curBytes+size > o.MaxFileGroupSizeBytes {
			groups = append(groups, cur)
			cur, curBytes = nil, 0
		}
		cur = append(cur, dt)
		curBytes += size
	}
	if len(cur) > 0 {
		groups = append(groups, cur)
	}
	kept := groups[:0]
	for _, g := range groups {
		if o.RewriteAll || worthRewriting(g, o) {
			kept = append(kept, g)
		}
	}
	return kept
}

func worthRewriting(g []*table.DataFileTask, o *RewriteDataFilesOptions) bool {
	var size int64
	for _, dt := range g {
		size += dt.File.FileSizeInBytes
	}
	enoughFiles := len(g) > 1 && len(g) >= o.MinInputFiles
	enoughContent := len(g) > 1 && size > o.TargetFileSizeBytes
	tooMuchContent := size > o.MaxFileSizeBytes
	if enoughFiles || enoughContent || tooMuchContent {
		return true
	}
	for _, dt := range g {
		if tooManyDeletes(dt, o) || tooHighDeleteRatio(dt, o) {
			return true
		}
	}
	return false
}

func outsideSizeRange(dt *table.DataFileTask, o *RewriteDataFilesOptions) bool {
	return dt.File.FileSizeInBytes < o.MinFileSizeBytes || dt.File.FileSizeInBytes > o.MaxFileSizeBytes
}

func tooManyDeletes(dt *table.DataFileTask, o *RewriteDataFilesOptions) bool {
	return o.DeleteFileThreshold > 0 && len(dt.Deletes) >= o.DeleteFileThreshold
}

// tooHighDeleteRatio counts the rows the file's own position deletes (or
// deletion vector) remove; deletes shared with other files or by
// equality say nothing certain about this file.
func tooHighDeleteRatio(dt *table.DataFileTask, o *RewriteDataFilesOptions) bool {
	if o.DeleteRatioThreshold < 0 || len(dt.Deletes) == 0 || dt.File.RecordCount <= 0 {
		return false
	}
	var deleted int64
	for _, d := range dt.Deletes {
		if d.File.Content == manifest.ContentPositionDeletes && d.ReferencedDataFile() != "" {
			deleted += d.File.RecordCount
		}
	}
	return float64(min(deleted, dt.File.RecordCount))/float64(dt.File.RecordCount) >= o.DeleteRatioThreshold
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// describeGroup sets whether a group's files span several partitions or
// specs and whether any is of another spec than the output spec, and
// names the group for reports: its partition, or the specs its files
// come from and the one they go to.
func describeGroup(t *table.Table, g *FileGroup, files []*table.DataFileTask) {
	var specs []int
	partitions := map[string]bool{}
	for _, dt := range files {
		if !slices.Contains(specs, dt.File.SpecID) {
			specs = append(specs, dt.File.SpecID)
		}
		partitions[table.PartitionKey(dt.File.SpecID, dt.File.Partition)] = true
	}
	slices.Sort(specs)
	g.SpecChange = len(specs) > 1 || specs[0] != g.SpecID
	g.Repartition = g.SpecChange || len(partitions) > 1
	switch {
	case !g.Repartition:
		g.Partition = describePartition(t, &files[0].File)
	case len(partitions) == 1:
		g.Partition = fmt.Sprintf("%s, rewritten into spec %d", describePartition(t, &files[0].File), g.SpecID)
	default:
		g.Partition = fmt.Sprintf("%d partitions of specs %v, rewritten into spec %d", len(partitions), specs, g.SpecID)
	}
}

// describePartition names a file's partition as its path would, for
// reports.
func describePartition(t *table.Table, df *manifest.DataFile) string {
	spec := t.Metadata.SpecByID(df.SpecID)
	if spec == nil || spec.IsUnpartitioned() {
		return fmt.Sprintf("spec %d, unpartitioned", df.SpecID)
	}
	pt, err := t.PartitionType(spec)
	if err != nil {
		return fmt.Sprintf("spec %d %v", df.SpecID, df.Partition)
	}
	return fmt.Sprintf("spec %d %s", df.SpecID, spec.PartitionPath(pt, df.Partition))
}

// branchHead is the snapshot a branch ("" is main) points at; nil when
// the table or branch has none.
func branchHead(t *table.Table, branch string) *metadata.Snapshot {
	md := t.Metadata
	if branch == "" {
		return md.CurrentSnapshot()
	}
	if r, ok := md.Refs[branch]; ok {
		return md.SnapshotByID(r.SnapshotID)
	}
	return nil
}
