package memlimit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

const (
	childEnv  = "FLOE_MEMLIMIT_CHILD" // "<table location>|<memory limit>"
	columns   = 4
	totalRows = 1 << 25 // 4 random longs a row: 1 GiB of values, incompressible
	limit     = 256 << 20
)

var schema = func() *iceberg.Schema {
	var fields []iceberg.NestedField
	for i := range columns {
		fields = append(fields, iceberg.NestedField{ID: i + 1, Name: fmt.Sprintf("c%d", i), Type: iceberg.LongType{}, Required: true})
	}
	return iceberg.NewSchema(0, fields)
}()

// randomRows hands out totalRows rows of random longs in batches.
type randomRows struct {
	schema *arrow.Schema
	rng    *rand.Rand
	left   int
	cur    arrow.RecordBatch
	sum    int64 // of column c0
}

func (r *randomRows) Schema() *arrow.Schema { return r.schema }
func (r *randomRows) Retain()               {}
func (r *randomRows) Err() error            { return nil }
func (r *randomRows) Record() arrow.RecordBatch {
	return r.cur
}
func (r *randomRows) RecordBatch() arrow.RecordBatch { return r.cur }
func (r *randomRows) Release() {
	if r.cur != nil {
		r.cur.Release()
		r.cur = nil
	}
}

func (r *randomRows) Next() bool {
	r.Release()
	if r.left == 0 {
		return false
	}
	n := min(r.left, 1<<20)
	r.left -= n
	cols := make([]arrow.Array, columns)
	for c := range cols {
		b := array.NewInt64Builder(memory.DefaultAllocator)
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = int64(r.rng.Uint64() >> 1)
			if c == 0 {
				r.sum += vals[i] % 1000
			}
		}
		b.AppendValues(vals, nil)
		cols[c] = b.NewArray()
		b.Release()
	}
	r.cur = array.NewRecordBatch(r.schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return true
}

// The table: one data file of one 1 GiB row group (uncompressed, so the
// column chunks on disk are as large as the values).
func hugeRowGroupTable(t *testing.T) (string, int64) {
	t.Helper()
	ctx := context.Background()
	loc := filepath.Join(t.TempDir(), "t")
	tbl, err := table.Create(ctx, nil, loc, schema, nil, nil, map[string]string{
		writer.PropCodec:          "uncompressed",
		writer.PropRowGroupSize:   strconv.Itoa(2 << 30),
		writer.PropTargetFileSize: strconv.Itoa(4 << 30),
		writer.PropDictSize:       "1",
	}, 2)
	if err != nil {
		t.Fatal(err)
	}
	as, err := arrowschema.ArrowSchema(schema.Fields)
	if err != nil {
		t.Fatal(err)
	}
	rows := &randomRows{schema: as, rng: rand.New(rand.NewPCG(1, 2)), left: totalRows}
	res, err := ops.Append(ctx, tbl, rows, table.CommitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Files) != 1 {
		t.Fatalf("%d data files, want 1", len(res.Files))
	}
	f, err := os.Open(strings.TrimPrefix(res.Files[0].FilePath, "file://"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.OpenFile(f, st.Size(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pf.RowGroups) != 1 || pf.RowGroups[0].TotalByteSize < 1<<30 {
		t.Fatalf("%d row groups, the first of %d bytes: not a 1 GiB row group", len(pf.RowGroups), pf.RowGroups[0].TotalByteSize)
	}
	return loc, rows.sum
}

// A scan of a table with a 1 GiB row group under a 256 MiB memory limit
// peaks under 256 MiB of RSS (the whole child process: Go runtime, test
// binary and scan). Without a limit the default window (64 MiB) still
// keeps it from holding the row group whole: under 1.5 GiB.
func TestScanStaysUnderMemoryLimit(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 1 GiB table")
	}
	loc, sum := hugeRowGroupTable(t)
	for _, memLimit := range []int64{limit, 0} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestScanChild$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|%d", childEnv, loc, memLimit))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child (memory limit %d): %v\n%s", memLimit, err, out)
		}
		var rows, gotSum, hwm int64
		line := ""
		for _, l := range strings.Split(string(out), "\n") {
			if i := strings.Index(l, "scanned "); i >= 0 {
				line = l[i:]
			}
		}
		if _, err := fmt.Sscanf(line, "scanned %d rows sum %d peak %d", &rows, &gotSum, &hwm); err != nil {
			t.Fatalf("child output %q: %v\n%s", line, err, out)
		}
		if rows != totalRows || gotSum != sum {
			t.Fatalf("memory limit %d: %d rows, sum %d; want %d, %d", memLimit, rows, gotSum, totalRows, sum)
		}
		t.Logf("1 GiB row group, memory limit %d MiB: peak RSS %d MiB", memLimit>>20, hwm>>20)
		if memLimit > 0 && hwm > memLimit {
			t.Errorf("peak RSS %d MiB over the %d MiB limit", hwm>>20, memLimit>>20)
		}
		if memLimit == 0 && hwm > 3<<29 {
			t.Errorf("without a limit, peak RSS %d MiB: the row group was held whole", hwm>>20)
		}
	}
}

// TestScanChild is the child side: it scans the table with the limit and
// prints the rows, a checksum and its peak RSS.
func TestScanChild(t *testing.T) {
	job := os.Getenv(childEnv)
	if job == "" {
		t.Skip("only run as a child process")
	}
	loc, limitText, _ := strings.Cut(job, "|")
	memLimit, _ := strconv.ParseInt(limitText, 10, 64)
	ctx := context.Background()
	tbl, err := table.Open(ctx, loc, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	s, err := scan.New(ctx, tbl, scan.Options{MemoryLimit: memLimit, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := s.Reader(ctx, memory.NewGoAllocator())
	if err != nil {
		t.Fatal(err)
	}
	var rows, sum int64
	for rr.Next() {
		rec := rr.RecordBatch()
		rows += rec.NumRows()
		for _, v := range rec.Column(0).(*array.Int64).Int64Values() {
			sum += v % 1000
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	rr.Release()
	fmt.Printf("scanned %d rows sum %d peak %d\n", rows, sum, peakRSS(t))
}

func peakRSS(t *testing.T) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			kb, _ := strconv.ParseInt(strings.Fields(l)[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}
