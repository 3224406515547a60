package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// jsonRows is a reader's rows, each as the JSON of its values: every
// column compared, nested ones whole.
func jsonRows(t *testing.T, rr array.RecordReader) []string {
	t.Helper()
	out, err := rowStrings(rr)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// rowStrings is jsonRows for any goroutine.
func rowStrings(rr array.RecordReader) ([]string, error) {
	defer rr.Release()
	var out []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			row := make([]any, rec.NumCols())
			for c := range row {
				row[c] = rec.Column(c).GetOneForMarshal(i)
			}
			b, err := json.Marshal(row)
			if err != nil {
				return nil, err
			}
			out = append(out, string(b))
		}
	}
	return out, rr.Err()
}

// taskRows reads every task after a trip through bytes, in order, from
// the table's FileIO alone, checking the allocator is left empty.
func taskRows(t *testing.T, tbl *table.Table, tasks []*Task) ([]string, *arrow.Schema) {
	t.Helper()
	var out []string
	var schema *arrow.Schema
	for i, task := range tasks {
		b, err := task.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if !IsTask(b) {
			t.Fatalf("task %d: IsTask says no to %s", i, b)
		}
		back, err := UnmarshalTask(b)
		if err != nil {
			t.Fatalf("task %d: %v\n%s", i, err, b)
		}
		mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
		rr, err := back.Reader(context.Background(), tbl.IO, mem)
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		if schema == nil {
			schema = rr.Schema()
		} else if !schema.Equal(rr.Schema()) {
			t.Fatalf("task %d has schema %s, task 0 %s", i, rr.Schema(), schema)
		}
		out = append(out, jsonRows(t, rr)...)
		mem.AssertSize(t, 0)
	}
	return out, schema
}

func openRows(t *testing.T, tbl *table.Table, kind Kind, opts Options) ([]string, *arrow.Schema) {
	t.Helper()
	rr, err := Open(context.Background(), tbl, kind, opts, nil)
	if err != nil {
		t.Fatal(err)
	}
	schema := rr.Schema()
	return jsonRows(t, rr), schema
}

// manifestKinds are the kinds PlanTasks divides.
var manifestKinds = []Kind{Files, DataFiles, DeleteFiles, AllFiles, AllDataFiles, AllDeleteFiles, Entries, AllEntries}

