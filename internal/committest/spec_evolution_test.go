package committest

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// Partition spec evolution end to end, on copies of tables other engines
// wrote: the spec (and sort order) change through a transaction, new rows
// are written through the writer, which partitions them by the new
// default spec, and planning with a filter prunes the files of every spec
// by their own spec's partition tuples; every row reads back.

// openFixtureCopy copies a fixture table into a scratch directory and
// opens it there.
func openFixtureCopy(t *testing.T, name string) *table.Table {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	copyDir(t, fx.Dir, dir)
	locations := map[string]string{}
	for prefix, target := range fx.LocationMap {
		locations[prefix] = strings.Replace(target, fx.Dir, dir, 1)
	}
	tbl, err := table.Open(context.Background(), dir, table.Options{LocationMap: locations})
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func jan2020(day, hour int) int64 {
	return time.Date(2020, 1, day, hour, 0, 0, 0, time.UTC).UnixMicro()
}

// epochDay is the day transform's value of a day of January 2020.
func epochDay(day int) int32 { return int32(jan2020(day, 0) / (24 * 3600 * 1_000_000)) }

// appendRows writes rows of the table's current schema through the
// writer and commits them.
func appendRows(t *testing.T, tbl *table.Table, rows [][]any) {
	t.Helper()
	if _, err := ops.Append(context.Background(), tbl, rowstest.Reader(t, tbl.Metadata.CurrentSchema(), rows), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
}

type fileRow struct {
	file string
	row  []any
}

// readRows reads tbl's current snapshot through a scan with filter (nil:
// every row), deletes applied, each row in canonical values with the data
// file it came from.
func readRows(t *testing.T, tbl *table.Table, filter expr.Expr) []fileRow {
	t.Helper()
	ctx := context.Background()
	schema := tbl.Metadata.CurrentSchema()
	cols := []string{"_file"}
	for _, f := range schema.Fields {
		cols = append(cols, f.Name)
	}
	s, err := scan.New(ctx, tbl, scan.Options{Columns: cols, Filter: filter, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var out []fileRow
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := 0; i < int(rec.NumRows()); i++ {
			r := fileRow{file: rowstest.Canonical(rec.Column(0), i, iceberg.StringType{}).(string), row: make([]any, len(schema.Fields))}
			for j, f := range schema.Fields {
				r.row[j] = rowstest.Canonical(rec.Column(j+1), i, f.Type)
			}
			out = append(out, r)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rowsOnly drops the files, sorted by the first column.
func rowsOnly(schema *iceberg.Schema, frs []fileRow) [][]any {
	out := make([][]any, len(frs))
	for i, r := range frs {
		out[i] = r.row
	}
	rowstest.SortRows(schema, out)
	return out
}

// partitionOf is what spec's transforms give for a row of schema.
func partitionOf(t *testing.T, schema *iceberg.Schema, spec *iceberg.PartitionSpec, row []any) []any {
	t.Helper()
	out := make([]any, len(spec.Fields))
	for i, pf := range spec.Fields {
		col := slices.IndexFunc(schema.Fields, func(f iceberg.NestedField) bool { return f.ID == pf.SourceID })
		v, err := pf.Transform.Apply(schema.Fields[col].Type, row[col])
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// liveFiles plans tbl's current snapshot with filter (nil: none) and
// gives, per planned file, its spec id and partition tuple.
func liveFiles(t *testing.T, tbl *table.Table, filter expr.Expr) map[string]string {
	t.Helper()
	plan, err := tbl.PlanFilesFiltered(context.Background(), table.SnapshotSelector{}, filter, false)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, task := range plan.Tasks {
		out[task.File.FilePath] = fmt.Sprintf("%d:%v", task.File.SpecID, task.File.Partition)
	}
	return out
}

// checkPartitions checks every live file's partition tuple is what its
// spec's transforms give for each of its rows (the writer partitioned it
// by the spec it names), and counts files per spec.
func checkPartitions(t *testing.T, tbl *table.Table, all []fileRow) map[int]int {
	t.Helper()
	md := tbl.Metadata
	schema := md.CurrentSchema()
	plan, err := tbl.PlanFiles(context.Background(), table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	perSpec := map[int]int{}
	for _, task := range plan.Tasks {
		perSpec[task.File.SpecID]++
		spec := md.SpecByID(task.File.SpecID)
		for _, r := range all {
			if r.file != task.File.FilePath {
				continue
			}
			if want := partitionOf(t, schema, spec, r.row); !reflect.DeepEqual(want, task.File.Partition) {
				t.Fatalf("file %s of spec %d has partition %v, but its row %v belongs in %v", task.File.FilePath, spec.ID, task.File.Partition, r.row, want)
			}
		}
	}
	return perSpec
}

// checkFiltered reads tbl with filter and compares with the rows of all
// that keep says pass it.
func checkFiltered(t *testing.T, tbl *table.Table, filter expr.Expr, all []fileRow, keep func([]any) bool) {
	t.Helper()
	schema := tbl.Metadata.CurrentSchema()
	var want [][]any
	for _, r := range all {
		if keep(r.row) {
			want = append(want, r.row)
		}
	}
	rowstest.SortRows(schema, want)
	rowstest.CompareRows(t, fmt.Sprint(filter), schema, want, rowsOnly(schema, readRows(t, tbl, filter)))
}

// filesWhere lists the files of files (path → "spec:[tuple]") whose entry
// matches.
func filesWhere(files map[string]string, match func(entry string) bool) []string {
	var out []string
	for path, e := range files {
		if match(e) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Spark's v1 table is partitioned by hour(event_time) and
// identity(action). Moving it to daily partitions voids the hour field
// in place (v1); new rows land in day partitions, and a filter on
// event_time prunes Spark's files by their hours and floe's by their days.
func TestSpecEvolutionOnSparkV1Table(t *testing.T) {
	ctx := context.Background()
	tbl := openFixtureCopy(t, "impala_iceberg_partitioned")
	before := readRows(t, tbl, nil)
	if len(before) != 20 {
		t.Fatalf("Spark's table reads %d rows, want 20", len(before))
	}
	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).RemoveField("event_time_hour").AddField("event_time", iceberg.DayTransform{}, "")); err != nil {
		t.Fatal(err)
	}
	if got := specFields(tbl.Metadata.DefaultSpec()); tbl.Metadata.DefaultSpecID != 1 || got != "event_time_hour=void#1000 action=identity#1001 event_time_day=day#1002" {
		t.Fatalf("default spec %d: %s", tbl.Metadata.DefaultSpecID, got)
	}
	var added [][]any
	for i := range 12 {
		act := []string{"view", "click", "download"}[i%3]
		added = append(added, []any{int32(100 + i), "floe", act, jan2020(5+i%2, i)})
	}
	appendRows(t, tbl, added)

	all := readRows(t, tbl, nil)
	var want [][]any
	for _, r := range before {
		want = append(want, r.row)
	}
	want = append(want, added...)
	rowstest.SortRows(tbl.Metadata.CurrentSchema(), want)
	rowstest.CompareRows(t, "every row", tbl.Metadata.CurrentSchema(), want, rowsOnly(tbl.Metadata.CurrentSchema(), all))

	perSpec := checkPartitions(t, tbl, all)
	if perSpec[0] != 20 || perSpec[1] != 6 {
		t.Fatalf("files per spec %v, want Spark's 20 under spec 0 and 6 (3 actions × 2 days) under spec 1", perSpec)
	}
	files := liveFiles(t, tbl, nil)
	for path, e := range files {
		if strings.HasPrefix(e, "1:") && !strings.HasPrefix(e, "1:[<nil> ") {
			t.Fatalf("file %s of the new spec has partition %s: the voided hour field must be null", path, e)
		}
	}

	lateFilter := rowstest.Pred(t, expr.OpGtEq, "event_time", jan2020(6, 0))
	late := liveFiles(t, tbl, lateFilter)
	day6 := fmt.Sprint(epochDay(6))
	if got, want := sortedKeys(late), filesWhere(files, func(e string) bool { return strings.HasPrefix(e, "1:") && strings.HasSuffix(e, " "+day6+"]") }); !slices.Equal(got, want) {
		t.Fatalf("event_time >= Jan 6 plans %v, want the new spec's Jan 6 files %v", late, want)
	}
	early := liveFiles(t, tbl, rowstest.Pred(t, expr.OpLt, "event_time", jan2020(2, 0)))
	if got, want := sortedKeys(early), filesWhere(files, func(e string) bool { return strings.HasPrefix(e, "0:") }); !slices.Equal(got, want) {
		t.Fatalf("event_time < Jan 2 plans %d files, want Spark's %d", len(got), len(want))
	}
	click := liveFiles(t, tbl, rowstest.Pred(t, expr.OpEq, "action", "click"))
	if got, want := sortedKeys(click), filesWhere(files, func(e string) bool { return strings.Contains(e, " click") }); !slices.Equal(got, want) {
		t.Fatalf("action = click plans %v, want %v", click, want)
	}
	checkFiltered(t, tbl, lateFilter, all, func(r []any) bool { return r[3].(int64) >= jan2020(6, 0) })
	checkReopened(t, tbl, all)
	checkFiltered(t, tbl, rowstest.Pred(t, expr.OpEq, "action", "click"), all, func(r []any) bool { return r[2] == "click" })
}

// Hive's v2 table (identity(action), position deletes) gains day and
// bucket fields and a sort order in one transaction, then loses the
// bucket and action fields: files of three specs live side by side, each
// pruned by its own spec.
func TestSpecEvolutionOnHiveV2Table(t *testing.T) {
	ctx := context.Background()
	tbl := openFixtureCopy(t, "impala_iceberg_v2_partitioned_position_deletes")
	before := readRows(t, tbl, nil)
	if len(before) != 10 {
		t.Fatalf("Hive's table reads %d rows, want Impala's 10", len(before))
	}
	versions := len(tbl.Metadata.MetadataLog)
	tx := tbl.Transaction().Add(
		new(action.UpdateSpec).AddField("event_time", iceberg.DayTransform{}, "").AddField("id", iceberg.BucketTransform{N: 4}, ""),
		new(action.ReplaceSortOrder).Desc("id", nil, ""),
	)
	if _, err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	md := tbl.Metadata
	if len(md.MetadataLog) != versions+1 {
		t.Fatalf("the transaction wrote %d metadata versions, want 1", len(md.MetadataLog)-versions)
	}
	if got := specFields(md.DefaultSpec()); got != "action=identity#1000 event_time_day=day#1001 id_bucket_4=bucket[4]#1002" {
		t.Fatalf("default spec %d: %s", md.DefaultSpecID, got)
	}
	if o := md.DefaultSortOrder(); o.OrderID != 1 || len(o.Fields) != 1 || o.Fields[0].Direction != "desc" || o.Fields[0].NullOrder != "nulls-last" {
		t.Fatalf("default sort order %+v", o)
	}
	var second [][]any
	for i := range 16 {
		second = append(second, []any{int32(100 + i), "floe", []string{"view", "click"}[i%2], jan2020(2+i%2, 12)})
	}
	appendRows(t, tbl, second)

	if _, err := tbl.Apply(ctx, new(action.UpdateSpec).RemoveFieldBySource("id", iceberg.BucketTransform{N: 4}).RemoveField("action")); err != nil {
		t.Fatal(err)
	}
	if got := specFields(tbl.Metadata.DefaultSpec()); tbl.Metadata.DefaultSpecID != 2 || got != "event_time_day=day#1001" {
		t.Fatalf("default spec %d: %s", tbl.Metadata.DefaultSpecID, got)
	}
	var third [][]any
	for i := range 4 {
		third = append(third, []any{int32(200 + i), "floe", []string{"view", "click"}[i%2], jan2020(4, i)})
	}
	appendRows(t, tbl, third)

	all := readRows(t, tbl, nil)
	var want [][]any
	for _, r := range before {
		want = append(want, r.row)
	}
	want = append(append(want, second...), third...)
	schema := tbl.Metadata.CurrentSchema()
	rowstest.SortRows(schema, want)
	rowstest.CompareRows(t, "every row", schema, want, rowsOnly(schema, all))

	perSpec := checkPartitions(t, tbl, all)
	if perSpec[0] != 3 || perSpec[2] != 1 || perSpec[1] < 2 {
		t.Fatalf("files per spec %v, want Hive's 3 under spec 0, several under spec 1, one under spec 2", perSpec)
	}
	files := liveFiles(t, tbl, nil)

	view := liveFiles(t, tbl, rowstest.Pred(t, expr.OpEq, "action", "view"))
	wantView := filesWhere(files, func(e string) bool {
		return strings.HasPrefix(e, "2:") || strings.HasPrefix(e, "0:[view]") || strings.HasPrefix(e, "1:[view ")
	})
	if got := sortedKeys(view); !slices.Equal(got, wantView) {
		t.Fatalf("action = view plans %v, want %v", view, wantView)
	}
	day3 := fmt.Sprint(epochDay(3))
	late := liveFiles(t, tbl, rowstest.Pred(t, expr.OpGtEq, "event_time", jan2020(3, 0)))
	for path, e := range late {
		if strings.HasPrefix(e, "1:") && !strings.Contains(e, " "+day3+" ") {
			t.Fatalf("event_time >= Jan 3 plans %s, partition %s", path, e)
		}
	}
	for path, e := range files {
		if _, planned := late[path]; !planned && (strings.HasPrefix(e, "2:") || strings.HasPrefix(e, "1:") && strings.Contains(e, " "+day3+" ")) {
			t.Fatalf("event_time >= Jan 3 left out %s, partition %s", path, e)
		}
	}
	checkFiltered(t, tbl, rowstest.Pred(t, expr.OpEq, "action", "view"), all, func(r []any) bool { return r[2] == "view" })
	checkFiltered(t, tbl, rowstest.Pred(t, expr.OpGtEq, "event_time", jan2020(3, 0)), all, func(r []any) bool { return r[3].(int64) >= jan2020(3, 0) })
	idFilter := rowstest.Pred(t, expr.OpEq, "id", int64(105))
	checkFiltered(t, tbl, idFilter, all, func(r []any) bool { return r[0] == int32(105) })
	if n := len(liveFiles(t, tbl, idFilter)); n >= len(files) {
		t.Fatalf("id = 105 plans %d of %d files: the bucket partitions pruned none", n, len(files))
	}
	checkReopened(t, tbl, all)
}

// specFields writes a spec's fields as name=transform#id.
func specFields(s *iceberg.PartitionSpec) string {
	parts := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		parts[i] = fmt.Sprintf("%s=%s#%d", f.Name, f.Transform, f.FieldID)
	}
	return strings.Join(parts, " ")
}

// checkReopened opens the table's metadata file afresh: the specs, the
// default spec and sort order, and every row are what the handle had.
func checkReopened(t *testing.T, tbl *table.Table, all []fileRow) {
	t.Helper()
	fresh, err := table.Open(context.Background(), tbl.MetadataLocation, table.Options{LocationMap: tbl.Locations.Prefixes()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh.Metadata.PartitionSpecs, tbl.Metadata.PartitionSpecs) || fresh.Metadata.DefaultSpecID != tbl.Metadata.DefaultSpecID ||
		!reflect.DeepEqual(fresh.Metadata.SortOrders, tbl.Metadata.SortOrders) || fresh.Metadata.DefaultSortOrderID != tbl.Metadata.DefaultSortOrderID {
		t.Fatalf("reopened: specs %v (default %d), sort orders %v (default %d); the handle had %v (%d), %v (%d)",
			fresh.Metadata.PartitionSpecs, fresh.Metadata.DefaultSpecID, fresh.Metadata.SortOrders, fresh.Metadata.DefaultSortOrderID,
			tbl.Metadata.PartitionSpecs, tbl.Metadata.DefaultSpecID, tbl.Metadata.SortOrders, tbl.Metadata.DefaultSortOrderID)
	}
	schema := fresh.Metadata.CurrentSchema()
	rowstest.CompareRows(t, "reopened", schema, rowsOnly(schema, all), rowsOnly(schema, readRows(t, fresh, nil)))
}
