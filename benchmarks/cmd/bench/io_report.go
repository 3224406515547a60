package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/floedb/floe/benchmarks/lineitem"
)

type ioResults struct {
	Time       string `json:"time"`
	GoVersion  string `json:"go_version"`
	CPUs       int    `json:"cpus"`
	GOMAXPROCS int    `json:"gomaxprocs"`
	Repeat     int    `json:"repeat"`
	// LoadAverage and LoadAverageEnd are the one-minute load average when
	// the section started and ended: other work on the machine skews the
	// times.
	LoadAverage    string          `json:"load_average_start,omitempty"`
	LoadAverageEnd string          `json:"load_average_end,omitempty"`
	Table          lineitem.Params `json:"table"`
	DataBytes      int64           `json:"data_bytes"`
	Scans          []ioScan        `json:"scans"`
	DelayMs        float64         `json:"delay_ms"`
	// S3Status is "ok" or why parts 1 and 2 did not run.
	S3Status string         `json:"s3_status"`
	Requests []ioRequestRun `json:"requests"`
	// Stores are part 1 on the other object stores' emulators.
	Stores  []ioStoreRequests `json:"stores,omitempty"`
	Latency []ioLatencyRun    `json:"latency"`
	Threads []ioThreadRun     `json:"threads"`
	// MachineSpeedup is what two spinning goroutines got over one just
	// before and just after the thread runs (see machineSpeedup).
	MachineSpeedup []float64         `json:"machine_speedup_2_over_1,omitempty"`
	Processes      *ioProcessRun     `json:"processes"`
	Ratios         map[string]string `json:"ratios"`
	Targets        []string          `json:"targets"`
	// Problems are failed or wrong runs.
	Problems []string `json:"problems,omitempty"`
}

func (r *ioResults) request(scan, fetch string) *ioRequestRun {
	for i := range r.Requests {
		if r.Requests[i].Scan == scan && r.Requests[i].Fetch == fetch {
			return &r.Requests[i]
		}
	}
	return nil
}

func (r *ioResults) latency(scan, peer string) *ioLatencyRun {
	for i := range r.Latency {
		if r.Latency[i].Scan == scan && r.Latency[i].Peer == peer {
			return &r.Latency[i]
		}
	}
	return nil
}

func (r *ioResults) thread(threads int, ordered bool) *ioThreadRun {
	for i := range r.Threads {
		if r.Threads[i].Threads == threads && r.Threads[i].Ordered == ordered {
			return &r.Threads[i]
		}
	}
	return nil
}

func orderName(ordered bool) string {
	if ordered {
		return "ordered"
	}
	return "unordered"
}

// judge works out the ratios, checks the targets and lists the problems.
func (r *ioResults) judge() {
	if r.S3Status != "ok" {
		r.Problems = append(r.Problems, "S3 parts (requests, latency) "+r.S3Status)
	}
	r.judgeStores()
	for _, s := range r.Scans {
		c, p := r.request(s.Name, "coalesced"), r.request(s.Name, "per-chunk")
		if c != nil && p != nil && c.Status == "ok" && p.Status == "ok" && c.ProxyRequests > 0 && c.FloeRequests > 0 {
			r.Ratios["requests per-chunk/coalesced "+s.Name] = fmt.Sprintf("%.1f× at the proxy, %.1f× by floe's metrics",
				float64(p.ProxyRequests)/float64(c.ProxyRequests), float64(p.FloeRequests)/float64(c.FloeRequests))
		}
		f, g := r.latency(s.Name, "floe"), r.latency(s.Name, "iceberg-go")
		if f == nil || g == nil {
			continue
		}
		key := "wall iceberg-go/floe " + s.Name
		switch {
		case g.Status != "ok":
			r.Ratios[key] = "n/a (iceberg-go " + shortStatus(g.Status) + ")"
		case f.Status != "ok":
			r.Ratios[key] = "n/a (floe " + shortStatus(f.Status) + ")"
		default:
			r.Ratios[key] = fmt.Sprintf("%.2f×", g.WallSeconds/f.WallSeconds)
		}
	}
	for _, ordered := range []bool{true, false} {
		one, two := r.thread(1, ordered), r.thread(2, ordered)
		if one == nil || two == nil {
			continue
		}
		name := fmt.Sprintf("local full scan (%s), 2 threads ≥ %.1f× faster than 1", orderName(ordered), ioSpeedupTarget)
		if one.Status != "ok" || two.Status != "ok" {
			r.Targets = append(r.Targets, name+": no valid measurement — NOT met")
			continue
		}
		speedup := one.WallSeconds / two.WallSeconds
		r.Ratios["speed-up 1/2 threads "+orderName(ordered)] = fmt.Sprintf("%.2f×", speedup)
		target := fmt.Sprintf("%s: %.3f s / %.3f s = %.2f× — %s", name, one.WallSeconds, two.WallSeconds,
			speedup, verdict(speedup >= ioSpeedupTarget))
		if machine := slices.Max(append([]float64{0}, r.MachineSpeedup...)); speedup < ioSpeedupTarget && machine > 0 && machine < ioSpeedupTarget {
			target += fmt.Sprintf(" (the machine itself gave two spinning goroutines only %.2f×: not measurable here)", machine)
		}
		r.Targets = append(r.Targets, target)
	}
	if p := r.Processes; p != nil {
		verdict := "ok"
		if p.Status != "ok" {
			verdict = "FAIL"
		}
		r.Targets = append(r.Targets, fmt.Sprintf("%d worker processes reading the serialised task groups return exactly the single-process scan (rows, sum(l_partkey), row hash): %s",
			len(p.Workers), verdict))
	}

	for _, run := range r.Requests {
		if run.Status != "ok" {
			r.Problems = append(r.Problems, fmt.Sprintf("requests, floe %s scan %s: %s", run.Scan, run.Fetch, run.Status))
		}
	}
	for _, run := range r.Latency {
		if run.Status != "ok" {
			r.Problems = append(r.Problems, fmt.Sprintf("latency, %s %s scan: %s", run.Peer, run.Scan, run.Status))
		}
	}
	for _, run := range r.Threads {
		if run.Status != "ok" {
			r.Problems = append(r.Problems, fmt.Sprintf("threads, floe %d threads %s: %s", run.Threads, orderName(run.Ordered), run.Status))
		}
	}
	if p := r.Processes; p != nil && p.Status != "ok" {
		r.Problems = append(r.Problems, "processes: "+p.Status)
	}
}

