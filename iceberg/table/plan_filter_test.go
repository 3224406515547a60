package table

import (
	"bytes"
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/parquet-go/parquet-go"
)

// fileRows reads a data file's rows with parquet-go, as an independent
// account of what each file holds: top-level column name → physical value
// (int32, int64, float32, float64, bool or []byte; nil for null).
func fileRows(t *testing.T, tbl *Table, path string) []map[string]any {
	t.Helper()
	data, err := tbl.IO.ReadFile(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	columns := pf.Schema().Columns()
	var out []map[string]any
	for _, rg := range pf.RowGroups() {
		rows := rg.Rows()
		buf := make([]parquet.Row, 16)
		for {
			n, err := rows.ReadRows(buf)
			for _, row := range buf[:n] {
				m := map[string]any{}
				for _, v := range row {
					name := columns[v.Column()][0]
					switch {
					case v.IsNull():
						m[name] = nil
					case v.Kind() == parquet.Boolean:
						m[name] = v.Boolean()
					case v.Kind() == parquet.Int32:
						m[name] = v.Int32()
					case v.Kind() == parquet.Int64:
						m[name] = v.Int64()
					case v.Kind() == parquet.Float:
						m[name] = v.Float()
					case v.Kind() == parquet.Double:
						m[name] = v.Double()
					default:
						m[name] = bytes.Clone(v.ByteArray())
					}
				}
				out = append(out, m)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
		}
		rows.Close()
	}
	return out
}

// tableRows reads every data file the unfiltered plan lists.
func tableRows(t *testing.T, tbl *Table, sel SnapshotSelector) map[string][]map[string]any {
	t.Helper()
	plan, err := tbl.PlanFiles(context.Background(), sel)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]map[string]any{}
	for _, task := range plan.Tasks {
		out[task.Path] = fileRows(t, tbl, task.Path)
	}
	return out
}

func planFiltered(t *testing.T, tbl *Table, sel SnapshotSelector, filter string) *Plan {
	t.Helper()
	e, err := expr.ParseText(filter)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	plan, err := tbl.PlanFilesFiltered(context.Background(), sel, e, false)
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	return plan
}

type filterCase struct {
	filter string
	row    func(map[string]any) bool // the filter, written against raw rows
	files  int                       // how many files hold matching rows (from INDEX.md where it says)
}

// checkPruning plans each filter and checks the kept data files are exactly
// those holding a row the filter accepts, as parquet-go reads them, and
// that the plan counts what it skipped.
func checkPruning(t *testing.T, tbl *Table, sel SnapshotSelector, rows map[string][]map[string]any, cases []filterCase) map[string]*Plan {
	t.Helper()
	plans := map[string]*Plan{}
	for _, c := range cases {
		plan := planFiltered(t, tbl, sel, c.filter)
		plans[c.filter] = plan
		var want, got []string
		for path, rs := range rows {
			if slices.ContainsFunc(rs, c.row) {
				want = append(want, path)
			}
		}
		for _, task := range plan.Tasks {
			got = append(got, task.Path)
			if task.Residual == nil {
				t.Errorf("%s: %s has no residual", c.filter, task.Path)
			}
		}
		slices.Sort(want)
		slices.Sort(got)
		if len(want) != c.files {
			t.Errorf("%s: %d files hold matching rows, the test expects %d", c.filter, len(want), c.files)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: kept %d files %v\nwant %d files %v", c.filter, len(got), got, len(want), want)
		}
		if plan.ManifestsSkipped == 0 && plan.DataFilesSkipped != len(rows)-len(got) {
			t.Errorf("%s: %d data files skipped, want %d", c.filter, plan.DataFilesSkipped, len(rows)-len(got))
		}
	}
	return plans
}

func str(v any) string { b, _ := v.([]byte); return string(b) }

// impala_iceberg_partitioned: hour(event_time) and identity(action), 20
// one-row files. Counts from INDEX.md: id > 10 → 10, action <> 'click' →
// 14, partitions view ×8, click ×6, download ×6.
func TestPlanFilteredImpalaPartitioned(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_partitioned")
	rows := tableRows(t, tbl, SnapshotSelector{})
	if len(rows) != 20 {
		t.Fatalf("%d files, want 20", len(rows))
	}
	const hour9 = int64(1577869200000000) // 2020-01-01T09:00:00Z in µs
	id := func(r map[string]any) (int32, bool) { v, ok := r["id"].(int32); return v, ok }
	plans := checkPruning(t, tbl, SnapshotSelector{}, rows, []filterCase{
		{"id > 10", func(r map[string]any) bool { v, ok := id(r); return ok && v > 10 }, 10},
		{"id in (3, 7, 100)", func(r map[string]any) bool { v, ok := id(r); return ok && (v == 3 || v == 7) }, 2},
		{"not (id <= 18)", func(r map[string]any) bool { v, ok := id(r); return ok && v > 18 }, 2},
		{"action = 'click'", func(r map[string]any) bool { return str(r["action"]) == "click" }, 6},
		{"action <> 'click'", func(r map[string]any) bool { return str(r["action"]) != "click" }, 14},
		{"action like 'd%'", func(r map[string]any) bool { return strings.HasPrefix(str(r["action"]), "d") }, 6},
		{"action = 'zzz'", func(r map[string]any) bool { return false }, 0},
		{"event_time < '2020-01-01T09:00:00+00:00'", func(r map[string]any) bool { return r["event_time"].(int64) < hour9 }, 8},
		{"event_time >= '2020-01-01T10:00:00Z'", func(r map[string]any) bool { return r["event_time"].(int64) >= hour9+3_600_000_000 }, 6},
		{"event_time > '2020-01-01T08:30:00Z' and id < 5", func(r map[string]any) bool {
			v, ok := id(r)
			return r["event_time"].(int64) > hour9-1_800_000_000 && ok && v < 5
		}, 2},
		{"action = 'click' and id > 10", func(r map[string]any) bool { v, ok := id(r); return str(r["action"]) == "click" && ok && v > 10 }, 3},
		{"user = 'Lisa' or id = 1", func(r map[string]any) bool { v, _ := id(r); return str(r["user"]) == "Lisa" || v == 1 }, 7},
	})

	// A filter no partition can satisfy leaves the manifest unread.
	if p := plans["action = 'zzz'"]; p.ManifestsSkipped != 1 || p.ManifestsRead != 0 {
		t.Errorf("action = 'zzz': %d manifests skipped, %d read; want 1 and 0", p.ManifestsSkipped, p.ManifestsRead)
	}
	// Residuals: what the partition decides is gone.
	residuals := map[string]string{
		"action = 'click' and id > 10":         "id > 10",
		"event_time >= '2020-01-01T10:00:00Z'": "true",
		"action <> 'click'":                    "true",
		"id > 10":                              "id > 10",
	}
	for filter, want := range residuals {
		for _, task := range plans[filter].Tasks {
			if got := task.Residual.String(); got != want {
				t.Errorf("%s: residual of %s is %s, want %s", filter, task.Path, got, want)
			}
		}
	}
	// The row filter on the hour partition keeps both sides of the hour
	// where the bound falls inside one.
	plan := planFiltered(t, tbl, SnapshotSelector{}, "event_time > '2020-01-01T09:30:00Z'")
	for _, task := range plan.Tasks {
		hour := task.File.Partition[0].(int32)
		want := map[int32]string{438297: "event_time > '2020-01-01T09:30:00.000000+00:00'", 438298: "true"}[hour]
		if got := task.Residual.String(); got != want {
			t.Errorf("hour %d: residual %s, want %s", hour, got, want)
		}
	}
}

// duckdb_uuid: two unpartitioned files of five uuids each; an equality on
// one uuid reads one file (INDEX.md: "Pruning skips one 5-row file").
func TestPlanFilteredUUID(t *testing.T) {
	tbl, _ := openFixture(t, "duckdb_uuid")
	rows := tableRows(t, tbl, SnapshotSelector{})
	has := func(text string) func(map[string]any) bool {
		u, err := iceberg.ParseUUID(text)
		if err != nil {
			t.Fatal(err)
		}
		return func(r map[string]any) bool { return bytes.Equal(r["uuid"].([]byte), u[:]) }
	}
	plans := checkPruning(t, tbl, SnapshotSelector{}, rows, []filterCase{
		{`"uuid" = '1571effb-facd-42a3-90e9-0af522e9b6c2'`, has("1571effb-facd-42a3-90e9-0af522e9b6c2"), 1},
		{`"uuid" = 'f9f28465-51cf-45f1-8985-e01d9a82253c'`, has("f9f28465-51cf-45f1-8985-e01d9a82253c"), 1},
		{`"uuid" in ('8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4', '00000000-0000-0000-0000-000000000000')`, has("8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4"), 1},
	})
	if p := plans[`"uuid" = '1571effb-facd-42a3-90e9-0af522e9b6c2'`]; p.DataFilesSkipped != 1 || p.RecordCount() != 5 {
		t.Errorf("uuid equality: %d files skipped, %d records planned; want 1 and 5", p.DataFilesSkipped, p.RecordCount())
	}
	// != cannot prune: each file holds other uuids.
	if p := planFiltered(t, tbl, SnapshotSelector{}, `"uuid" != '1571effb-facd-42a3-90e9-0af522e9b6c2'`); len(p.Tasks) != 2 {
		t.Errorf("uuid !=: %d files, want 2", len(p.Tasks))
	}
}

// impala_iceberg_timestamptz_part: hour(ts) with pre-1970 values; the rows
// (i, ts) are INDEX.md's, in UTC.
func TestPlanFilteredTimestamptzHours(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_timestamptz_part")
	index := map[int32]string{
		-2: "1969-01-01T00:00:00Z", -1: "1969-01-01T00:15:00Z", 0: "2021-10-31T00:15:00Z", 1: "2021-10-31T01:15:00Z",
		2: "2021-01-10T11:00:00Z", 3: "2022-04-10T22:04:00Z", 4: "2022-04-11T10:04:55Z",
	}
	ts := map[int32]int64{}
	for i, s := range index {
		v, err := iceberg.ParseTimestamp(s, false)
		if err != nil {
			t.Fatal(err)
		}
		ts[i] = v
	}
	// The files' rows must be INDEX.md's rows.
	rows := tableRows(t, tbl, SnapshotSelector{})
	n := 0
	for _, rs := range rows {
		for _, r := range rs {
			i := r["i"].(int32)
			if r["ts"] != ts[i] {
				t.Fatalf("row %d has ts %v, INDEX.md says %s", i, r["ts"], index[i])
			}
			n++
		}
	}
	if n != 7 {
		t.Fatalf("%d rows, INDEX.md lists 7", n)
	}
	at := func(s string) int64 { v, _ := iceberg.ParseTimestamp(s, false); return v }
	checkPruning(t, tbl, SnapshotSelector{}, rows, []filterCase{
		{"ts < '1970-01-01T00:00:00Z'", func(r map[string]any) bool { return r["ts"].(int64) < 0 }, 1},
		{"ts = '1969-01-01T00:15:00Z'", func(r map[string]any) bool { return r["ts"].(int64) == ts[-1] }, 1},
		{"ts = '1969-01-01T00:15:00.000001Z'", func(r map[string]any) bool { return false }, 0},
		{"ts >= '2021-10-31T00:00:00Z' and ts < '2021-10-31T02:00:00Z'", func(r map[string]any) bool {
			v := r["ts"].(int64)
			return v >= at("2021-10-31T00:00:00Z") && v < at("2021-10-31T02:00:00Z")
		}, 2},
		{"ts > '2022-04-10T22:04:00Z'", func(r map[string]any) bool { return r["ts"].(int64) > ts[3] }, 1},
		{"ts >= '2022-04-10T22:04:00Z'", func(r map[string]any) bool { return r["ts"].(int64) >= ts[3] }, 2},
		{"ts <= '2021-01-10T11:00:00Z'", func(r map[string]any) bool { return r["ts"].(int64) <= ts[2] }, 2},
		{"ts in ('2021-10-31T01:15:00Z', '1969-01-01T00:00:00Z')", func(r map[string]any) bool {
			return r["ts"].(int64) == ts[1] || r["ts"].(int64) == ts[-2]
		}, 2},
		{"not (ts < '2022-01-01T00:00:00Z') or i = -2", func(r map[string]any) bool {
			return r["ts"].(int64) >= at("2022-01-01T00:00:00Z") || r["i"] == int32(-2)
		}, 3},
	})
}

// impala_test_default_part: spec 0 unpartitioned, spec 1 identity(j); j
// was added with initial-default -1 after the spec-0 files were written.
// INDEX.md: rows (1,-1) (2,-1) (3,5) (4,10) (5,NULL); j = -1 → 1, 2;
// j = 5 → 3.
func TestPlanFilteredPartitionEvolution(t *testing.T) {
	tbl, _ := openFixture(t, "impala_test_default_part")
	rows := tableRows(t, tbl, SnapshotSelector{})
	// The spec-0 files hold no j column; their rows read j's initial default.
	j := func(r map[string]any) (int32, bool) {
		v, present := r["j"]
		if !present {
			return -1, true
		}
		n, ok := v.(int32)
		return n, ok
	}
	type want struct {
		filter           string
		files            []int32 // the i of each kept file's row
		manifestsSkipped int
		residuals        map[int32]string
	}
	for _, w := range []want{
		// The spec-0 files have no metrics for j, so they stay; the manifest
		// of the null partition and the file of j = 10 go.
		{"j = 5", []int32{1, 2, 3}, 1, map[int32]string{1: "j = 5", 3: "true"}},
		// Both spec-1 manifests are ruled out by their summaries.
		{"j = -1", []int32{1, 2}, 2, map[int32]string{1: "j = -1"}},
		{"j is null", []int32{1, 2, 5}, 1, map[int32]string{5: "true", 2: "j is null"}},
		{"j > 7 or i = 3", []int32{1, 2, 3, 4}, 0, map[int32]string{4: "true", 3: "i = 3"}},
		{"i >= 4", []int32{4, 5}, 0, map[int32]string{4: "i >= 4"}},
	} {
		plan := planFiltered(t, tbl, SnapshotSelector{}, w.filter)
		var got []int32
		for _, task := range plan.Tasks {
			rs := rows[task.Path]
			if len(rs) != 1 {
				t.Fatalf("%s holds %d rows, want 1", task.Path, len(rs))
			}
			i := rs[0]["i"].(int32)
			got = append(got, i)
			if r, ok := w.residuals[i]; ok && task.Residual.String() != r {
				t.Errorf("%s: residual for the file of row %d is %s, want %s", w.filter, i, task.Residual, r)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, w.files) {
			t.Errorf("%s: kept the files of rows %v, want %v", w.filter, got, w.files)
		}
		if plan.ManifestsSkipped != w.manifestsSkipped {
			t.Errorf("%s: %d manifests skipped, want %d", w.filter, plan.ManifestsSkipped, w.manifestsSkipped)
		}
	}
	// No file left out holds a matching row (the INDEX.md answers).
	for filter, match := range map[string]func(map[string]any) bool{
		"j = 5":  func(r map[string]any) bool { v, ok := j(r); return ok && v == 5 },
		"j = -1": func(r map[string]any) bool { v, ok := j(r); return ok && v == -1 },
	} {
		plan := planFiltered(t, tbl, SnapshotSelector{}, filter)
		kept := map[string]bool{}
		for _, task := range plan.Tasks {
			kept[task.Path] = true
		}
		var matched []int32
		for path, rs := range rows {
			for _, r := range rs {
				if match(r) {
					matched = append(matched, r["i"].(int32))
					if !kept[path] {
						t.Errorf("%s: skipped %s, whose row %v matches", filter, path, r)
					}
				}
			}
		}
		slices.Sort(matched)
		want := map[string][]int32{"j = 5": {3}, "j = -1": {1, 2}}[filter]
		if !slices.Equal(matched, want) {
			t.Errorf("%s: rows %v match, INDEX.md says %v", filter, matched, want)
		}
	}
}

// Delete files are pruned by partition only: a filter on the partition
// column drops the other partitions' position deletes, one on a data
// column drops data files by metrics but keeps every delete file.
func TestPlanFilteredDeleteFiles(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_v2_partitioned_position_deletes")
	plan := planFiltered(t, tbl, SnapshotSelector{}, "action = 'click'")
	if len(plan.Tasks) != 1 || len(plan.DeleteFiles) != 1 {
		t.Fatalf("action = 'click': %d data and %d delete files, want 1 and 1", len(plan.Tasks), len(plan.DeleteFiles))
	}
	task := plan.Tasks[0]
	if task.File.Partition[0] != "click" || len(task.Deletes) != 1 || task.Deletes[0] != plan.DeleteFiles[0] {
		t.Errorf("the click file %v got deletes %v", task.File.Partition, task.Deletes)
	}
	// id 19 lies only within the view file's id bounds [1, 20].
	plan = planFiltered(t, tbl, SnapshotSelector{}, "id = 19")
	if len(plan.Tasks) != 1 || plan.Tasks[0].File.Partition[0] != "view" || plan.DataFilesSkipped != 2 {
		t.Errorf("id = 19: kept %d files, skipped %d; want the view file only", len(plan.Tasks), plan.DataFilesSkipped)
	}
	if len(plan.DeleteFiles) != 3 {
		t.Errorf("id = 19: %d delete files, want all 3", len(plan.DeleteFiles))
	}
	if len(plan.Tasks) == 1 && len(plan.Tasks[0].Deletes) != 1 {
		t.Errorf("the view file has %d deletes, want 1", len(plan.Tasks[0].Deletes))
	}
}

// duckdb_lineitem_iceberg: the current snapshot is the copy-on-write result
// of DELETE … WHERE l_extendedprice < 10000 (INDEX.md), so its one file
// holds no such row; the first snapshot's file does.
func TestPlanFilteredLineitemMetrics(t *testing.T) {
	tbl, _ := openFixture(t, "duckdb_lineitem_iceberg")
	plan := planFiltered(t, tbl, SnapshotSelector{}, "l_extendedprice < 10000")
	if len(plan.Tasks) != 0 || plan.DataFilesSkipped != 1 {
		t.Errorf("current snapshot: %d files kept, %d skipped; want 0 and 1", len(plan.Tasks), plan.DataFilesSkipped)
	}
	first := tbl.Metadata.Snapshots[0].SnapshotID
	for _, s := range tbl.Metadata.Snapshots {
		if s.SequenceNumber < tbl.Metadata.SnapshotByID(first).SequenceNumber {
			first = s.SnapshotID
		}
	}
	plan = planFiltered(t, tbl, SnapshotSelector{SnapshotID: &first}, "l_extendedprice < 10000")
	if plan.RecordCount() != 60175 {
		t.Errorf("first snapshot: %d records planned, want its 60175", plan.RecordCount())
	}
	// TPC-H ships from 1992 to 1998.
	for filter, files := range map[string]int{
		"l_shipdate < '1992-01-01'":                  0,
		"l_shipdate >= '1998-12-31'":                 0,
		"l_shipdate = '1995-06-17'":                  1,
		"l_shipmode = 'ZEPPELIN'":                    0,
		"l_shipmode like 'RAIL%'":                    1,
		"l_quantity > 50":                            0,
		"l_quantity >= 50 and l_returnflag in ('R')": 1,
	} {
		if p := planFiltered(t, tbl, SnapshotSelector{}, filter); len(p.Tasks) != files {
			t.Errorf("%s: %d files, want %d", filter, len(p.Tasks), files)
		}
	}
}

// With no filter the plan is PlanFiles'; with a filter that binds to true
// every file stays, with residual true.
func TestPlanFilteredWithoutFilterIsPlanFiles(t *testing.T) {
	for _, name := range []string{"impala_iceberg_partitioned", "impala_iceberg_v2_partitioned_position_deletes", "impala_test_default_part", "impala_iceberg_v3_deletion_vectors"} {
		tbl, _ := openFixture(t, name)
		ctx := context.Background()
		a, err := tbl.PlanFiles(ctx, SnapshotSelector{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := tbl.PlanFilesFiltered(ctx, SnapshotSelector{}, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s: PlanFiles and PlanFilesFiltered(nil) differ", name)
		}
		all := planFiltered(t, tbl, SnapshotSelector{}, "true")
		if len(all.Tasks) != len(a.Tasks) || len(all.DeleteFiles) != len(a.DeleteFiles) || all.ManifestsSkipped != 0 || all.DataFilesSkipped != 0 {
			t.Errorf("%s: filter true planned %d/%d files, want %d/%d", name, len(all.Tasks), len(all.DeleteFiles), len(a.Tasks), len(a.DeleteFiles))
		}
		for _, task := range all.Tasks {
			if _, ok := task.Residual.(expr.AlwaysTrue); !ok {
				t.Errorf("%s: residual %v, want true", name, task.Residual)
			}
		}
		none := planFiltered(t, tbl, SnapshotSelector{}, "false")
		if len(none.Tasks) != 0 || none.ManifestsRead != 0 {
			t.Errorf("%s: filter false planned %d files from %d manifests", name, len(none.Tasks), none.ManifestsRead)
		}
	}
}

func TestPlanFilteredBadFilter(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_partitioned")
	for filter, msg := range map[string]string{
		"nope = 1": `no column named "nope"`,
		"id = 'x'": "invalid number",
	} {
		e, err := expr.ParseText(filter)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tbl.PlanFilesFiltered(context.Background(), SnapshotSelector{}, e, false)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: error %v, want one saying %q", filter, err, msg)
		}
	}
	// A column that cannot hold NaN: "is nan" selects nothing and "is not
	// nan" everything, as Java and pyiceberg bind them.
	if nan := planFiltered(t, tbl, SnapshotSelector{}, "event_time is nan"); len(nan.Tasks) != 0 {
		t.Errorf("event_time is nan planned %d files", len(nan.Tasks))
	}
	if all := planFiltered(t, tbl, SnapshotSelector{}, "event_time is not nan"); len(all.Tasks) == 0 {
		t.Error("event_time is not nan planned no file")
	}
	// Case-insensitive binding, when asked for.
	e, _ := expr.ParseText("ACTION = 'click'")
	if _, err := tbl.PlanFilesFiltered(context.Background(), SnapshotSelector{}, e, false); err == nil {
		t.Error("ACTION must not bind case-sensitively")
	}
	plan, err := tbl.PlanFilesFiltered(context.Background(), SnapshotSelector{}, e, true)
	if err != nil || len(plan.Tasks) != 6 {
		t.Errorf("ACTION = 'click' without case: %v, %v", plan, err)
	}
}
