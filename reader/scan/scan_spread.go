package scan

import "slices"

// Spreading a small plan over the scan's threads. The parallel reader
// shares tasks between its workers, and a task is a file or a split of
// one (split size 128 MiB by default), so a scan of one or a few files
// gives a second thread nothing to do: DuckDB's 1 M rows in one file of
// 98 row groups (29 MB) read in 155 ms at one thread and 156 ms at two.
// When the plan has fewer than spreadTasksPerThread tasks a thread and the
// scan set no split size of its own, each whole file with several row
// groups is cut further along its row groups, into ranges of about the
// plan's bytes over spreadTasksPerThread × threads, but never smaller than
// the cost of opening a file (read.split.open-file-cost), below which a
// range costs more to open than it saves. The task groups (what
// floe_scan_plan hands out) pack the same bytes as before: the ranges of
// a file stay consecutive and pack together.
//
// Two ranges a thread, not more. When each range read and parsed the
// footer again, four ranges a thread gave 1.52× on that file's full scan
// at two threads and took the TPC-H Q6 shape from 4.6 to 6.6 ms; two gave
// 1.59× and 5.9 ms (unclustered 1 %: 1.64× → 1.84×). The ranges now parse
// the footer once between them (footerShare), and four a thread measured
// the same as two (full scan 139–146 ms against 138–143, Q6 7.0–7.5 ms
// against 6.5–8.0, one run each on a noisy machine), so two stay.
const spreadTasksPerThread = 2

// spreadOffsets keeps the split offsets of the first tasks planned, while
// the plan is still small enough to be spread (only then are they
// needed: a plan of a million files keeps none).
type spreadOffsets struct {
	limit   int       // the most tasks a plan may have to be spread
	offsets [][]int64 // by task index, while len < limit
}

func newSpreadOffsets(opts *Options) spreadOffsets {
	threads := opts.threads()
	if threads < 2 || opts.SplitSize > 0 {
		return spreadOffsets{}
	}
	return spreadOffsets{limit: spreadTasksPerThread * threads}
}

// keep records the split offsets of the task just appended at index i.
func (o *spreadOffsets) keep(i int, offsets []int64) {
	if i < o.limit && len(o.offsets) == i {
		o.offsets = append(o.offsets, slices.Clone(offsets))
	}
}

// spread cuts s's whole-file tasks along their row groups as the comment
// above says, when the plan is small; s.files and s.sure follow.
func (s *Scan) spread(o spreadOffsets, openCost int64) {
	if o.limit == 0 || len(s.tasks) >= o.limit || len(o.offsets) != len(s.tasks) {
		return
	}
	var total int64
	for _, t := range s.tasks {
		total += t.span()
	}
	size := max(total/int64(o.limit), openCost, 1)
	tasks := make([]*Task, 0, o.limit)
	files := make([]plannedFile, 0, o.limit)
	sure := make([]int64, 0, o.limit)
	for i, t := range s.tasks {
		parts := []*Task{t}
		if t.Start == 0 && (t.Length == 0 || t.Length == t.FileSize) && usableSplitOffsets(o.offsets[i], t.FileSize) {
			parts = splitTask(t, o.offsets[i], size)
		}
		if len(parts) > 1 {
			if s.footers == nil {
				s.footers = &footerShare{}
			}
			s.footers.add(t.Path, len(parts))
		}
		for _, p := range parts {
			tasks = append(tasks, p)
			files = append(files, s.files[i])
			if len(parts) == 1 {
				sure = append(sure, s.sure[i])
			} else {
				sure = append(sure, 0) // a range's rows are known once read
			}
		}
	}
	s.tasks, s.files, s.sure = tasks, files, sure
}
