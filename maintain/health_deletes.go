package maintain

import (
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// deleteHealth gathers, task by task in the health check's one walk of
// the manifests, what the delete rewrites would find: the rules are those
// of ConvertEqualityDeletes and RewritePositionDeletes (rewriteDeletes),
// so the planner runs them exactly when they have work.
type deleteHealth struct {
	v3 bool
	// equality: live equality delete files applying to a live data file.
	equality map[string]bool
	// positions: per partition of the data files (the rewrite's key), the
	// position delete files (not vectors) applying there.
	positions map[string]map[string]bool
	withEq    int
	withPos   int
	maxPos    int
}

func newDeleteHealth(v3 bool) *deleteHealth {
	return &deleteHealth{v3: v3, equality: map[string]bool{}, positions: map[string]map[string]bool{}}
}

// isPositionFile: a position delete file, not a deletion vector — what
// rewrite_position_deletes merges (v2) or turns into vectors (v3).
func isPositionFile(d *table.DeleteFile) bool {
	return d.File.Content == manifest.ContentPositionDeletes && !d.IsDeletionVector()
}

func (dh *deleteHealth) add(dt *table.DataFileTask) {
	var eq, pos int
	for _, d := range dt.Deletes {
		switch {
		case d.File.Content == manifest.ContentEqualityDeletes:
			eq++
			dh.equality[writtenKey(&d.File)] = true
		case isPositionFile(d):
			pos++
			k := table.PartitionKey(dt.File.SpecID, dt.File.Partition)
			if dh.positions[k] == nil {
				dh.positions[k] = map[string]bool{}
			}
			dh.positions[k][writtenKey(&d.File)] = true
		}
	}
	if eq > 0 {
		dh.withEq++
	}
	if pos > 0 {
		dh.withPos++
	}
	dh.maxPos = max(dh.maxPos, pos)
}

// finish fills h from what the walk gathered and the plan's live delete
// files; target is the delete files' target size.
func (dh *deleteHealth) finish(h *Health, plan *table.Plan, target int64) {
	h.EqualityDeleteFilesApplied = len(dh.equality)
	h.DataFilesWithEqualityDeletes = dh.withEq
	h.DataFilesWithPositionDeleteFiles = dh.withPos
	h.MaxPositionDeleteFilesPerDataFile = dh.maxPos
	for _, d := range plan.DeleteFiles {
		if d.File.Content == manifest.ContentEqualityDeletes {
			h.EqualityDeleteRows += d.File.RecordCount
		}
		if isPositionFile(d) && d.File.FileSizeInBytes < target*3/4 {
			h.SmallPositionDeleteFiles++
		}
	}
	// A file applying in several partitions (an older spec's) counts once;
	// on v2 a partition with a single file is left as it is, as the
	// rewrite leaves it (a group of partitions sharing files has two or
	// more exactly when one of its partitions has).
	rewritten := map[string]bool{}
	for _, files := range dh.positions {
		if !dh.v3 && len(files) < 2 {
			continue
		}
		for f := range files {
			rewritten[f] = true
		}
	}
	h.PositionDeleteFilesToRewrite = len(rewritten)
}
