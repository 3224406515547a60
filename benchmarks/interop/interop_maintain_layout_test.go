package interop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	goiceberg "github.com/apache/iceberg-go"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/maintain"
)

// sourceMaker builds a maintenance source table (floe's or iceberg-go's).
type sourceMaker struct {
	name string
	make func(t *testing.T, o sourceOptions) *maintTable
}

var sourceMakers = []sourceMaker{{"floe-made", floeMadeTable}, {"iceberg-go-made", goMadeTable}}

// onSources runs test on a table with row deletes made by each side, v2
// (position delete files) and v3 (deletion vectors).
func onSources(t *testing.T, o sourceOptions, test func(t *testing.T, m *maintTable)) {
	for _, mk := range sourceMakers {
		for _, v := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s-v%d", mk.name, v), func(t *testing.T) {
				o := o
				o.version = v
				m := mk.make(t, o)
				m.assertRows(t, "before maintenance")
				test(t, m)
			})
		}
	}
}

// assertGoFilteredRows reads the table with an iceberg-go row filter on
// id, 700 <= id < 1800: iceberg-go prunes files by the bounds floe wrote
// in the manifests and row groups by the file's own statistics, so
// bounds that misstate a rewritten file's rows lose rows here even when
// a full scan is right. The filter is on id, never null, because
// iceberg-go v0.7.0 skips a row group whose column has as many nulls as
// values (it takes arrow-go's non-null count for Iceberg's value count,
// which counts nulls too, and finds "only nulls"), whoever wrote it.
func (m *maintTable) assertGoFilteredRows(t *testing.T) {
	t.Helper()
	filter := goiceberg.NewAnd(
		goiceberg.GreaterThanEqual(goiceberg.Reference("id"), int64(700)),
		goiceberg.LessThan(goiceberg.Reference("id"), int64(1800)))
	sc := m.goTable(t).Scan(icebergtable.WithRowFilter(filter))
	got := rowKeys(t, icebergGoRead(t, sc, "700 <= id < 1800"))
	want := expectedKeys(slices.DeleteFunc(slices.Clone(m.want), func(r row) bool { return r.id < 700 || r.id >= 1800 }))
	if len(want) == 0 || len(want) == len(m.want) {
		t.Fatalf("the filter keeps %d of %d rows: not a useful test", len(want), len(m.want))
	}
	assertSameRows(t, want, got)
}

// assertNoDeletesAfterCompaction checks iceberg-go plans every data file
// without a delete file (compaction applied them all) and returns the
// plan's data files.
func (m *maintTable) assertNoDeletesAfterCompaction(t *testing.T) []icebergtable.FileScanTask {
	t.Helper()
	tasks, err := m.goTable(t).Scan().PlanFiles(context.Background())
	if err != nil {
		t.Fatalf("iceberg-go PlanFiles: %v", err)
	}
	for _, task := range tasks {
		if n := len(task.DeleteFiles) + len(task.DeletionVectorFiles) + len(task.EqualityDeleteFiles); n != 0 {
			t.Errorf("iceberg-go plans %s with %d delete files after compaction", task.File.FilePath(), n)
		}
	}
	return tasks
}

// Z-order and Hilbert compaction (maintain strategies zorder and
// hilbert, over i and s) of tables with row deletes that floe and
// iceberg-go made: iceberg-go reads the rows that were there, with and
// without a filter its pruning applies; no delete file is left; and
// iceberg-go appends and deletes after it, floe reading the result.
func TestCurveCompactedReadByIcebergGo(t *testing.T) {
	for _, strategy := range []string{maintain.StrategyZOrder, maintain.StrategyHilbert} {
		t.Run(strategy, func(t *testing.T) {
			onSources(t, sourceOptions{}, func(t *testing.T, m *maintTable) {
				tbl := m.floe(t)
				before, _ := liveFiles(t, tbl)
				res, err := maintain.RewriteDataFiles(context.Background(), tbl, maintain.RewriteDataFilesOptions{
					Strategy: strategy, ZOrderColumns: []string{"i", "s"}, RewriteAll: true})
				if err != nil {
					t.Fatal(err)
				}
				if res.RewrittenDataFiles != before || res.AddedDataFiles == 0 {
					t.Fatalf("%s rewrote %d of %d files into %d", strategy, res.RewrittenDataFiles, before, res.AddedDataFiles)
				}
				m.assertRows(t, "after "+strategy+" compaction")
				m.assertGoFilteredRows(t)
				m.assertNoDeletesAfterCompaction(t)
				m.goWritesAfter(t)
			})
		})
	}
}

