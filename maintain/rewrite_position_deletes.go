package maintain

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"sync"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
	"github.com/google/uuid"
)

// DeleteRewriteOptions are the options of RewritePositionDeletes and
// ConvertEqualityDeletes.
type DeleteRewriteOptions struct {
	// Branch is the branch rewritten; "" for main.
	Branch string
	// Token, Properties: as for every commit (table.CommitOptions).
	Token      string
	Properties map[string]string
	// TargetFileSizeBytes is the size a merged position delete file (v2)
	// aims at; 0 means the table's write.delete.target-file-size-bytes,
	// else 64 MiB (Java's default). A partition's positions are cut into
	// as many files as its merged files' bytes need, in data file order.
	TargetFileSizeBytes int64
}

// deleteTargetSize is opts' target, else the table's property, else Java's
// default.
func deleteTargetSize(t *table.Table, opts DeleteRewriteOptions) int64 {
	if opts.TargetFileSizeBytes > 0 {
		return opts.TargetFileSizeBytes
	}
	if v, err := strconv.ParseInt(t.Metadata.Properties["write.delete.target-file-size-bytes"], 10, 64); err == nil && v > 0 {
		return v
	}
	return 64 << 20
}

// DeleteRewriteResult says what a delete rewrite did.
type DeleteRewriteResult struct {
	// SnapshotID is the replace snapshot committed; 0 when there was
	// nothing to rewrite or the token had been committed (TokenFound).
	SnapshotID int64 `json:"snapshot_id"`
	TokenFound bool  `json:"token_found"`
	// RemovedDeleteFiles are the delete files removed (a deletion vector's
	// name with #content_offset), AddedDeleteFiles the ones written.
	RemovedDeleteFiles []string `json:"removed_delete_files"`
	AddedDeleteFiles   []string `json:"added_delete_files"`
	// DataFiles counts the data files whose deletes were rewritten.
	DataFiles int `json:"data_files"`
}

// RewritePositionDeletes merges the position delete files (not deletion
// vectors) that apply to live data files (Java's rewrite_position_deletes):
// on format v2, per partition holding at least two of them, into one
// position delete file holding only the positions of live data files they
// apply to; on v3 into one deletion vector per data file, merged with the
// one it has. One replace snapshot removes the old files; each new file
// takes the largest data sequence number of the files it merges, so it
// applies to the same data files as they did and to none added since.
func RewritePositionDeletes(ctx context.Context, t *table.Table, opts DeleteRewriteOptions) (DeleteRewriteResult, error) {
	dvs := t.Metadata.FormatVersion >= 3
	source := isPositionFile
	// What the reader applies of a file's positions: its position files,
	// and on v3 its vector too, which the new vector replaces.
	read := func(d *scan.TaskDelete) bool {
		return !d.IsEqualityDelete() && (dvs || d.ContentOffset == nil)
	}
	return rewriteDeletes(ctx, t, opts, deleteRewrite{what: "rewrite position deletes", source: source, read: read, minPerPartition: !dvs})
}

// rewrittenFile is one live data file whose deletes a rewrite replaces.
type rewrittenFile struct {
	task      *table.DataFileTask
	positions *roaring64.Bitmap
	seq       int64              // the largest data sequence number of the deletes read
	replaced  *manifest.DataFile // its deletion vector, replaced by the new one (v3)
}

// deleteRewrite is what sets the two actions apart.
type deleteRewrite struct {
	what string
	// source picks the delete files replaced; read the deletes whose
	// positions the new files hold (a task's, as the reader applies them).
	source func(*table.DeleteFile) bool
	read   func(*scan.TaskDelete) bool
	// minPerPartition leaves alone a partition with a single source file
	// (merging position files on v2).
	minPerPartition bool
	// dropUnused also removes the live source files that apply to no live
	// data file (equality deletes: none must be left for reads to join).
	dropUnused bool
}

