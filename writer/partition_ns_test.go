package writer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// nsSchema has a nanosecond timestamp with and without zone, the same
// instants in both.
func nsSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "ts", Type: iceberg.TimestampNsType{}},
		{ID: 3, Name: "tstz", Type: iceberg.TimestamptzNsType{}},
	})
}

const (
	nsPerHour = int64(3_600_000_000_000)
	nsPerDay  = 24 * nsPerHour
)

// nsRows spread over 1968–1972, so years, months, days and hours before
// and after the epoch all hold rows, with the values next to the epoch and
// to unit boundaries (where flooring matters) and nulls.
func nsRows() ([][]any, []int64) {
	r := rand.New(rand.NewPCG(12, 34))
	edges := []int64{0, -1, 1, -999, -1000, -1001, 999, 1000, nsPerHour - 1, nsPerHour, -nsPerHour, -nsPerHour - 1,
		nsPerDay - 1, nsPerDay, -nsPerDay, 31 * nsPerDay, 365*nsPerDay - 1, -365 * nsPerDay, -365*nsPerDay - 1}
	var rows [][]any
	add := func(v any) {
		rows = append(rows, []any{int64(len(rows)), v, v})
	}
	for _, e := range edges {
		add(e)
	}
	// Filters use the values where flooring to a unit matters most.
	interesting := []int64{0, -1, -1000, -1001, nsPerHour - 1, -nsPerHour - 1, nsPerDay, -365*nsPerDay - 1}
	for range 300 {
		if r.IntN(15) == 0 {
			add(nil)
			continue
		}
		v := r.Int64N(4*365*nsPerDay) - 2*365*nsPerDay
		add(v)
		if r.IntN(100) == 0 {
			interesting = append(interesting, v)
		}
	}
	return rows, interesting
}

// nsFilter is one predicate as text and as the truth it should select.
type nsFilter struct {
	text string
	keep func(v any) bool
}

func nsFilters(column string, zoned bool, values []int64) []nsFilter {
	lit := func(v int64) string { return "'" + iceberg.FormatTimestamp(v, true, zoned) + "'" }
	cmp := func(op string, f func(x, v int64) bool) func(v int64) nsFilter {
		return func(v int64) nsFilter {
			return nsFilter{fmt.Sprintf("%s %s %s", column, op, lit(v)), func(x any) bool { return x != nil && f(x.(int64), v) }}
		}
	}
	var out []nsFilter
	for _, v := range values {
		for _, mk := range []func(int64) nsFilter{
			cmp("<", func(x, v int64) bool { return x < v }),
			cmp("<=", func(x, v int64) bool { return x <= v }),
			cmp(">", func(x, v int64) bool { return x > v }),
			cmp(">=", func(x, v int64) bool { return x >= v }),
			cmp("=", func(x, v int64) bool { return x == v }),
			cmp("!=", func(x, v int64) bool { return x != v }),
		} {
			out = append(out, mk(v))
		}
	}
	a, b := values[0], values[len(values)-1]
	out = append(out,
		nsFilter{fmt.Sprintf("%s in (%s, %s)", column, lit(a), lit(b)), func(x any) bool { return x != nil && (x.(int64) == a || x.(int64) == b) }},
		nsFilter{fmt.Sprintf("%s not in (%s, %s)", column, lit(a), lit(b)), func(x any) bool { return x != nil && x.(int64) != a && x.(int64) != b }},
		nsFilter{column + " is null", func(x any) bool { return x == nil }},
		nsFilter{column + " is not null", func(x any) bool { return x != nil }},
		nsFilter{fmt.Sprintf("not (%s < %s)", column, lit(b)), func(x any) bool { return x != nil && x.(int64) >= b }},
	)
	return out
}

// scanIDs scans the table with a filter and returns the ids read.
func scanIDs(t testing.TB, tbl *table.Table, filter string) []int64 {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, scan.Options{Filter: mustFilter(filter), Columns: []string{"id"}, Threads: 1})
	if err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	rr, err := s.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var ids []int64
	for rr.Next() {
		ids = append(ids, rr.RecordBatch().Column(0).(*array.Int64).Int64Values()...)
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("%s: %v", filter, err)
	}
	slices.Sort(ids)
	return ids
}