// Sort compaction by a sort order (s descending nulls last, then id) of
// tables with row deletes: on floe-made tables the order is floe's, set
// at creation; on iceberg-go-made ones iceberg-go sets it
// (ReplaceSortOrder) and floe compacts by the table's default order.
// iceberg-go reads the rows, sees the order's id on every file, and the
// rows of each file it reads are in that order.
func TestSortCompactedWithDeletesReadByIcebergGo(t *testing.T) {
	order := &iceberg.SortOrder{OrderID: 1, Fields: []iceberg.SortField{
		{SourceID: 4, Transform: iceberg.IdentityTransform{}, Direction: "desc", NullOrder: "nulls-last"},
		{SourceID: 1, Transform: iceberg.IdentityTransform{}, Direction: "asc", NullOrder: "nulls-first"},
	}}
	for _, mk := range sourceMakers {
		for _, v := range []int{2, 3} {
			t.Run(fmt.Sprintf("%s-v%d", mk.name, v), func(t *testing.T) {
				ctx := context.Background()
				o := sourceOptions{version: v}
				if mk.name == "floe-made" {
					o.order = order
				}
				m := mk.make(t, o)
				if mk.name != "floe-made" {
					goOrder, err := icebergtable.NewSortOrder(1, []icebergtable.SortField{
						{SourceIDs: []int{4}, Transform: goiceberg.IdentityTransform{}, Direction: icebergtable.SortDESC, NullOrder: icebergtable.NullsLast},
						{SourceIDs: []int{1}, Transform: goiceberg.IdentityTransform{}, Direction: icebergtable.SortASC, NullOrder: icebergtable.NullsFirst},
					})
					if err != nil {
						t.Fatal(err)
					}
					tx := m.goTable(t).NewTransaction()
					if err := tx.ReplaceSortOrder(goOrder); err != nil {
						t.Fatal(err)
					}
					if _, err := tx.Commit(ctx); err != nil {
						t.Fatalf("iceberg-go ReplaceSortOrder: %v", err)
					}
				}
				tbl := m.floe(t)
				orderID := tbl.Metadata.DefaultSortOrderID
				if orderID == 0 {
					t.Fatal("the table has no default sort order")
				}
				if _, err := maintain.RewriteDataFiles(ctx, tbl, maintain.RewriteDataFilesOptions{Strategy: maintain.StrategySort, RewriteAll: true}); err != nil {
					t.Fatal(err)
				}
				m.assertRows(t, "after sort compaction")
				m.assertGoFilteredRows(t)
				for _, task := range m.assertNoDeletesAfterCompaction(t) {
					if id := task.File.SortOrderID(); id == nil || *id != orderID {
						t.Errorf("%s: iceberg-go sees sort_order_id %v, want %d", task.File.FilePath(), id, orderID)
					}
				}
				assertGoFilesSorted(t, m.goTable(t))
				m.goWritesAfter(t)
			})
		}
	}
}

// assertGoFilesSorted reads each data file of the table's plan with
// iceberg-go on its own (a scan filtered to its partition would mix
// files, so one task at a time) and checks its rows come in the order
// s desc nulls last, id asc.
func assertGoFilesSorted(t *testing.T, goTbl *icebergtable.Table) {
	t.Helper()
	ctx := context.Background()
	tasks, err := goTbl.Scan().PlanFiles(ctx)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, task := range tasks {
		_, records, err := goTbl.Scan().ReadTasks(ctx, []icebergtable.FileScanTask{task})
		if err != nil {
			t.Fatalf("iceberg-go read of %s: %v", task.File.FilePath(), err)
		}
		var keys []string
		for rec, err := range records {
			if err != nil {
				t.Fatalf("iceberg-go read of %s: %v", task.File.FilePath(), err)
			}
			for r := range int(rec.NumRows()) {
				s := cellString(t, rec.Column(rec.Schema().FieldIndices("s")[0]), r)
				id := cellString(t, rec.Column(rec.Schema().FieldIndices("id")[0]), r)
				keys = append(keys, s+"\x00"+id)
			}
			rec.Release()
		}
		less := func(a, b string) int { // s desc nulls last, id asc
			sa, ida, _ := strings.Cut(a, "\x00")
			sb, idb, _ := strings.Cut(b, "\x00")
			switch {
			case sa != sb && sa == "NULL":
				return 1
			case sa != sb && sb == "NULL":
				return -1
			case sa != sb:
				return strings.Compare(sb, sa)
			}
			var x, y int64
			fmt.Sscan(ida, &x)
			fmt.Sscan(idb, &y)
			return int(x - y)
		}
		if !slices.IsSortedFunc(keys, less) {
			t.Errorf("%s: iceberg-go reads its %d rows out of the sort order", task.File.FilePath(), len(keys))
		}
		checked += len(keys)
	}
	if checked == 0 {
		t.Fatal("no rows read file by file")
	}
}
