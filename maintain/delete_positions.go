package maintain

import (
	"context"
	"fmt"
	"math"
	"unsafe"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The delete rewrites (rewrite_position_deletes, convert_equality_deletes)
// share one way to learn which rows of a data file a set of delete files
// removes: read the file's _pos through floe's task reader with only those
// deletes applied, and take the positions that did not come back. The
// reader is the one policy for which delete applies to which row (sequence
// numbers, a deletion vector replacing position files, equality on the
// key columns), so the rewritten files delete exactly what it did.

// deleteFileRef names a delete file as the plan and the task both see it.
type deleteFileRef struct {
	path   string // as the reader opens it (location map applied)
	offset int64  // a deletion vector's content_offset, else -1
}

func refOfTask(d *scan.TaskDelete) deleteFileRef {
	r := deleteFileRef{path: d.Path, offset: -1}
	if d.ContentOffset != nil {
		r.offset = *d.ContentOffset
	}
	return r
}

func refOfPlan(d *table.DeleteFile) deleteFileRef {
	r := deleteFileRef{path: d.Path, offset: -1}
	if d.File.ContentOffset != nil {
		r.offset = *d.File.ContentOffset
	}
	return r
}

// writtenKey is a delete file's name for RewriteFiles: its path as the
// manifests write it, a deletion vector's with #content_offset.
func writtenKey(df *manifest.DataFile) string {
	if df.ContentOffset != nil {
		return fmt.Sprintf("%s#%d", df.FilePath, *df.ContentOffset)
	}
	return df.FilePath
}

// deleteScan plans the branch's data files with their deletes (metadata:
// written paths, sequence numbers) and the reader's whole-file tasks
// projecting _pos only, by data file path as written.
type deleteScan struct {
	plan  *table.Plan
	tasks map[string]*scan.Task
}

func planDeleteScan(ctx context.Context, t *table.Table, branch string) (*deleteScan, error) {
	plan, err := t.PlanFiles(ctx, table.SnapshotSelector{Ref: branch})
	if err != nil {
		return nil, err
	}
	sc, err := scan.New(ctx, t, scan.Options{Ref: branch, Columns: []string{"_pos"}, SplitSize: math.MaxInt64})
	if err != nil {
		return nil, err
	}
	tasks := map[string]*scan.Task{}
	for _, task := range sc.Tasks() {
		path := task.WrittenPath
		if path == "" {
			path = task.Path
		}
		if _, dup := tasks[path]; dup || task.Start != 0 || (task.Length != 0 && task.Length < task.FileSize) {
			return nil, fmt.Errorf("data file %s was planned as more than one task", path)
		}
		tasks[path] = task
	}
	return &deleteScan{plan: plan, tasks: tasks}, nil
}

// deletedPositions are the rows of the task's data file that the task's
// deletes keep removes: every position not read back with only those
// applied. Nil when keep selects none of the task's deletes.
func deletedPositions(ctx context.Context, t *table.Table, task *scan.Task, keep func(*scan.TaskDelete) bool) (*roaring64.Bitmap, error) {
	only := *task
	only.Deletes = nil
	for i := range task.Deletes {
		if keep(&task.Deletes[i]) {
			only.Deletes = append(only.Deletes, task.Deletes[i])
		}
	}
	if len(only.Deletes) == 0 {
		return nil, nil
	}
	rr, err := only.Reader(ctx, t.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", task.Path, err)
	}
	defer rr.Release()
	live := roaring64.New()
	for rr.Next() {
		rec := rr.RecordBatch()
		idx := rec.Schema().FieldIndices("_pos")
		if len(idx) != 1 {
			return nil, fmt.Errorf("reading %s: no _pos column", task.Path)
		}
		pos, ok := rec.Column(idx[0]).(*array.Int64)
		if !ok {
			return nil, fmt.Errorf("reading %s: _pos read as %s", task.Path, rec.Column(idx[0]).DataType())
		}
		vals := pos.Int64Values()
		// Positions are never negative, so their bits are the same uint64s.
		live.AddMany(unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)))
	}
	if err := rr.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", task.Path, err)
	}
	gone := roaring64.New()
	gone.AddRange(0, uint64(task.RecordCount))
	gone.AndNot(live)
	return gone, nil
}