// floeOK is false when a part did not run or floe failed or was wrong; a
// peer's failure is reported, not fatal.
func (r *ioResults) floeOK() bool {
	if r.S3Status != "ok" || r.Processes == nil || r.Processes.Status != "ok" {
		return false
	}
	for _, run := range r.Requests {
		if run.Status != "ok" {
			return false
		}
	}
	for _, run := range r.Latency {
		if run.Peer == "floe" && run.Status != "ok" {
			return false
		}
	}
	for _, run := range r.Threads {
		if run.Status != "ok" {
			return false
		}
	}
	return true
}

func (r *ioResults) print(w io.Writer) {
	fmt.Fprintf(w, "\nio: lineitem %d rows, %d files × %d row groups, data files %s (snappy); %s, %d CPUs, GOMAXPROCS %d; load average %s at the start, %s at the end\n",
		r.Table.Rows, r.Table.Files, r.Table.RowGroupsPerFile, bytesText(uint64(r.DataBytes)), r.GoVersion, r.CPUs, r.GOMAXPROCS,
		orDash(r.LoadAverage), orDash(r.LoadAverageEnd))
	fmt.Fprintln(w, "timed scans count rows and sum(l_partkey) only; every result is checked against the generator's answer")
	for _, s := range r.Scans {
		what := "every column"
		if s.Columns != nil {
			what = strings.Join(s.Columns, ", ")
		}
		if s.Filter != "" {
			what += " where " + s.Filter
		}
		fmt.Fprintf(w, "  %-8s %s — %d rows, sum(l_partkey) %d\n", s.Name, what, s.Expected.Rows, s.Expected.SumPartKey)
	}

	fmt.Fprintf(w, "\n1. requests per scan, S3 (versitygw on loopback) behind a counting proxy, no delay; floe, default threads, a fresh table open per scan\n")
	if r.S3Status != "ok" {
		fmt.Fprintln(w, "   "+r.S3Status)
	} else {
		printRequestRuns(w, r.Requests)
		fmt.Fprintln(w, "(proxy: every request, metadata and footers included; floe: its metrics' requests and bytes of data files.")
		fmt.Fprintln(w, " per-chunk is coalesce_gap -1: one request per column chunk)")
		for _, s := range r.Scans {
			if v, ok := r.Ratios["requests per-chunk/coalesced "+s.Name]; ok {
				fmt.Fprintf(w, "requests per-chunk / coalesced, %-8s = %s\n", s.Name, v)
			}
		}
	}

	r.printStores(w)

	fmt.Fprintf(w, "\n2. S3 with %.0f ms added to every request: the same S3 table (committed with S3 paths), default concurrency, wall s best of %d\n", r.DelayMs, r.Repeat)
	if r.S3Status != "ok" {
		fmt.Fprintln(w, "   "+r.S3Status)
	} else {
		fmt.Fprintf(w, "%-9s %-11s %8s %8s %9s %10s %16s  %s\n", "scan", "peer", "wall s", "CPU s", "requests", "rows", "sum(l_partkey)", "status")
		for _, run := range r.Latency {
			if run.Status != "ok" && !strings.HasPrefix(run.Status, "WRONG") {
				fmt.Fprintf(w, "%-9s %-11s %8s %8s %9s %10s %16s  %s\n", run.Scan, run.Peer, "-", "-", "-", "-", "-", run.Status)
				continue
			}
			fmt.Fprintf(w, "%-9s %-11s %8.3f %8.3f %9d %10d %16d  %s\n", run.Scan, run.Peer, run.WallSeconds, run.CPUSeconds, run.Requests,
				run.Result.Rows, run.Result.SumPartKey, shortStatus(run.Status))
		}
		for _, s := range r.Scans {
			if v, ok := r.Ratios["wall iceberg-go/floe "+s.Name]; ok {
				fmt.Fprintf(w, "wall iceberg-go / floe, %-8s = %s\n", s.Name, v)
			}
		}
	}

	fmt.Fprintf(w, "\n3. local disk, full scan, wall s best of %d rounds, 1 and 2 threads alternating within each\n", max(r.Repeat, threadRounds))
	fmt.Fprintf(w, "%-10s %8s %8s %8s %10s  %s\n", "batches", "threads", "wall s", "CPU s", "cores busy", "status")
	for _, run := range r.Threads {
		busy := 0.0
		if run.WallSeconds > 0 {
			busy = run.CPUSeconds / run.WallSeconds
		}
		fmt.Fprintf(w, "%-10s %8d %8.3f %8.3f %10.2f  %s\n", orderName(run.Ordered), run.Threads, run.WallSeconds, run.CPUSeconds, busy, shortStatus(run.Status))
	}
	fmt.Fprintln(w, "(cores busy: CPU s / wall s of the process; well under 2 with 2 threads means they did not get two cores, or waited)")
	if len(r.MachineSpeedup) > 0 {
		var parts []string
		for _, m := range r.MachineSpeedup {
			parts = append(parts, fmt.Sprintf("%.2f×", m))
		}
		fmt.Fprintf(w, "machine: two goroutines spinning on arithmetic ran %s faster than one (before, after the runs; 2.00× on two idle cores)\n",
			strings.Join(parts, ", "))
	}
	for _, ordered := range []bool{true, false} {
		if v, ok := r.Ratios["speed-up 1/2 threads "+orderName(ordered)]; ok {
			fmt.Fprintf(w, "speed-up 1 → 2 threads, %-9s = %s\n", orderName(ordered), v)
		}
	}

	if p := r.Processes; p != nil {
		fmt.Fprintf(w, "\n4. processes: a full scan of every column planned once, split size %s → %d tasks in %d task groups, serialised to files and shared round-robin by %d worker processes\n",
			bytesText(uint64(p.SplitSize)), p.Tasks, p.Groups, len(p.Workers))
		fmt.Fprintf(w, "%-16s %7s %10s %18s %18s %8s\n", "", "groups", "rows", "sum(l_partkey)", "row hash", "wall s")
		fmt.Fprintf(w, "%-16s %7d %10d %18d %18x %8.3f\n", "single process", p.Groups, p.Single.Rows, p.Single.SumPartKey, p.Single.Hash, p.SingleWallSeconds)
		for i, wr := range p.Workers {
			fmt.Fprintf(w, "%-16s %7d %10d %18d %18x %8.3f\n", fmt.Sprintf("worker %d", i+1), wr.Groups, wr.Digest.Rows, wr.Digest.SumPartKey, wr.Digest.Hash, wr.WallSeconds)
		}
		fmt.Fprintf(w, "%-16s %7d %10d %18d %18x %8.3f\n", "workers together", p.Groups, p.Combined.Rows, p.Combined.SumPartKey, p.Combined.Hash, p.WorkersWallSeconds)
		fmt.Fprintf(w, "%-16s %7s %10d %18d %18s\n", "generator", "", p.Expected.Rows, p.Expected.SumPartKey, "")
		fmt.Fprintln(w, "(row hash: every value of a row mixed into one hash, the hashes added, so order does not matter; workers' wall")
		fmt.Fprintln(w, " is their own reading; \"workers together\" is from starting them to the last reply)")
		fmt.Fprintln(w, "→ "+p.Status)
	}

	if len(r.Targets) > 0 {
		fmt.Fprintln(w, "\nio targets:")
		for _, t := range r.Targets {
			fmt.Fprintln(w, "  "+t)
		}
	}
	for _, p := range r.Problems {
		fmt.Fprintln(w, "PROBLEM: "+p)
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printRequestRuns is part 1's table of runs, for S3 and the other stores.
func printRequestRuns(w io.Writer, runs []ioRequestRun) {
	fmt.Fprintf(w, "%-9s %-10s %9s %12s %9s %12s %8s  %s\n", "scan", "fetch", "proxy req", "proxy bytes", "floe req", "floe bytes", "wall s", "status")
	for _, run := range runs {
		fmt.Fprintf(w, "%-9s %-10s %9d %12s %9d %12s %8.3f  %s\n", run.Scan, run.Fetch, run.ProxyRequests, bytesText(uint64(run.ProxyBytes)),
			run.FloeRequests, bytesText(uint64(run.FloeBytesRead)), run.WallSeconds, shortStatus(run.Status))
	}
}
