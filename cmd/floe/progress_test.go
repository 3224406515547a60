package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/progress"
)

func TestStatusLineRendering(t *testing.T) {
	s := &statusLine{verb: "scan", noun: "files"}
	p := progress.Sample{Files: 3, FilesTotal: 12, Bytes: 45_200_000, BytesTotal: 180_000_000, Rows: 1_200_000}
	got := s.render(p, 10*time.Second, false)
	// 45.2 of 180 MB in 10 s: 4.5 MB/s, and 134.8 MB left at that rate is
	// 29.8 s.
	want := "scan: 3/12 files · 45.2 MB of 180.0 MB · 1.2 M rows · 4.5 MB/s · 0:30 left"
	if got != want {
		t.Errorf("render:\n got %q\nwant %q", got, want)
	}
	if got := s.render(p, 10*time.Second, true); got != "scan: 3/12 files · 45.2 MB of 180.0 MB · 1.2 M rows · in 10.0 s" {
		t.Errorf("final: %q", got)
	}
	// Rows with a known total give the time left when bytes do not.
	a := &statusLine{verb: "append", noun: "files"}
	if got := a.render(progress.Sample{Rows: 25_000, RowsTotal: 100_000}, 2*time.Second, false); got != "append: 25.0 k of 100.0 k rows · 12.5 k rows/s · 0:06 left" {
		t.Errorf("append: %q", got)
	}
	// No time left in the first second, when it is mostly noise.
	if got := a.render(progress.Sample{Rows: 10, RowsTotal: 100}, 500*time.Millisecond, false); strings.Contains(got, "left") {
		t.Errorf("early estimate: %q", got)
	}
}

// On a terminal the line is redrawn in place: a carriage return, the new
// text, blanks over what a longer earlier line left, and a newline after
// the final figures.
func TestStatusLineRedrawsInPlace(t *testing.T) {
	var buf bytes.Buffer
	s := &statusLine{w: &buf, terminal: true, verb: "expire", noun: "files deleted", stop: make(chan struct{}), start: time.Now()}
	n := int64(0)
	s.sample = func() progress.Sample { return progress.Sample{Files: n, FilesTotal: 120} }
	s.draw("expire: a much longer line than the next")
	s.draw("expire: short")
	n = 120
	s.finished.Do(s.end)
	s.finish() // a second call does nothing
	out := buf.String()
	want := "\rexpire: a much longer line than the next" + "\rexpire: short" + strings.Repeat(" ", 27) + "\rexpire: 120/120 files deleted · in "
	// Padding counts characters: "·" is one.
	if !strings.HasPrefix(out, want) || !strings.HasSuffix(out, " s\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("terminal output %q", out)
	}
}

func quickProgress(t *testing.T) {
	t.Helper()
	old := progressLinesEvery
	progressLinesEvery = time.Millisecond
	t.Cleanup(func() { progressLinesEvery = old })
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

// scan --output with --progress off a terminal writes status lines to
// stderr, ending with the totals; without --progress (stderr here is not a
// terminal) or with --quiet it writes none.
func TestScanToFileProgress(t *testing.T) {
	quickProgress(t)
	fx, err := fixtures.Get("impala_iceberg_partitioned")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "rows.csv")
	args := append([]string{"scan", fx.Dir, "--output", out}, mapArgs(fx)...)
	status, _, errOut := runCLI(t, append(args, "--progress")...)
	if status != 0 {
		t.Fatalf("scan: %s", errOut)
	}
	if last := lastLine(errOut); !strings.HasPrefix(last, "scan: 20/20 files · ") || !strings.Contains(last, " · 20 rows · in ") {
		t.Errorf("final status line %q (all of stderr: %q)", last, errOut)
	}
	if st, err := os.Stat(out); err != nil || st.Size() == 0 {
		t.Fatalf("no output: %v", err)
	}
	for _, extra := range [][]string{nil, {"--quiet", "--progress"}} {
		status, _, errOut = runCLI(t, append(args, extra...)...)
		if status != 0 || errOut != "" {
			t.Errorf("scan %v: status %d, stderr %q, want nothing", extra, status, errOut)
		}
	}
	// Scanning to stdout never draws: the line would land among the data.
	status, _, errOut = runCLI(t, append([]string{"scan", fx.Dir, "--progress"}, mapArgs(fx)...)...)
	if status != 0 || errOut != "" {
		t.Errorf("scan to stdout: status %d, stderr %q", status, errOut)
	}
}

func TestAppendAddFilesExpireProgress(t *testing.T) {
	quickProgress(t)
	warehouse := t.TempDir()
	t.Setenv("FLOE_WAREHOUSE", warehouse)
	src := lineitemFile(t)
	wantRows, _ := parquetOrderKeys(t, src)

	run := func(args ...string) (string, string) {
		t.Helper()
		status, out, errOut := runCLI(t, append(args, "--progress")...)
		if status != 0 {
			t.Fatalf("floe %v: %s", args, errOut)
		}
		return out, errOut
	}
	_, errOut := run("append", "tpch.lineitem", src)
	want := fmt.Sprintf("append: %s of %s rows · in ", count(wantRows), count(wantRows))
	if !strings.HasPrefix(lastLine(errOut), want) {
		t.Errorf("append: last status line %q, want it to start %q", lastLine(errOut), want)
	}
	run("append", "tpch.lineitem", src)

	// add-files: the table's own data files, registered in a second table.
	files, _ := filepath.Glob(filepath.Join(warehouse, "tpch", "lineitem", "data", "*.parquet"))
	if len(files) == 0 {
		t.Fatal("no data files")
	}
	var size int64
	for _, f := range files {
		st, _ := os.Stat(f)
		size += st.Size()
	}
	mustRun(t, "create", "tpch.copy", "--schema", schemaFileOf(t, filepath.Join(warehouse, "tpch", "lineitem")))
	_, errOut = run(append([]string{"add-files", "tpch.copy"}, files...)...)
	want = fmt.Sprintf("add-files: %d/%d files · %s · %s rows · in ", len(files), len(files), byteSize(size), count(2*wantRows))
	if !strings.HasPrefix(lastLine(errOut), want) {
		t.Errorf("add-files: last status line %q, want it to start %q", lastLine(errOut), want)
	}

	out, errOut := run("expire", "tpch.lineitem", "--older-than", "0d", "--retain-last", "1")
	var expired, deleted int
	if _, err := fmt.Sscanf(out, "expired %d snapshots, deleted %d files", &expired, &deleted); err != nil || deleted == 0 {
		t.Fatalf("expire output %q: %v", out, err)
	}
	want = fmt.Sprintf("expire: %d/%d files deleted · in ", deleted, deleted)
	if !strings.HasPrefix(lastLine(errOut), want) {
		t.Errorf("expire: last status line %q, want it to start %q", lastLine(errOut), want)
	}
}

// schemaFileOf writes the current schema of the table at dir to a file
// for create.
func schemaFileOf(t *testing.T, dir string) string {
	t.Helper()
	tbl, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := tbl.Metadata.CurrentSchema().MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "schema.json")
	writeTestFile(t, path, string(raw))
	return path
}
