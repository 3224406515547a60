package ops

import (
	"fmt"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
	"github.com/google/uuid"
)

// fileOutcome is what a change does to one partly selected data file.
type fileOutcome struct {
	// remove drops the file: rewritten into added, or left with no row.
	remove bool
	added  []manifest.DataFile
	// positions are the rows to delete by delete file (merge-on-read);
	// for a deletion vector they include the rows deleted before unless
	// previous (the file's live vector) holds them.
	positions *roaring64.Bitmap
	previous  *manifest.DataFile
	// deleted counts the rows the filter selected among those live.
	deleted int64
}

// run reads the plan's partly selected files and returns the changes:
// removed and rewritten files, and the delete files written.
func (c *rowChange) run() (table.RowChanges, error) {
	var changes table.RowChanges
	partial := c.plan.Partial
	if len(partial) == 0 {
		return changes, nil
	}
	tasks, err := c.filteredTasks()
	if err != nil {
		return changes, err
	}
	outcomes := make([]fileOutcome, len(partial))
	errs := make([]error, len(partial))
	var wg sync.WaitGroup
	sem := make(chan struct{}, min(c.threads, len(partial)))
	for i := range partial {
		if err := c.ctx.Err(); err != nil {
			errs[i] = err
			break
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer func() { <-sem; wg.Done() }()
			dt := &partial[i]
			fileTasks := tasks[dt.File.FilePath]
			if len(fileTasks) == 0 {
				// The scan's planning ruled the file out: no row matches.
				return
			}
			outcomes[i], errs[i] = c.processFile(dt, fileTasks)
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", dt.File.FilePath, errs[i])
			}
		}(i)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return changes, err
		}
	}
	return c.collect(partial, outcomes)
}

// collect turns the outcomes of partial's files (aligned) into the
// changes, writing the delete files they call for.
func (c *rowChange) collect(partial []table.DataFileTask, outcomes []fileOutcome) (table.RowChanges, error) {
	var changes table.RowChanges
	var vectors []writer.DeletionVector
	var fileDeletes []pendingDeletes
	for i := range outcomes {
		o := &outcomes[i]
		dt := &partial[i]
		c.deleted += o.deleted
		switch {
		case o.remove:
			changes.RemovedDataFiles = append(changes.RemovedDataFiles, dt.File.FilePath)
			changes.DataFiles = append(changes.DataFiles, o.added...)
		case o.positions == nil:
		case c.md.FormatVersion >= 3:
			vectors = append(vectors, writer.DeletionVector{DataFile: dt.File, Positions: o.positions, Previous: o.previous})
		default:
			fileDeletes = append(fileDeletes, pendingDeletes{file: &dt.File, positions: o.positions})
		}
	}
	if len(vectors) > 0 {
		path := fileio.JoinPath(c.dataLoc, "00000-0-"+uuid.NewString()+"-deletes.puffin")
		c.w.add(path)
		dvs, err := writer.WriteDeletionVectors(c.ctx, c.tbl.IO, path, vectors)
		if err != nil {
			return changes, err
		}
		changes.DeleteFiles = append(changes.DeleteFiles, dvs...)
	}
	if len(fileDeletes) > 0 {
		written, err := c.writePositionDeletes(fileDeletes)
		if err != nil {
			return changes, err
		}
		changes.DeleteFiles = append(changes.DeleteFiles, written...)
	}
	return changes, nil
}

// pendingDeletes are a v2 data file's positions to delete, waiting to be
// written with those of other files (write.delete.granularity partition).
type pendingDeletes struct {
	file      *manifest.DataFile
	positions *roaring64.Bitmap
}

// filteredTasks plans a reader scan of the plan's snapshot with the
// filter, reading only _pos, and returns its tasks by data file path as
// written: one per file, or several when the scan splits a large file
// into byte ranges. The scan is planned once per change.
func (c *rowChange) filteredTasks() (map[string][]*scan.Task, error) {
	if c.tasks != nil {
		return c.tasks, nil
	}
	id := c.plan.SnapshotID()
	sc, err := scan.New(c.ctx, c.tbl, scan.Options{Columns: []string{"_pos"}, SnapshotID: &id, Filter: c.plan.Filter})
	if err != nil {
		return nil, err
	}
	tasks := map[string][]*scan.Task{}
	for _, t := range sc.Tasks() {
		tasks[t.WrittenPath] = append(tasks[t.WrittenPath], t)
	}
	c.tasks = tasks
	return tasks, nil
}

// countWhole adds to c.deleted the live rows of the files the filter
// selects whole: a file's record count less what deletes already took. A
// deletion vector's count is its cardinality; other deletes (position
// files, perhaps shared by other files or naming a row twice, and equality
// deletes) are applied by reading the file's positions.
func (c *rowChange) countWhole() error {
	for i := range c.plan.Whole {
		dt := &c.plan.Whole[i]
		live := max(dt.File.RecordCount, 0)
		switch {
		case len(dt.Deletes) == 0:
		case len(dt.Deletes) == 1 && dt.Deletes[0].IsDeletionVector():
			live -= min(max(dt.Deletes[0].File.RecordCount, 0), live)
		default:
			tasks, err := c.filteredTasks()
			if err != nil {
				return err
			}
			alive, err := c.livePositions(tasks[dt.File.FilePath])
			if err != nil {
				return fmt.Errorf("%s: %w", dt.File.FilePath, err)
			}
			live = int64(alive.GetCardinality())
		}
		c.deleted += live
	}
	return nil
}

