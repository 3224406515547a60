package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// The 1 → 2-thread part of the foreign section: every table shape (the
// main table's codecs and the file-size variants), each query's wall time
// at 1 and 2 threads on floe and on DuckDB side by side, and a guard that
// fails the section when floe's second thread does not make a scan of a
// multi-file or multi-row-group table faster.

// threadGuardQueries are the queries that read every row group, so that
// a second thread has work to share on any table of two files or row
// groups; the others prune to a row group or stop early, and their wall
// is mostly fixed cost.
// busyMachineSpeedUp: DuckDB below this 1 → 2-thread speed-up (it gets
// 1.8–2.0× on these files on an idle machine) marks a failure line as
// likely the machine's.
const busyMachineSpeedUp = 1.2

var threadGuardQueries = []string{"all columns", "2 columns (bigint, decimal)", "text column", "unclustered 1%", "string equality 14%"}

// runForeignVariants writes each variant at zstd (unless written before)
// and measures every query on floe and DuckDB at 1 and 2 threads.
func runForeignVariants(repeat int, logf func(string, ...any)) ([]foreignResult, bool) {
	ok := true
	var results []foreignResult
	for _, v := range foreignVariants() {
		ft, err := writeForeignShape(filepath.Join(*foreignDir, v.Dir, "zstd"), "zstd", v.Shape)
		if err != nil {
			logf("foreign %s: %v", v.Name, err)
			ok = false
			continue
		}
		ft.Variant = v.Name
		logf("foreign %s (zstd): %d rows in %d files, %d row groups, %.1f MB, written by DuckDB", v.Name, ft.Rows, len(ft.Files), ft.RowGroups, float64(ft.Bytes)/1e6)
		for _, q := range foreignQueries(ft.Rows) {
			if !strings.Contains(q.Name, *foreignOnlyQuery) {
				continue
			}
			for _, threads := range []int{1, 2} {
				r, err := runForeignQuery(ft, q, threads, repeat, false)
				if err != nil {
					logf("foreign %s %q %d threads: %v", v.Name, q.Name, threads, err)
					ok = false
					continue
				}
				results = append(results, r)
			}
		}
	}
	return results, ok
}

// threadPair is one query on one table at 1 and 2 threads.
type threadPair struct {
	one, two foreignResult
}

// foreignThreadPairs pairs results by table, shape and query, in the order
// the 1-thread runs came.
func foreignThreadPairs(results []foreignResult) []threadPair {
	type key struct{ variant, table, query string }
	twos := map[key]foreignResult{}
	for _, r := range results {
		if r.Threads == 2 {
			twos[key{r.Variant, r.Table, r.Query}] = r
		}
	}
	var pairs []threadPair
	for _, r := range results {
		if two, found := twos[key{r.Variant, r.Table, r.Query}]; found && r.Threads == 1 {
			pairs = append(pairs, threadPair{r, two})
		}
	}
	return pairs
}

// printForeignThreads prints each pair's walls and speed-ups.
func printForeignThreads(results []foreignResult, logf func(string, ...any)) {
	pairs := foreignThreadPairs(results)
	if len(pairs) == 0 {
		return
	}
	logf("\nwall time, 1 → 2 threads (best of the runs; speed-up = 1-thread wall ÷ 2-thread wall)")
	logf("%-24s %-7s %-28s %19s %8s %19s %8s %12s", "shape", "table", "query", "floe 1T → 2T ms", "speed-up", "DuckDB 1T → 2T ms", "speed-up", "floe÷DuckDB 2T")
	for _, p := range pairs {
		logf("%-24s %-7s %-28s %19s %8s %19s %8s %12s", p.one.Variant, p.one.Table, p.one.Query,
			walls(p.one.FloeWal, p.two.FloeWal), speedUp(p.one.FloeWal, p.two.FloeWal),
			walls(p.one.DuckWal, p.two.DuckWal), speedUp(p.one.DuckWal, p.two.DuckWal),
			fmt.Sprintf("%.2f×", float64(p.two.FloeWal)/float64(max(p.two.DuckWal, 1))))
	}
}

func walls(one, two time.Duration) string {
	return fmt.Sprintf("%.1f → %.1f", ms(one), ms(two))
}

func speedUp(one, two time.Duration) string {
	if two <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f×", float64(one)/float64(two))
}

// foreignThreadProblems is the regression guard: a failure line for each
// query that reads every row group of a table of several files or row
// groups (threadGuardQueries) whose 2-thread floe wall is not below its
// 1-thread wall. withVariants says the variants ran, so that a missing
// shape is reported rather than passed over.
func foreignThreadProblems(results []foreignResult, withVariants bool) []string {
	var problems []string
	guarded := 0
	for _, p := range foreignThreadPairs(results) {
		if !slices.Contains(threadGuardQueries, p.one.Query) || p.one.RowGroups < 2 {
			continue
		}
		guarded++
		if p.two.FloeWal >= p.one.FloeWal {
			// DuckDB's speed-up on the same files in the same run tells a
			// busy machine (both flat) from floe's own problem.
			duck := float64(p.one.DuckWal) / float64(max(p.two.DuckWal, 1))
			busy := ""
			if duck < busyMachineSpeedUp {
				busy = "; DuckDB gained little too: was the machine busy?"
			}
			problems = append(problems, fmt.Sprintf("FAIL foreign threads: %s %s %q: floe's 2-thread wall %.1f ms is not below its 1-thread wall %.1f ms (DuckDB %.2f× on the same run%s)",
				p.one.Variant, p.one.Table, p.one.Query, ms(p.two.FloeWal), ms(p.one.FloeWal), duck, busy))
		}
	}
	if withVariants && guarded == 0 && *foreignOnlyQuery == "" {
		problems = append(problems, "FAIL foreign threads: no query of the guard ran at 1 and 2 threads")
	}
	return problems
}