// On every fixture table, each kind of manifest entries planned a
// manifest per task (a task size of 1 byte) and read task by task, after
// a trip through bytes, gives Open's rows, every column, in Open's order;
// the tasks' manifests are those Open reads: every manifest of the
// current snapshot (or, for all_*, of any snapshot, each once) of the
// content the kind shows.
func TestTasksReadWhatOpenReads(t *testing.T) {
	all, err := fixtures.All()
	if err != nil {
		t.Fatal(err)
	}
	var multiTask, withDeletes, multiSnapshot int
	for _, f := range all {
		tbl := openFixture(t, f)
		for _, kind := range manifestKinds {
			tasks, err := PlanTasks(context.Background(), tbl, kind, Options{}, 1)
			if err != nil {
				// A manifest list gone (an expired snapshot's) fails the
				// plan as it fails Open.
				if openErr := readErr(tbl, kind); !errors.Is(err, errkind.NotFound) || !errors.Is(openErr, errkind.NotFound) {
					t.Fatalf("%s %s: %v", f.Name, kind, err)
				}
				t.Logf("%s %s: %v", f.Name, kind, err)
				continue
			}
			if want := wantManifests(t, tbl, kind); !slices.Equal(taskManifests(tasks), want) {
				t.Errorf("%s %s: tasks read manifests %v, want %v", f.Name, kind, taskManifests(tasks), want)
			}
			for _, task := range tasks {
				if len(task.Manifests) != 1 {
					t.Errorf("%s %s: a task of %d manifests with a task size of 1 byte", f.Name, kind, len(task.Manifests))
				}
			}
			want, wantSchema := openRows(t, tbl, kind, Options{})
			got, gotSchema := taskRows(t, tbl, tasks)
			if len(tasks) > 0 && !gotSchema.Equal(wantSchema) {
				t.Errorf("%s %s: tasks' schema %s, Open's %s", f.Name, kind, gotSchema, wantSchema)
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s %s: %d tasks read %d rows, Open %d; first difference %s", f.Name, kind, len(tasks), len(got), len(want), firstDiff(got, want))
				continue
			}
			if len(tasks) > 1 && len(want) > 0 {
				multiTask++
			}
			if kind == DeleteFiles && len(want) > 0 {
				withDeletes++
			}
			if kind == AllEntries && len(tbl.Metadata.Snapshots) > 1 && len(tasks) > 1 {
				multiSnapshot++
			}
		}
	}
	t.Logf("%d table kinds read in several tasks, %d tables with delete files, %d with several snapshots", multiTask, withDeletes, multiSnapshot)
	if multiTask < 10 || withDeletes < 3 || multiSnapshot < 3 {
		t.Errorf("the fixtures did not exercise tasks: %d multi-task reads, %d tables with deletes, %d with several snapshots", multiTask, withDeletes, multiSnapshot)
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("row %d:\n  %s\n  %s", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

func taskManifests(tasks []*Task) []string {
	var out []string
	for _, task := range tasks {
		for _, mf := range task.Manifests {
			out = append(out, mf.Path)
		}
	}
	return out
}

// wantManifests is the manifests kind reads, from the manifest lists
// read here: the current snapshot's, or every snapshot's each once, of
// the content kind shows.
func wantManifests(t *testing.T, tbl *table.Table, kind Kind) []string {
	t.Helper()
	data := kind != DeleteFiles && kind != AllDeleteFiles
	deletes := kind != DataFiles && kind != AllDataFiles
	snaps := []int64{}
	switch kind {
	case AllFiles, AllDataFiles, AllDeleteFiles, AllEntries:
		for _, s := range tbl.Metadata.Snapshots {
			snaps = append(snaps, s.SnapshotID)
		}
	default:
		if s := tbl.Metadata.CurrentSnapshot(); s != nil {
			snaps = append(snaps, s.SnapshotID)
		}
	}
	var out []string
	for _, id := range snaps {
		list, err := tbl.ManifestList(context.Background(), tbl.Metadata.SnapshotByID(id))
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range list {
			if slices.Contains(out, mf.Path) {
				continue
			}
			if mf.Content == manifest.ManifestContentData && data || mf.Content == manifest.ManifestContentDeletes && deletes {
				out = append(out, mf.Path)
			}
		}
	}
	return out
}

// Tasks of the default size pack a table's small manifests together (the
// fixtures' are kilobytes), and carry the read's columns, filter and
// limit: a filter on content keeps only the delete manifests, as Open's
// pruning does, and a limit bounds each task.
func TestTasksCarryTheRead(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	ctx := context.Background()

	tasks, err := PlanTasks(ctx, tbl, Files, Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	one, _ := PlanTasks(ctx, tbl, Files, Options{}, 1)
	if len(tasks) != 1 || len(one) < 2 || len(tasks[0].Manifests) != len(one) {
		t.Fatalf("default size: %d tasks; a task a manifest: %d", len(tasks), len(one))
	}

	opts := Options{Columns: []string{"file_path", "content", "record_count"}, Filter: mustPred(t, expr.OpEq, "content", int64(1))}
	tasks, err = PlanTasks(ctx, tbl, Files, opts, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) == 0 {
		t.Fatal("no task for the position delete files")
	}
	for _, task := range tasks {
		for _, mf := range task.Manifests {
			if mf.Content != manifest.ManifestContentDeletes {
				t.Errorf("a filter on content 1 planned data manifest %s", mf.Path)
			}
		}
	}
	want, wantSchema := openRows(t, tbl, Files, opts)
	got, gotSchema := taskRows(t, tbl, tasks)
	if len(want) == 0 || !slices.Equal(got, want) || !gotSchema.Equal(wantSchema) {
		t.Errorf("filtered and projected: tasks read %v (%s), Open %v (%s)", got, gotSchema, want, wantSchema)
	}

	// A limit of 1 is 1 row per task; the limit across tasks is the
	// caller's.
	entries, err := PlanTasks(ctx, tbl, Entries, Options{Limit: 1, Columns: []string{"status"}}, 1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = taskRows(t, tbl, entries)
	if len(entries) < 2 || len(got) != len(entries) {
		t.Errorf("limit 1: %d tasks read %d rows", len(entries), len(got))
	}
}

// What PlanTasks refuses: kinds that do not read manifest entries, and
// what Open refuses (a column the table lacks); bytes UnmarshalTask
// refuses are invalid arguments, and a scan's task is not an inspect one.
func TestTasksRefuse(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	ctx := context.Background()
	for _, k := range []Kind{Snapshots, Manifests, AllManifests, Partitions, PositionDeletes} {
		if _, err := PlanTasks(ctx, tbl, k, Options{}, 0); !errors.Is(err, errkind.Unsupported) {
			t.Errorf("%s: %v, want Unsupported", k, err)
		}
	}
	if _, err := PlanTasks(ctx, tbl, Files, Options{Columns: []string{"no_such"}}, 0); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("a bad column: %v", err)
	}
	tasks, err := PlanTasks(ctx, tbl, Files, Options{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := tasks[0].MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for name, change := range map[string]func(map[string]any){
		"version 2":     func(m map[string]any) { m["inspect_version"] = 2 },
		"no version":    func(m map[string]any) { delete(m, "inspect_version") },
		"no manifest":   func(m map[string]any) { m["manifests"] = []any{} },
		"unknown kind":  func(m map[string]any) { m["kind"] = "filez" },
		"unknown key":   func(m map[string]any) { m["extra"] = 1 },
		"bad filter":    func(m map[string]any) { m["filter"] = map[string]any{"type": "nope"} },
		"negative size": func(m map[string]any) { m["batch_size"] = -1 },
	} {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		change(c)
		bad, _ := json.Marshal(c)
		if _, err := UnmarshalTask(bad); !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: %v, want InvalidArgument", name, err)
		}
	}
	if IsTask([]byte(`{"version":2,"path":"x.parquet"}`)) || IsTask([]byte(`{"group_version":1,"tasks":[]}`)) || IsTask([]byte("not json")) {
		t.Error("IsTask says yes to a scan's task")
	}
}

func mustPred(t *testing.T, op expr.Op, name string, v any) expr.Expr {
	t.Helper()
	p, err := expr.NewPredicate(op, name, v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// readErr is what reading kind whole with Open fails with.
func readErr(tbl *table.Table, kind Kind) error {
	rr, err := Open(context.Background(), tbl, kind, Options{}, nil)
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
	}
	return rr.Err()
}

// Tasks read at the same time, straight from PlanTasks (sharing the
// table's schemas and specs, no trip through bytes), give Open's rows:
// a task's reader shares nothing it writes (go test -race).
func TestTasksReadInParallel(t *testing.T) {
	f, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Fatal(err)
	}
	tbl := openFixture(t, f)
	for _, kind := range []Kind{AllFiles, AllEntries} {
		tasks, err := PlanTasks(context.Background(), tbl, kind, Options{}, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(tasks) < 2 {
			t.Fatalf("%s: %d tasks", kind, len(tasks))
		}
		got := make([][]string, len(tasks))
		done := make(chan struct{})
		for i, task := range tasks {
			go func() {
				defer func() { done <- struct{}{} }()
				rr, err := task.Reader(context.Background(), tbl.IO, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if got[i], err = rowStrings(rr); err != nil {
					t.Error(err)
				}
			}()
		}
		for range tasks {
			<-done
		}
		want, _ := openRows(t, tbl, kind, Options{})
		if all := slices.Concat(got...); !slices.Equal(all, want) {
			t.Errorf("%s: parallel tasks read %d rows, Open %d", kind, len(all), len(want))
		}
	}
}