// rewriteDeletes is both actions: the files whose deletes include a source
// delete file are read with the read deletes applied; their positions are
// written as position files per partition (v2) or vectors (v3); the
// source files found are removed.
func rewriteDeletes(ctx context.Context, t *table.Table, opts DeleteRewriteOptions, rw deleteRewrite) (DeleteRewriteResult, error) {
	what, source, read, minPerPartition := rw.what, rw.source, rw.read, rw.minPerPartition
	res := DeleteRewriteResult{RemovedDeleteFiles: []string{}, AddedDeleteFiles: []string{}}
	if t.Metadata.FormatVersion < 2 {
		return res, errkind.Errorf(errkind.Unsupported, "%s: table %s is format v%d, which has no delete files", what, t.Metadata.Location, t.Metadata.FormatVersion)
	}
	ds, err := planDeleteScan(ctx, t, opts.Branch)
	if err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	if ds.plan.Snapshot == nil {
		return res, nil
	}
	dvs := t.Metadata.FormatVersion >= 3
	target := deleteTargetSize(t, opts)

	// The data files touched and the source files, per partition; then
	// partitions sharing a source file (a delete file of an older spec may
	// apply across the newer spec's partitions) joined into one group, so
	// a source file is removed only with every data file it applies to
	// rewritten.
	type partition struct {
		files   []*rewrittenFile
		sources map[string]*table.DeleteFile
	}
	parts := map[string]*partition{}
	var order []string
	parent := map[string]string{}
	var find func(string) string
	find = func(k string) string {
		if parent[k] == k {
			return k
		}
		parent[k] = find(parent[k])
		return parent[k]
	}
	owner := map[string]string{} // source file -> a partition it applies in
	for i := range ds.plan.Tasks {
		dt := &ds.plan.Tasks[i]
		var mine []*table.DeleteFile
		for _, d := range dt.Deletes {
			if source(d) {
				mine = append(mine, d)
			}
		}
		if len(mine) == 0 {
			continue
		}
		// Keyed as the planner keys partitions: fmt.Sprint of the tuple
		// printed ("a b", "c") and ("a", "b c") alike, and their files were
		// merged into one file of the first partition, which a position
		// delete leaves the other's rows alone in.
		k := table.PartitionKey(dt.File.SpecID, dt.File.Partition)
		p := parts[k]
		if p == nil {
			p = &partition{sources: map[string]*table.DeleteFile{}}
			parts[k] = p
			parent[k] = k
			order = append(order, k)
		}
		p.files = append(p.files, &rewrittenFile{task: dt})
		for _, d := range mine {
			key := writtenKey(&d.File)
			p.sources[key] = d
			if o, ok := owner[key]; ok {
				parent[find(o)] = find(k)
			} else {
				owner[key] = k
			}
		}
	}
	groups := map[string][]string{}
	var groupOrder []string
	for _, k := range order {
		root := find(k)
		if _, ok := groups[root]; !ok {
			groupOrder = append(groupOrder, root)
		}
		groups[root] = append(groups[root], k)
	}

	var removed []string
	var vectors []writer.DeletionVector
	var vectorSeqs []int64
	var added []manifest.DataFile
	seqs := map[string]int64{}
	dataLoc := writer.DataLocation(t.Metadata)
	var written []string
	cleanup := func() {
		for _, p := range written {
			_ = t.IO.Delete(ctx, p)
		}
	}
	var chosen []string
	groupSources := map[string]map[string]bool{}
	for _, root := range groupOrder {
		sources := map[string]bool{}
		for _, k := range groups[root] {
			for key := range parts[k].sources {
				sources[key] = true
			}
		}
		if minPerPartition && len(sources) < 2 {
			continue
		}
		chosen = append(chosen, root)
		groupSources[root] = sources
	}
	var todo []*rewrittenFile
	for _, root := range chosen {
		for _, k := range groups[root] {
			todo = append(todo, parts[k].files...)
		}
	}
	if err := readPositions(ctx, t, ds, todo, read); err != nil {
		return res, fmt.Errorf("%s: %w", what, err)
	}
	for _, root := range chosen {
		sources := groupSources[root]
		for _, k := range groups[root] {
			p := parts[k]
			var fps []writer.FilePositions
			var partSeq int64
			for _, f := range p.files {
				res.DataFiles++
				pos := f.positions
				if f.replaced != nil {
					removed = append(removed, writtenKey(f.replaced))
				}
				if pos == nil || pos.IsEmpty() {
					continue
				}
				if dvs {
					vectors = append(vectors, writer.DeletionVector{DataFile: f.task.File, Positions: pos})
					vectorSeqs = append(vectorSeqs, f.seq)
					continue
				}
				fps = append(fps, writer.FilePositions{FilePath: f.task.File.FilePath, Positions: pos})
				partSeq = max(partSeq, f.seq)
			}
			if len(fps) == 0 {
				continue
			}
			// A position delete file is in the spec and partition of the
			// data files it names; the merged files' bytes say how many
			// the positions need.
			var inBytes int64
			for _, d := range p.sources {
				inBytes += d.File.FileSizeInBytes
			}
			for _, chunk := range splitPositions(fps, int((inBytes+target-1)/target)) {
				first := p.files[0].task.File
				path := fileio.JoinPath(dataLoc, "00000-0-"+uuid.NewString()+"-deletes.parquet")
				written = append(written, path)
				df, err := writer.WritePositionDeletes(ctx, t.IO, path, first.SpecID, first.Partition, chunk, writer.Options{})
				if err != nil {
					cleanup()
					return res, fmt.Errorf("%s: %w", what, err)
				}
				added = append(added, df)
				seqs[writtenKey(&df)] = partSeq
			}
		}
		keys := make([]string, 0, len(sources))
		for key := range sources {
			keys = append(keys, key)
		}
		sort.Strings(keys)
		removed = append(removed, keys...)
	}
	if len(vectors) > 0 {
		path := fileio.JoinPath(dataLoc, "00000-0-"+uuid.NewString()+"-deletes.puffin")
		written = append(written, path)
		dfs, err := writer.WriteDeletionVectors(ctx, t.IO, path, vectors)
		if err != nil {
			cleanup()
			return res, fmt.Errorf("%s: %w", what, err)
		}
		for i := range dfs {
			added = append(added, dfs[i])
			seqs[writtenKey(&dfs[i])] = vectorSeqs[i]
		}
	}
	if rw.dropUnused {
		for _, d := range ds.plan.DeleteFiles {
			if source(d) {
				removed = append(removed, writtenKey(&d.File))
			}
		}
	}
	removed = dedupe(removed)
	if len(removed) == 0 {
		res.DataFiles = 0
		return res, nil
	}
	cr, err := t.RewriteFiles(ctx, nil, removed, added, table.RewriteOptions{
		CommitOptions:              table.CommitOptions{Token: opts.Token, Properties: opts.Properties, Branch: opts.Branch},
		StartingSnapshotID:         ds.plan.Snapshot.SnapshotID,
		AddedDeleteSequenceNumbers: seqs,
	})
	if err != nil {
		cleanup()
		return res, fmt.Errorf("%s: %w", what, err)
	}
	res.SnapshotID, res.TokenFound = cr.SnapshotID, cr.TokenFound
	if cr.TokenFound {
		cleanup() // an earlier run's files hold the change
	}
	res.RemovedDeleteFiles = removed
	for i := range added {
		res.AddedDeleteFiles = append(res.AddedDeleteFiles, writtenKey(&added[i]))
	}
	return res, nil
}

