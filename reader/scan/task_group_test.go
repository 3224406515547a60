package scan

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/testtable"
)

// readTaskGroups reads every group after a serialisation round trip, in
// order, returning the rows group by group.
func readTaskGroups(t *testing.T, groups []*TaskGroup, files fileio.FileIO, mem memory.Allocator) [][]idPos {
	t.Helper()
	var out [][]idPos
	for _, g := range groups {
		raw, err := g.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		again, err := UnmarshalTaskGroup(raw)
		if err != nil {
			t.Fatal(err)
		}
		rr, err := again.Reader(context.Background(), files, mem, ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, flatten(collect(t, rr)))
	}
	return out
}

// Small files are packed, in plan order, into groups no heavier than the
// split size (a file weighing at least the open-file cost); the groups
// read the scan's rows in the scan's order.
func TestPackingSmallFiles(t *testing.T) {
	_, tbl := splitTable(t, testtable.Options{Rows: testtable.RandomRows(17, 3000), RowsPerFile: 100, RowsPerRowGroup: 50, Manifests: 3})
	ctx := context.Background()
	opts := Options{Columns: []string{"id", "_pos"}, Threads: 1}
	serial, err := New(ctx, tbl, opts)
	if err != nil {
		t.Fatal(err)
	}
	rr, err := serial.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	want := flatten(collect(t, rr))
	if len(serial.Tasks()) != 30 || len(want) != 3000 {
		t.Fatalf("%d tasks and %d rows, want 30 files of 100 rows", len(serial.Tasks()), len(want))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	cases := []struct {
		name       string
		splitSize  int64
		properties map[string]string
		sizes      []int // files per group
	}{
		// 30 files of 4 MiB (the open-file cost) fit in 128 MiB.
		{"defaults", 0, nil, []int{30}},
		{"split_size", 3 * DefaultOpenFileCost, nil, slices.Repeat([]int{3}, 10)},
		{"table properties", 0, map[string]string{propSplitSize: "8000000", propOpenFileCost: "1000000"}, []int{8, 8, 8, 6}},
		{"split_size over the property", 2 * DefaultOpenFileCost, map[string]string{propSplitSize: "1"}, slices.Repeat([]int{2}, 15)},
		{"a split size of the open-file cost", DefaultOpenFileCost, nil, slices.Repeat([]int{1}, 30)},
	}
	for _, c := range cases {
		saved := tbl.Metadata.Properties
		tbl.Metadata.Properties = c.properties
		o := opts
		o.SplitSize = c.splitSize
		s, err := New(ctx, tbl, o)
		tbl.Metadata.Properties = saved
		if err != nil {
			t.Fatal(err)
		}
		groups := s.TaskGroups()
		var sizes []int
		var order []*Task
		for _, g := range groups {
			sizes = append(sizes, len(g.Tasks))
			order = append(order, g.Tasks...)
		}
		if !slices.Equal(sizes, c.sizes) {
			t.Errorf("%s: groups of %v files, want %v", c.name, sizes, c.sizes)
		}
		if !slices.Equal(order, s.Tasks()) {
			t.Errorf("%s: the groups do not hold the tasks in plan order", c.name)
		}
		if got := flatten(readTaskGroups(t, groups, tbl.IO, mem)); !slices.Equal(got, want) {
			t.Errorf("%s: the groups read %d rows, not the scan's %d in its order", c.name, len(got), len(want))
		}
	}
	tbl.Metadata.Properties = map[string]string{propSplitSize: "big"}
	if _, err := New(ctx, tbl, opts); err == nil || !strings.Contains(err.Error(), propSplitSize) {
		t.Errorf("a bad %s gave %v", propSplitSize, err)
	}
}

// Packing never lets a group's weight pass the split size, except a task
// alone, and keeps plan order.
func TestPackTasksWeights(t *testing.T) {
	sizes := []int64{10, 50, 45, 200, 5, 5, 5, 99, 100, 1}
	tasks := make([]*Task, len(sizes))
	for i, n := range sizes {
		tasks[i] = &Task{FileSize: n}
	}
	starts := packTasks(tasks, 100, 10)
	if want := []int{0, 2, 3, 4, 7, 8, 9}; !slices.Equal(starts, want) {
		t.Errorf("groups start at %v, want %v", starts, want)
	}
	// A split weighs its length, not its file's size.
	split := []*Task{{FileSize: 1000, Start: 0, Length: 40}, {FileSize: 1000, Start: 40, Length: 40}}
	if got := packTasks(split, 100, 10); !slices.Equal(got, []int{0}) {
		t.Errorf("two 40-byte splits of a 1000-byte file start groups at %v, want one group", got)
	}
}

// A serialised group is versioned: other versions, empty groups and
// malformed tasks are refused; a bare serialised task, of this version
// or the one before byte ranges, reads as a group of one.
func TestTaskGroupSerialisation(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, SplitSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	// Three splits of the first file.
	group := &TaskGroup{Tasks: s.Tasks()[:3]}
	raw, err := group.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || string(fields["group_version"]) != "1" {
		t.Fatalf("serialised group %s: want group_version 1 (%v)", raw, err)
	}
	g, err := UnmarshalTaskGroup(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Tasks) != 3 || g.Tasks[1].Path != g.Tasks[0].Path || g.Tasks[1].Start != 256 || g.Tasks[1].Length != 256 {
		t.Errorf("round trip changed the group: %d tasks, second at %d+%d", len(g.Tasks), g.Tasks[1].Start, g.Tasks[1].Length)
	}
	task := s.Tasks()[0]
	bare, err := task.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	if g, err := UnmarshalTaskGroup(bare); err != nil || len(g.Tasks) != 1 || g.Tasks[0].Path != task.Path {
		t.Errorf("a bare task read as a group: %v", err)
	}
	whole := *task
	whole.Start, whole.Length, whole.Version = 0, 0, 1
	v1, _ := whole.MarshalBinary()
	v1 = bytes.Replace(bytes.Replace(v1, []byte(`"start":0,`), nil, 1), []byte(`"length":0,`), nil, 1)
	if bytes.Contains(v1, []byte(`"start"`)) {
		t.Fatalf("could not remove start from %s", v1)
	}
	if g, err := UnmarshalTaskGroup(v1); err != nil || g.Tasks[0].Length != 0 {
		t.Errorf("a version 1 task (a whole file) is refused: %v", err)
	}
	taskJSON := string(bare)
	for name, data := range map[string]string{
		"group version 2":        `{"group_version": 2, "tasks": [` + taskJSON + `]}`,
		"no task":                `{"group_version": 1, "tasks": []}`,
		"tasks without version":  `{"tasks": [` + taskJSON + `]}`,
		"task version 3":         `{"group_version": 1, "tasks": [` + strings.Replace(taskJSON, `"version":2`, `"version":3`, 1) + `]}`,
		"negative start":         badRange(t, task, -5, 0),
		"negative length":        badRange(t, task, 0, -5),
		"range past int64":       badRange(t, task, math.MaxInt64-100, 9000),
		"trailing garbage":       `{"group_version": 1, "tasks": [` + taskJSON + `]} x`,
		"a task that is no task": `{"group_version": 1, "tasks": [3]}`,
		"truncated":              string(raw[:len(raw)/2]),
	} {
		if _, err := UnmarshalTaskGroup([]byte(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	// Tasks projecting different schemas cannot share a stream.
	other, err := New(ctx, tbl, Options{Columns: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	mixed := &TaskGroup{Tasks: []*Task{s.Tasks()[0], other.Tasks()[0]}}
	if _, err := mixed.Reader(ctx, tbl.IO, memory.DefaultAllocator, ReadOptions{}); err == nil {
		t.Error("a group of tasks with different schemas opened")
	}
}

// Splits of a real table with position deletes (its manifests list no
// split offsets, so the ranges are fixed; one row group per file, so one
// range of each file reads it), read as serialised groups, give the rows
// and file positions Impala's tests assert (INDEX.md).
func TestSplitGroupsOnFixture(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tbl, err := table.Open(ctx, fx.Dir, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos"}, SplitSize: 256})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(s.Tasks()); n < 12 {
		t.Fatalf("%d tasks for 3 files of about 1200 bytes at split size 256", n)
	}
	if n := len(s.TaskGroups()); n != len(s.Tasks()) {
		t.Errorf("%d groups of %d tasks: at a split size below the open-file cost each task is a group", n, len(s.Tasks()))
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var ids []string
	positions := map[int64]int64{}
	for _, r := range flatten(readTaskGroups(t, s.TaskGroups(), tbl.IO, mem)) {
		ids = append(ids, fmt.Sprint(r.id))
		positions[r.id] = r.pos
	}
	slices.Sort(ids)
	if want := []string{"10", "12", "14", "16", "18", "2", "20", "4", "6", "8"}; !slices.Equal(ids, want) {
		t.Errorf("ids %v, want %v", ids, want)
	}
	// action=view keeps ids 6, 20 and 4 at positions 0, 3 and 7.
	if positions[6]+positions[20]+positions[4] != 10 || positions[4] == positions[6] {
		t.Errorf("view positions %d, %d, %d; want 0, 3, 7 in some order", positions[6], positions[20], positions[4])
	}
	// lineitem's manifest lists one split offset: its one row group is not
	// cut, whatever the split size.
	lfx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Fatal(err)
	}
	ltbl, err := table.Open(ctx, lfx.Dir, table.Options{LocationMap: lfx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := New(ctx, ltbl, Options{Columns: []string{"l_orderkey", "_pos"}, SplitSize: 64 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(ls.Tasks()) != 1 || ls.Tasks()[0].Length != 0 {
		t.Fatalf("lineitem: %d tasks, want its one file whole", len(ls.Tasks()))
	}
	if n := len(flatten(readTaskGroups(t, ls.TaskGroups(), ltbl.IO, mem))); n != 51793 {
		t.Errorf("lineitem: %d rows, want 51793", n)
	}
}

// badRange is task serialised with a byte range no planner makes.
func badRange(t *testing.T, task *Task, start, length int64) string {
	c := *task
	c.Start, c.Length = start, length
	raw, err := c.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// childGroupEnv names the file of a serialised group a child process
// reads (TestTaskGroupChildProcess) and childOutEnv where it writes rows.
const (
	childGroupEnv = "FLOE_TEST_TASK_GROUP"
	childOutEnv   = "FLOE_TEST_TASK_GROUP_OUT"
)

// TestTaskGroupChildProcess is the other process of
// TestTaskGroupInAnotherProcess: it reads a serialised group with nothing
// but its bytes, and writes the rows it got as JSON.
func TestTaskGroupChildProcess(t *testing.T) {
	path := os.Getenv(childGroupEnv)
	if path == "" {
		t.Skip("run by TestTaskGroupInAnotherProcess")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	g, err := UnmarshalTaskGroup(raw)
	if err != nil {
		t.Fatal(err)
	}
	files, err := fileio.ForLocation(g.Tasks[0].Path, fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := g.Reader(context.Background(), files, memory.DefaultAllocator, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][3]int64
	for _, r := range flatten(collect(t, rr)) {
		rows = append(rows, [3]int64{r.id, r.pos, r.rowID})
	}
	out, _ := json.Marshal(rows)
	if err := os.WriteFile(os.Getenv(childOutEnv), out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A serialised group read by another process returns what it returns in
// this one: splits of a file with position deletes, and packed files.
func TestTaskGroupInAnotherProcess(t *testing.T) {
	if os.Getenv(childGroupEnv) != "" {
		t.Skip("in the child")
	}
	_, tbl := splitTable(t, testtable.Options{Rows: testtable.RandomRows(19, 2400), RowsPerFile: 800, RowsPerRowGroup: 100, Manifests: 1})
	ctx := context.Background()
	s, err := New(ctx, tbl, Options{Columns: []string{"id", "_pos", "_row_id"}, SplitSize: 2 * DefaultOpenFileCost})
	if err != nil {
		t.Fatal(err)
	}
	// Split the first file into row-group ranges by hand (its file is far
	// smaller than any sensible split size) and pack the others in.
	first := s.Tasks()[0]
	tasks := append(splitTask(first, splitOffsetsOf(t, tbl, first.WrittenPath), first.FileSize/3), s.Tasks()[1:]...)
	group := &TaskGroup{Tasks: tasks}
	raw, err := group.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	rr, err := group.Reader(ctx, tbl.IO, memory.DefaultAllocator, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want [][3]int64
	for _, r := range flatten(collect(t, rr)) {
		want = append(want, [3]int64{r.id, r.pos, r.rowID})
	}
	if len(want) != 2400 || len(tasks) < 5 {
		t.Fatalf("%d rows in %d tasks in this process", len(want), len(tasks))
	}
	dir := t.TempDir()
	groupPath, outPath := filepath.Join(dir, "group.json"), filepath.Join(dir, "rows.json")
	if err := os.WriteFile(groupPath, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestTaskGroupChildProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), childGroupEnv+"="+groupPath, childOutEnv+"="+outPath)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child process: %v\n%s", err, out)
	}
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var got [][3]int64
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, want) {
		t.Errorf("the other process read %d rows, this one %d, or in another order", len(got), len(want))
	}
}
