package scan

import "sync/atomic"

// Metrics tells what a scan pruned and read, summed over the tasks it
// has run so far. The JSON names are the ones the C API, Python and
// `floe scan --stats` show.
type Metrics struct {
	// Planning: manifests and files the filter ruled out without reading
	// them, and the data files left to read.
	ManifestsSkipped int64 `json:"manifests_skipped"`
	FilesSkipped     int64 `json:"files_skipped"`
	FilesPlanned     int64 `json:"files_planned"`
	// Reading: row groups and pages never decoded because statistics,
	// dictionaries, bloom filters or the page index showed no row could
	// match (or every row was deleted), and the compressed bytes they hold.
	RowGroupsRead    int64 `json:"row_groups_read"`
	RowGroupsSkipped int64 `json:"row_groups_skipped"`
	PagesSkipped     int64 `json:"pages_skipped"`
	BytesRead        int64 `json:"bytes_read"`
	// Requests is how many reads the data files took (footer reads and
	// coalesced column fetches); on an object store, round trips.
	Requests     int64 `json:"requests"`
	BytesSkipped int64 `json:"bytes_skipped"`
	// Rows decoded and then dropped: by the row filter and by deletes.
	RowsFiltered int64 `json:"rows_filtered"`
	RowsDeleted  int64 `json:"rows_deleted"`
	RowsReturned int64 `json:"rows_returned"`
	// Progress: the tasks planned and their bytes (each task's byte range
	// of its file), and those of the tasks read to their end. Bytes are
	// what a task covers, not what it reads (projection and pruning read
	// less), so TaskBytesDone/TaskBytesPlanned is how far a scan is.
	TasksPlanned     int64 `json:"tasks_planned"`
	TaskBytesPlanned int64 `json:"task_bytes_planned"`
	TasksDone        int64 `json:"tasks_done"`
	TaskBytesDone    int64 `json:"task_bytes_done"`
}

// scanCounters are Metrics as the tasks of one scan update them, from
// several goroutines at once.
type scanCounters struct {
	manifestsSkipped, filesSkipped, filesPlanned  atomic.Int64
	rowGroupsRead, rowGroupsSkipped, pagesSkipped atomic.Int64
	bytesRead, bytesSkipped, requests             atomic.Int64
	rowsFiltered, rowsDeleted, rowsReturned       atomic.Int64
	tasksPlanned, taskBytesPlanned                atomic.Int64
	tasksDone, taskBytesDone                      atomic.Int64
}

func (c *scanCounters) snapshot() Metrics {
	return Metrics{
		ManifestsSkipped: c.manifestsSkipped.Load(),
		FilesSkipped:     c.filesSkipped.Load(),
		FilesPlanned:     c.filesPlanned.Load(),
		RowGroupsRead:    c.rowGroupsRead.Load(),
		RowGroupsSkipped: c.rowGroupsSkipped.Load(),
		PagesSkipped:     c.pagesSkipped.Load(),
		BytesRead:        c.bytesRead.Load(),
		BytesSkipped:     c.bytesSkipped.Load(),
		Requests:         c.requests.Load(),
		RowsFiltered:     c.rowsFiltered.Load(),
		RowsDeleted:      c.rowsDeleted.Load(),
		RowsReturned:     c.rowsReturned.Load(),
		TasksPlanned:     c.tasksPlanned.Load(),
		TaskBytesPlanned: c.taskBytesPlanned.Load(),
		TasksDone:        c.tasksDone.Load(),
		TaskBytesDone:    c.taskBytesDone.Load(),
	}
}

// span is the part of its file a task covers.
func (t *Task) span() int64 {
	if t.Length > 0 {
		return t.Length
	}
	return t.FileSize
}