// readPositions finds each file's deleted positions (deletedPositions with
// the read deletes), its deletes' largest data sequence number and its
// deletion vector, a few files at a time.
func readPositions(ctx context.Context, t *table.Table, ds *deleteScan, files []*rewrittenFile, read func(*scan.TaskDelete) bool) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(files))
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	var wg sync.WaitGroup
	for i, f := range files {
		task := ds.tasks[f.task.File.FilePath]
		if task == nil {
			errs[i] = fmt.Errorf("the reader planned no task for data file %s", f.task.File.FilePath)
			break
		}
		byRef := map[deleteFileRef]*table.DeleteFile{}
		for _, d := range f.task.Deletes {
			byRef[refOfPlan(d)] = d
		}
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			pos, err := deletedPositions(ctx, t, task, func(d *scan.TaskDelete) bool {
				if !read(d) {
					return false
				}
				if pd := byRef[refOfTask(d)]; pd != nil {
					f.seq = max(f.seq, pd.DataSequenceNumber)
					if pd.IsDeletionVector() {
						f.replaced = &pd.File
					}
				}
				return true
			})
			if err != nil {
				cancel()
			}
			f.positions, errs[i] = pos, err
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// splitPositions cuts fps into at most n runs of about equal position
// counts, a data file's positions never split.
func splitPositions(fps []writer.FilePositions, n int) [][]writer.FilePositions {
	if n <= 1 || len(fps) <= 1 {
		return [][]writer.FilePositions{fps}
	}
	var total uint64
	for _, fp := range fps {
		total += fp.Positions.GetCardinality()
	}
	per := total/uint64(n) + 1
	var out [][]writer.FilePositions
	start, acc := 0, uint64(0)
	for i, fp := range fps {
		acc += fp.Positions.GetCardinality()
		if acc >= per && i+1 < len(fps) {
			out = append(out, fps[start:i+1])
			start, acc = i+1, 0
		}
	}
	return append(out, fps[start:])
}

// dedupe keeps the first of each name, in order.
func dedupe(names []string) []string {
	seen := map[string]bool{}
	out := names[:0]
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
