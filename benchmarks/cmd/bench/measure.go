package main

import (
	"runtime"
	"syscall"
	"time"
)

// sample is one measured run.
type sample struct {
	CPU     time.Duration // user + system time of the whole process
	SysCPU  time.Duration // the system part (page faults, reads)
	Wall    time.Duration
	GoAlloc uint64 // bytes the Go heap handed out (TotalAlloc delta)
	Result  checksum
}

// measure runs fn repeat times and keeps the run with the least CPU time;
// GoAlloc is the least of all runs (it hardly varies). A GC before each
// run keeps garbage from the previous one out of its CPU time.
func measure(repeat int, fn func() (checksum, error)) (sample, error) {
	var best sample
	for i := 0; i < repeat; i++ {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		user0, sys0 := processCPU()
		start := time.Now()
		sum, err := fn()
		wall := time.Since(start)
		user1, sys1 := processCPU()
		cpu := user1 - user0 + sys1 - sys0
		runtime.ReadMemStats(&after)
		if err != nil {
			return sample{}, err
		}
		s := sample{CPU: cpu, SysCPU: sys1 - sys0, Wall: wall, GoAlloc: after.TotalAlloc - before.TotalAlloc, Result: sum}
		if i == 0 || s.CPU < best.CPU {
			alloc := best.GoAlloc
			best = s
			if i > 0 {
				best.GoAlloc = min(alloc, s.GoAlloc)
			}
		} else {
			best.GoAlloc = min(best.GoAlloc, s.GoAlloc)
		}
	}
	return best, nil
}

// processCPU is the user and system time of every thread of the process,
// so cgo threads (DuckDB) and the Go runtime's own (GC) are counted.
func processCPU() (user, sys time.Duration) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0, 0
	}
	return time.Duration(ru.Utime.Nano()), time.Duration(ru.Stime.Nano())
}

// roundRobin runs each of runs once per round, for rounds rounds, so a
// slow spell of the machine falls on every configuration compared rather
// than on one side of a ratio. It keeps each run's best sample by better,
// or the first error it returned (after which it is not run again).
func roundRobin(rounds int, runs []func() (sample, error), better func(a, b sample) bool) ([]sample, []error) {
	best := make([]sample, len(runs))
	errs := make([]error, len(runs))
	for round := range rounds {
		for i, run := range runs {
			if errs[i] != nil {
				continue
			}
			s, err := run()
			switch {
			case err != nil:
				errs[i] = err
			case round == 0 || better(s, best[i]):
				best[i] = s
			}
		}
	}
	return best, errs
}

// betterAt is the comparison of samples for runs at threads: CPU time
// for one thread (what one core costs), wall time for more (how soon
// the answer comes).
func betterAt(threads int) func(a, b sample) bool {
	if threads == 1 {
		return func(a, b sample) bool { return a.CPU < b.CPU }
	}
	return func(a, b sample) bool { return a.Wall < b.Wall }
}
