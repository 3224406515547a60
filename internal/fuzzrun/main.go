// Command fuzzrun runs every fuzz target of the module for a while and
// fails a target that barely ran: Go's fuzzer spends up to a minute
// minimising each new interesting input by default, and a target whose
// budget went to that (FuzzReadManifest ran 67 inputs in 45 s) or whose
// seeds make it stall proves nothing. So minimisation is capped (at 100
// executions per input), the
// executions of every target are printed, and fewer than -min-execs is a
// failure, like a crash.
//
//	go run ./internal/fuzzrun -fuzztime 10000x (make fuzz)
//	go run ./internal/fuzzrun -fuzztime 10m    (make fuzz-long FUZZTIME=10m)
//
// make fuzz gives each target a number of inputs rather than seconds: on
// a fresh 2-core CI machine, gathering the baseline coverage of the
// targets seeded with fixture files (FuzzOpenFile, FuzzDecode, FuzzVariant,
// the task decoders) took all of 5 s, and they ran no input at all.
//
// A failing input is what `go test -fuzz` writes under the package's
// testdata/fuzz/FuzzX/: checked in, it is a regression test every plain
// `go test` runs.
package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

type target struct {
	pkg, dir, name string
}

type outcome struct {
	target
	execs       int64
	interesting int64
	elapsed     time.Duration
	err         string
}

var fuzzFunc = regexp.MustCompile(`(?m)^func (Fuzz[A-Za-z0-9_]*)\(`)

// The fuzzer's status lines: "fuzz: elapsed: 5s, execs: 39432 (7886/sec),
// new interesting: 2 (total: 10)". The elapsed time is a rounded
// time.Duration, so past a minute it reads "1m3s" or "1h0m2s".
var statusLine = regexp.MustCompile(`fuzz: elapsed: ((?:\d+h)?(?:\d+m)?\d+s), execs: (\d+) .*?new interesting: (\d+)`)

func main() {
	fuzztimeFlag := flag.String("fuzztime", "10000x", "how long each target fuzzes: a duration (10m), or a number of inputs (2000x)")
	// A count, not a time: each minimising execution of a large input
	// (a manifest) is slow, so a 2 s cap still let FuzzReadManifest spend
	// most of 5 s minimising two inputs (267 executions); with 100x it ran
	// 28 k in 8 s.
	minimize := flag.String("fuzzminimizetime", "100x", "cap on minimising one interesting input (a count Nx or a duration)")
	// 200 a second: the slowest target (kernels' FuzzSelectAndTake) ran
	// 700 a second while the machine was busy with other work, the
	// stalled ones ran under 25.
	minRate := flag.Float64("min-rate", 200, "a target that ran fewer inputs than this many per second of -fuzztime fails")
	match := flag.String("run", "", "only targets whose package/name contains this")
	flag.Parse()

	targets, err := listTargets(*match)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzrun:", err)
		os.Exit(2)
	}
	budget, err := parseBudget(*fuzztimeFlag)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fuzzrun:", err)
		os.Exit(2)
	}
	minExecs := budget.execs
	if budget.execs == 0 {
		minExecs = int64(*minRate * budget.time.Seconds())
	}
	var results []outcome
	failed := 0
	for _, t := range targets {
		fmt.Printf("fuzz %s %s (%s) ", t.pkg, t.name, *fuzztimeFlag)
		o := runTarget(t, budget, *minimize)
		if o.err == "" && o.execs < minExecs {
			o.err = fmt.Sprintf("ran %d inputs, fewer than the minimum %d: stalled, or the budget went to minimisation", o.execs, minExecs)
		}
		if o.err != "" {
			failed++
			fmt.Printf("FAIL\n%s\n", indent(o.err))
		} else {
			fmt.Printf("%d execs (%.0f/s), %d new interesting\n", o.execs, float64(o.execs)/o.elapsed.Seconds(), o.interesting)
		}
		results = append(results, o)
	}
	summary(results)
	fmt.Printf("fuzz: %d passed, %d failed\n", len(results)-failed, failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// listTargets finds every Fuzz function in the module's test files.
func listTargets(match string) ([]target, error) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Dir}}", "./...").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	var targets []target
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		pkg, dir, _ := strings.Cut(sc.Text(), " ")
		files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
		sort.Strings(files)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
				t := target{pkg: pkg, dir: dir, name: string(m[1])}
				if match == "" || strings.Contains(pkg+"/"+t.name, match) {
					targets = append(targets, t)
				}
			}
		}
	}
	return targets, nil
}

