package scan

// Byte-range splits: a data file larger than the scan's split size is read
// by several tasks, each owning the row groups whose midpoint lies in its
// byte range. The midpoint rule (the one Iceberg's Java and Spark readers
// use) puts every row group in exactly one range, wherever the range
// boundaries fall, so planning needs no footer.

import (
	"fmt"
	"strconv"
)

// Task groups: the unit a scan hands out to be read elsewhere. Small files
// (and the last splits of large ones) are packed together so that a worker
// is not handed a few kilobytes to read per round trip, while a group
// stays about one split size of work.

// Byte-range splits: a data file larger than the scan's split size is read
// by several tasks, each owning the row groups whose midpoint lies in its
// byte range. The midpoint rule (the one Iceberg's Java and Spark readers
// use) puts every row group in exactly one range, wherever the range
// boundaries fall, so planning needs no footer.

// byteSplit is one byte range of a data file.
type byteSplit struct{ start, length int64 }

// splitFile cuts a file of fileSize bytes into ranges of about size
// bytes: along the writer's split offsets (row group starts) when they
// are usable, grouping consecutive row groups up to size, else at fixed
// boundaries. One range means the file is read whole.
func splitFile(fileSize int64, offsets []int64, size int64) []byteSplit {
	if size <= 0 || fileSize <= size {
		return []byteSplit{{0, fileSize}}
	}
	if usableSplitOffsets(offsets, fileSize) {
		var out []byteSplit
		start := int64(0)
		for i := 1; i < len(offsets); i++ {
			next := fileSize
			if i+1 < len(offsets) {
				next = offsets[i+1]
			}
			// Taking the row group at offsets[i] would make the range too big.
			if next-start > size {
				out = append(out, byteSplit{start, offsets[i] - start})
				start = offsets[i]
			}
		}
		return append(out, byteSplit{start, fileSize - start})
	}
	step := size
	if n := (fileSize + size - 1) / size; n > maxFixedSplits {
		step = (fileSize + maxFixedSplits - 1) / maxFixedSplits
	}
	out := make([]byteSplit, 0, (fileSize+step-1)/step)
	for start := int64(0); start < fileSize; start += step {
		out = append(out, byteSplit{start, min(step, fileSize-start)})
	}
	return out
}

// usableSplitOffsets reports whether a manifest's split offsets can place
// ranges: strictly increasing and inside the file.
func usableSplitOffsets(offsets []int64, fileSize int64) bool {
	if len(offsets) == 0 {
		return false
	}
	for i, o := range offsets {
		if o < 0 || o >= fileSize || (i > 0 && o <= offsets[i-1]) {
			return false
		}
	}
	return true
}

// splitTask is task as the tasks that read its file's ranges; the task
// itself when the file is read whole.
func splitTask(task *Task, offsets []int64, size int64) []*Task {
	ranges := splitFile(task.FileSize, offsets, size)
	if len(ranges) <= 1 {
		return []*Task{task}
	}
	out := make([]*Task, len(ranges))
	for i, r := range ranges {
		c := *task
		c.Start, c.Length = r.start, r.length
		out[i] = &c
	}
	return out
}

// splitSettings are the split size and open-file cost of a scan: the
// scan's split size, else the table's properties, else the defaults.
func splitSettings(opts *Options, props map[string]string) (size, openCost int64, err error) {
	size, err = sizeProperty(props, propSplitSize, DefaultSplitSize, 1)
	if err != nil {
		return 0, 0, err
	}
	if opts.SplitSize > 0 {
		size = opts.SplitSize
	}
	openCost, err = sizeProperty(props, propOpenFileCost, DefaultOpenFileCost, 0)
	if err != nil {
		return 0, 0, err
	}
	return size, openCost, nil
}

// sizeProperty reads a byte count of at least least from a table property.
func sizeProperty(props map[string]string, key string, def, least int64) (int64, error) {
	v, ok := props[key]
	if !ok {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least {
		return 0, fmt.Errorf("table property %s=%q: want a number of bytes, at least %d", key, v, least)
	}
	return n, nil
}

// packTasks groups tasks in order, next-fit: a task joins the current
// group unless that would take the group's weight past size, where a
// task weighs its bytes but at least openCost. A task that weighs size
// or more is a group of its own. It returns the index of each group's
// first task.
func packTasks(tasks []*Task, size, openCost int64) []int {
	var starts []int
	var weight int64
	for i, t := range tasks {
		w := max(t.rangeBytes(), openCost)
		if len(starts) == 0 || weight+w > size || weight+w < weight {
			starts = append(starts, i)
			weight = 0
		}
		weight += w
	}
	return starts
}

const (
	// DefaultSplitSize is the split size when neither the scan nor the
	// table's read.split.target-size says otherwise (Iceberg's default).
	DefaultSplitSize = 128 << 20
	// DefaultOpenFileCost is the least weight a task counts for when tasks
	// are packed into groups, unless read.split.open-file-cost says
	// otherwise: opening a file and reading its footer costs about as much
	// as reading this many bytes.
	DefaultOpenFileCost = 4 << 20

	propSplitSize    = "read.split.target-size"
	propOpenFileCost = "read.split.open-file-cost"

	// maxFixedSplits caps the ranges of a file cut at fixed boundaries (no
	// usable split offsets), so a tiny split size cannot plan millions of
	// tasks that read nothing; the ranges grow instead.
	maxFixedSplits = 1024
)