// Every partition transform on timestamp_ns and timestamptz_ns columns:
// floe's writer partitions the rows (its partition values agree with the
// scalar transforms row by row), and a scan filtered on the source column,
// pruned through the projection of the filter onto the partition, returns
// exactly the rows the filter selects, as an unpartitioned table does.
// Column metrics are off, so only partition values can prune.
func TestNanosecondTimestampTransforms(t *testing.T) {
	ctx := context.Background()
	schema := nsSchema()
	rows, values := nsRows()
	props := map[string]string{"write.metadata.metrics.default": "none"}
	create := func(name string, spec *iceberg.PartitionSpec) *table.Table {
		tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), name), schema, spec, nil, props, 3)
		if err != nil {
			t.Fatal(err)
		}
		files := writeTableFiles(t, tbl, rows)
		if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
		return reopened(t, tbl)
	}
	plain := create("plain", nil)
	transforms := []iceberg.Transform{iceberg.IdentityTransform{}, iceberg.BucketTransform{N: 5}, iceberg.YearTransform{},
		iceberg.MonthTransform{}, iceberg.DayTransform{}, iceberg.HourTransform{}, iceberg.VoidTransform{}}
	for _, col := range []struct {
		name  string
		id    int
		zoned bool
	}{{"ts", 2, false}, {"tstz", 3, true}} {
		filters := nsFilters(col.name, col.zoned, values)
		for _, tr := range transforms {
			t.Run(col.name+"/"+tr.String(), func(t *testing.T) {
				spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{{SourceID: col.id, Name: "p", Transform: tr}}}
				tbl := create(strings.NewReplacer("[", "", "]", "").Replace(tr.String()), spec)
				src, _ := schema.FindField(col.id)
				resultType, err := tr.ResultType(src.Type)
				if err != nil {
					t.Fatal(err)
				}
				// Each file's partition value is the transform of each of its rows.
				plan := liveFiles(t, tbl)
				if _, isVoid := tr.(iceberg.VoidTransform); !isVoid && len(plan.Tasks) < 3 {
					t.Fatalf("only %d files: the rows did not spread over partitions", len(plan.Tasks))
				}
				for _, task := range plan.Tasks {
					for _, row := range readFloe(t, strings.TrimPrefix(task.File.FilePath, "file://"), schema) {
						want, err := tr.Apply(src.Type, row[col.id-1])
						if err != nil {
							t.Fatal(err)
						}
						if got := task.File.Partition[0]; !sameValue(resultType, got, want) {
							t.Fatalf("row %v in a file of partition %v, its %s is %v", row, got, tr, want)
						}
					}
				}
				skipped := 0
				for _, f := range filters {
					var want []int64
					for _, r := range rows {
						if f.keep(r[col.id-1]) {
							want = append(want, r[0].(int64))
						}
					}
					got := scanIDs(t, tbl, f.text)
					if !slices.Equal(got, want) {
						t.Errorf("%s: %d rows, want %d", f.text, len(got), len(want))
					}
					if unpart := scanIDs(t, plain, f.text); !slices.Equal(got, unpart) {
						t.Errorf("%s: %d rows, the unpartitioned table %d", f.text, len(got), len(unpart))
					}
					fp, err := tbl.PlanFilesFiltered(ctx, table.SnapshotSelector{}, mustParse(t, f.text), false)
					if err != nil {
						t.Fatal(err)
					}
					skipped += fp.DataFilesSkipped
				}
				// The projections prune: every transform but void skips
				// files for some filter.
				if _, isVoid := tr.(iceberg.VoidTransform); isVoid != (skipped == 0) {
					t.Errorf("%d data files skipped over all filters", skipped)
				}
			})
		}
	}
}

func mustParse(t testing.TB, text string) expr.Expr {
	t.Helper()
	e, err := expr.ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
