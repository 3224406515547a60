package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
	"syscall"
	"time"
)

// Thread profiles of the foreign section: the same floe query at one and
// at two threads (GOMAXPROCS set to match, so the runtime has no idle P
// to spin on at one thread), each profiled over several runs for CPU,
// blocking and mutex contention, with the CPU, wall and GC totals per
// run printed beside them. Comparing the two shows where a second
// thread's CPU goes: decoding, the scheduler (runtime.futex, usleep,
// findRunnable), the collector, or waits on a lock or channel.
var foreignThreadProf = flag.String("foreign-thread-profile", "", "instead of measuring, write CPU, block and mutex profiles of floe's scan of each foreign query at 1 and 2 threads to <this>-<table>-<n>-<procs>P<threads>T.{cpu,block,mutex}.prof (GOMAXPROCS procs)")

// A profile covers at least foreignProfileRuns runs and foreignProfileTime,
// so that a short query still gives enough samples to compare.
const (
	foreignProfileRuns = 10
	foreignProfileTime = 8 * time.Second
)

func profileForeignThreads(prefix string, ft *foreignTable, n int, q foreignQuery, logf func(string, ...any)) error {
	old := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(old)
	// One thread on one P, one on two (the section's 1-thread runs: the
	// runtime has a P to spare), two on two.
	for _, c := range []struct{ procs, threads int }{{1, 1}, {2, 1}, {2, 2}} {
		threads := c.threads
		runtime.GOMAXPROCS(c.procs)
		base := fmt.Sprintf("%s-%s-%d-%dP%dT", prefix, ft.Codec, n, c.procs, threads)
		// A warm-up run: the files in the page cache, the pools filled.
		if _, err := floeForeign(ft, q, threads); err != nil {
			return err
		}
		cpuFile, err := os.Create(base + ".cpu.prof")
		if err != nil {
			return err
		}
		runtime.SetBlockProfileRate(10_000) // a sample per 10 µs blocked
		runtime.SetMutexProfileFraction(10)
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		if err := pprof.StartCPUProfile(cpuFile); err != nil {
			cpuFile.Close()
			return err
		}
		var ru0, ru1 syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		user0, sys0 := processCPU()
		start := time.Now()
		runs := 0
		for ; runs < foreignProfileRuns || time.Since(start) < foreignProfileTime; runs++ {
			if _, err := floeForeign(ft, q, threads); err != nil {
				pprof.StopCPUProfile()
				cpuFile.Close()
				return err
			}
		}
		wall := time.Since(start)
		user1, sys1 := processCPU()
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		pprof.StopCPUProfile()
		cpuFile.Close()
		runtime.ReadMemStats(&after)
		for _, kind := range []string{"block", "mutex"} {
			if err := writeProfile(base+"."+kind+".prof", kind); err != nil {
				return err
			}
		}
		runtime.SetBlockProfileRate(0)
		runtime.SetMutexProfileFraction(0)
		// An execution trace of one more run: when each worker decodes,
		// waits, or hands over (go tool trace).
		if err := traceRun(base+".trace", func() error { _, err := floeForeign(ft, q, threads); return err }); err != nil {
			return err
		}
		per := func(d time.Duration) float64 { return d.Seconds() / float64(runs) }
		logf("foreign profile %s %q %dP %dT: %d runs, per run %.3f s CPU (%.3f s system), %.3f s wall, %.1f GCs, %.1f MB Go heap allocated, %.0f page faults, %.0f+%.0f context switches (voluntary+not); profiles %s.*.prof",
			ft.Codec, q.Name, c.procs, threads, runs, per(user1-user0+sys1-sys0), per(sys1-sys0), per(wall),
			float64(after.NumGC-before.NumGC)/float64(runs), float64(after.TotalAlloc-before.TotalAlloc)/1e6/float64(runs),
			float64(ru1.Minflt-ru0.Minflt)/float64(runs), float64(ru1.Nvcsw-ru0.Nvcsw)/float64(runs), float64(ru1.Nivcsw-ru0.Nivcsw)/float64(runs), base)
	}
	return nil
}

func traceRun(path string, run func() error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := trace.Start(f); err != nil {
		return err
	}
	defer trace.Stop()
	return run()
}

func writeProfile(path, kind string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup(kind).WriteTo(f, 0)
}