// compileAllowance is how long a target may take beyond its -fuzztime
// before it counts as hung.
const compileAllowance = 12 * time.Minute

// runTarget fuzzes one target. Go's coordinator sometimes misses its own
// deadline with no failing input ("context deadline exceeded"): that run
// is tried once more rather than counted as a finding.
func runTarget(t target, budget budget, minimize string) outcome {
	o := outcome{target: t}
	for attempt := 1; attempt <= 2; attempt++ {
		// The allowance covers compiling the target's package with the
		// fuzzer's instrumentation, which the first target of a fresh CI
		// machine does for every dependency: FuzzCatalogProperties (capi:
		// AWS, GCS and Azure clients) fuzzed for 22 s, printed PASS and was
		// still killed at 3 minutes.
		ctx, cancel := context.WithTimeout(context.Background(), budget.time+compileAllowance)
		cmd := exec.CommandContext(ctx, "go", "test", "-run=NONE", "-fuzz=^"+t.name+"$",
			"-fuzztime="+budget.flag, "-fuzzminimizetime="+minimize, t.pkg)
		var buf bytes.Buffer
		cmd.Stdout, cmd.Stderr = &buf, &buf
		// Killed at its deadline, go test may leave the test binary
		// holding the output open; stop waiting for it.
		cmd.WaitDelay = 10 * time.Second
		start := time.Now()
		err := cmd.Run()
		cancel()
		log := buf.String()
		o.elapsed = time.Since(start)
		o.execs, o.interesting, o.elapsed = lastStatus(log, o.elapsed)
		switch {
		case err == nil:
			o.err = ""
			return o
		case strings.Contains(log, "Failing input written"):
			o.err = log
			return o
		case strings.Contains(log, "context deadline exceeded") && attempt == 1:
			fmt.Print("(the coordinator missed its deadline; again) ")
			continue
		default:
			// The exit itself too: a run killed at its deadline after
			// PASS shows nothing else.
			o.err = log + fmt.Sprintf("go test: %v after %v\n", err, time.Since(start).Round(time.Second))
			return o
		}
	}
	return o
}

// lastStatus reads the final status line's executions and new inputs;
// its elapsed seconds, when given, replace the wall time (which includes
// compiling the test binary).
func lastStatus(log string, wall time.Duration) (execs, interesting int64, elapsed time.Duration) {
	elapsed = wall
	for _, m := range statusLine.FindAllStringSubmatch(log, -1) {
		d, _ := time.ParseDuration(m[1])
		execs, _ = strconv.ParseInt(m[2], 10, 64)
		interesting, _ = strconv.ParseInt(m[3], 10, 64)
		if d > 0 {
			elapsed = d
		}
	}
	return execs, interesting, elapsed
}

func summary(results []outcome) {
	fmt.Println()
	fmt.Printf("%-34s %-26s %12s %10s %6s  %s\n", "package", "target", "execs", "per sec", "new", "result")
	for _, o := range results {
		result := "ok"
		if o.err != "" {
			result = "FAIL"
		}
		fmt.Printf("%-34s %-26s %12d %10.0f %6d  %s\n", strings.TrimPrefix(o.pkg, "github.com/floedb/floe/"), o.name,
			o.execs, float64(o.execs)/max(o.elapsed.Seconds(), 1), o.interesting, result)
	}
	fmt.Println()
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > 60 {
		lines = append(lines[:20], append([]string{"  …"}, lines[len(lines)-40:]...)...)
	}
	return "  " + strings.Join(lines, "\n  ")
}

// budget is -fuzztime: a number of inputs (execs, "2000x") or a time.
type budget struct {
	flag  string
	execs int64
	time  time.Duration
}

func parseBudget(v string) (budget, error) {
	if n, ok := strings.CutSuffix(v, "x"); ok {
		execs, err := strconv.ParseInt(n, 10, 64)
		if err != nil || execs <= 0 {
			return budget{}, fmt.Errorf("-fuzztime %q: a number of inputs is written 2000x", v)
		}
		return budget{flag: v, execs: execs}, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return budget{}, fmt.Errorf("-fuzztime %q: give a duration (10m) or a number of inputs (2000x)", v)
	}
	return budget{flag: v, time: d}, nil
}