// processFile finds the rows of one partly selected file that the filter
// selects and decides what becomes of it.
func (c *rowChange) processFile(dt *table.DataFileTask, tasks []*scan.Task) (fileOutcome, error) {
	matched, err := c.scanPositions(tasks)
	if err != nil {
		return fileOutcome{}, err
	}
	if matched.IsEmpty() {
		return fileOutcome{}, nil
	}
	out, err := c.fileOutcome(dt, tasks, matched)
	// The scan returned live rows only: those are the rows deleted, however
	// the outcome records them.
	out.deleted = int64(matched.GetCardinality())
	return out, err
}

// fileOutcome decides what becomes of a file of which the filter selects
// the rows at the positions matched.
func (c *rowChange) fileOutcome(dt *table.DataFileTask, tasks []*scan.Task, matched *roaring64.Bitmap) (fileOutcome, error) {
	records := uint64(max(dt.File.RecordCount, 0))
	if c.mode == CopyOnWrite {
		if matched.GetCardinality() >= records && len(dt.Deletes) == 0 {
			return fileOutcome{remove: true}, nil
		}
		added, err := c.rewrite(dt, tasks, matched)
		if err != nil {
			return fileOutcome{}, err
		}
		return fileOutcome{remove: true, added: added}, nil
	}
	if c.md.FormatVersion < 3 {
		if matched.GetCardinality() >= records && len(dt.Deletes) == 0 {
			return fileOutcome{remove: true}, nil
		}
		return fileOutcome{positions: matched}, nil
	}
	return c.vectorOutcome(dt, tasks, matched)
}

// vectorOutcome is the deletion vector a v3 file gets. The scan skipped
// rows deleted before, so the vector must carry them too: from the live
// vector, or, in a table upgraded from v2 whose file has only position
// delete files, from the positions a scan no longer returns.
func (c *rowChange) vectorOutcome(dt *table.DataFileTask, tasks []*scan.Task, matched *roaring64.Bitmap) (fileOutcome, error) {
	records := uint64(max(dt.File.RecordCount, 0))
	var previous *manifest.DataFile
	var positionFiles bool
	for _, d := range dt.Deletes {
		switch {
		case d.IsDeletionVector():
			previous = &d.File
		case d.File.Content == manifest.ContentPositionDeletes:
			positionFiles = true
		}
	}
	out := fileOutcome{positions: matched}
	switch {
	case previous != nil:
		out.previous = previous
	case positionFiles:
		alive, err := c.livePositions(tasks)
		if err != nil {
			return fileOutcome{}, err
		}
		gone := roaring64.New()
		gone.AddRange(0, records)
		gone.AndNot(alive)
		gone.Or(matched)
		out.positions = gone
	}
	// A vector's record count is its cardinality, and matched holds none
	// of its positions.
	if out.positions.GetCardinality()+uint64(previousCount(out.previous)) >= records {
		return fileOutcome{remove: true}, nil
	}
	return out, nil
}

func previousCount(dv *manifest.DataFile) int64 {
	if dv == nil {
		return 0
	}
	return max(dv.RecordCount, 0)
}

// writePositionDeletes writes the position delete files of a v2 change:
// one per data file, or one per partition under write.delete.granularity
// partition, each in its data files' partition directory.
func (c *rowChange) writePositionDeletes(files []pendingDeletes) ([]manifest.DataFile, error) {
	type group struct {
		spec      int
		partition []any
		deletes   []writer.FilePositions
	}
	var groups []*group
	byKey := map[string]*group{}
	for _, f := range files {
		key := f.file.FilePath
		if c.perPartition {
			key = table.PartitionKey(f.file.SpecID, f.file.Partition)
		}
		g := byKey[key]
		if g == nil {
			g = &group{spec: f.file.SpecID, partition: f.file.Partition}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.deletes = append(g.deletes, writer.FilePositions{FilePath: f.file.FilePath, Positions: f.positions})
	}
	// Files are written c.threads at a time: each is small, and a change
	// touching many data files writes many.
	out := make([]manifest.DataFile, len(groups))
	errs := make([]error, len(groups))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, c.threads))
	for i, g := range groups {
		dir, err := c.partitionDir(g.spec, g.partition)
		if err != nil {
			errs[i] = err
			break
		}
		path := fileio.JoinPath(c.dataLoc, dir, "00000-0-"+uuid.NewString()+"-deletes.parquet")
		c.w.add(path)
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			out[i], errs[i] = writer.WritePositionDeletes(c.ctx, c.tbl.IO, path, g.spec, slices.Clone(g.partition), g.deletes, c.wopts)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// partitionDir is a partition's directory under the data location, as
// Java names it; "" for an unpartitioned spec.
func (c *rowChange) partitionDir(specID int, partition []any) (string, error) {
	spec := c.md.SpecByID(specID)
	if spec == nil {
		return "", fmt.Errorf("partition spec %d is not in the table", specID)
	}
	if spec.IsUnpartitioned() {
		return "", nil
	}
	pt, err := c.tbl.PartitionType(spec)
	if err != nil {
		return "", err
	}
	return spec.PartitionPath(pt, partition), nil
}
