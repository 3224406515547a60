package scan

import "github.com/floedb/floe/iceberg/manifest"

// Local splits: a scan read in this process by several threads cuts its
// planned tasks finer, along row-group boundaries, so that every thread
// has work until the end. With planned tasks alone, a scan whose filter
// leaves two files, one holding seven of the nine row groups that match,
// keeps one thread busy while the other idles; and an ordered scan of a
// few large files holds a whole file's batches for the consumer while the
// next thread's file waits. Java's readers adapt their split size to the
// parallelism in the same way (read.split.adaptive-size.enabled).
//
// Only this process's reading changes: Tasks and TaskGroups, which other
// processes read, stay as planned, whatever the local thread count. A
// limited scan is not cut further: its hold-back counts the sure rows of
// whole files.

// localSplitsPerThread is how many pieces each thread gets of the scan's
// bytes, at most: enough that one slow piece does not decide the end of
// the scan.
const localSplitsPerThread = 8

// minLocalSplit keeps pieces from getting so small that opening the file
// (the footer read and parse each piece does) weighs more than the
// balance they bring. A variable for tests' small tables.
var minLocalSplit int64 = 4 << 20

// localSplitSize is the size local pieces are cut to, or 0 when the
// planned tasks are read as they are.
func localSplitSize(tasks []*Task, threads int, limited bool, splitSize int64) int64 {
	if threads <= 1 || limited || len(tasks) == 0 {
		return 0
	}
	var total int64
	for _, t := range tasks {
		total += taskBytes(t)
	}
	size := max(total/int64(threads*localSplitsPerThread), minLocalSplit)
	if size >= splitSize {
		return 0
	}
	return size
}

// taskBytes is the size of a task's byte range.
func taskBytes(t *Task) int64 {
	if t.Length > 0 {
		return t.Length
	}
	return t.FileSize
}

// splitLocally cuts each task along its file's row-group starts into
// pieces of about size bytes, keeping files[i] and sure[i] beside each
// piece (a piece is sure of no rows). It returns the inputs when no task
// is cut.
func splitLocally(tasks []*Task, files []*manifest.DataFile, sure []int64, size int64) ([]*Task, []*manifest.DataFile, []int64) {
	var outTasks []*Task
	var outFiles []*manifest.DataFile
	var outSure []int64
	cut := false
	for i, t := range tasks {
		var offsets []int64
		if i < len(files) && files[i] != nil {
			offsets = files[i].SplitOffsets
		}
		ranges := splitRange(t.Start, taskBytes(t), t.FileSize, offsets, size)
		if len(ranges) <= 1 {
			outTasks = append(outTasks, t)
			outFiles = append(outFiles, fileAt(files, i))
			outSure = append(outSure, sureAt(sure, i))
			continue
		}
		cut = true
		for _, r := range ranges {
			c := *t
			c.Start, c.Length = r.start, r.length
			outTasks = append(outTasks, &c)
			outFiles = append(outFiles, fileAt(files, i))
			outSure = append(outSure, 0)
		}
	}
	if !cut {
		return tasks, files, sure
	}
	return outTasks, outFiles, outSure
}

func fileAt(files []*manifest.DataFile, i int) *manifest.DataFile {
	if i < len(files) {
		return files[i]
	}
	return nil
}

func sureAt(sure []int64, i int) int64 {
	if i < len(sure) {
		return sure[i]
	}
	return 0
}

// splitRange cuts the byte range [start, start+length) of a file at the
// row-group starts inside it, grouping consecutive row groups up to size
// bytes. The pieces cover the range exactly, so each row group whose
// midpoint lay in the range lies in exactly one piece (the midpoint rule
// of splitFile). Without usable offsets the range stays whole: fixed
// cuts could leave pieces holding no row group, each still opening the
// file.
func splitRange(start, length, fileSize int64, offsets []int64, size int64) []byteSplit {
	end := start + length
	if size <= 0 || length <= size || !usableSplitOffsets(offsets, fileSize) {
		return []byteSplit{{start, length}}
	}
	var out []byteSplit
	from := start
	for i, o := range offsets {
		// The first row group's start is no cut: before it lies only the
		// file's magic.
		if i == 0 || o <= start || o >= end {
			continue
		}
		next := end
		if i+1 < len(offsets) && offsets[i+1] < end {
			next = offsets[i+1]
		}
		// Taking the row group starting at o would make the piece too big.
		if next-from > size {
			out = append(out, byteSplit{from, o - from})
			from = o
		}
	}
	return append(out, byteSplit{from, end - from})
}
