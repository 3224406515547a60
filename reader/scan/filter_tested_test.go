package scan_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/internal/testtable"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

// Filters evaluated by the column readers on dictionaries (and on the
// PLAIN pages a chunk falls back to) return exactly the rows, in the same
// order, that decoding the columns and comparing their values returns:
// random trees of predicates, several on one column, over tables written
// by floe's writer (dictionaries falling back part way through a chunk:
// few distinct values first, many later) and by parquet-go
// (internal/testtable), with nulls, NaN, ±0, decimals at the edges of
// their precision and literals of more scale than the column.
func TestReaderTestedFiltersMatchDecodedFilters(t *testing.T) {
	ctx := context.Background()
	rows := fallbackRows(7, 4000)
	written := rowstest.NewTable(t, 2, nil, map[string]string{
		writer.PropDictSize: "300", writer.PropPageRowLimit: "150", writer.PropRowGroupSize: "20000",
	})
	rr := rowstest.Reader(t, written.Metadata.CurrentSchema(), rows)
	if _, err := ops.Append(ctx, written, rr, table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	written = rowstest.Reopen(t, written)
	built, err := testtable.Build(t.TempDir(), testtable.Options{Rows: testtable.RandomRows(8, 3000), RowsPerFile: 1500, RowsPerRowGroup: 400, RowsPerPage: 50})
	if err != nil {
		t.Fatal(err)
	}
	pqgo, err := table.Open(ctx, built.MetadataPath, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		tbl  *table.Table
		rows [][]any
	}{{"floe writer", written, rows}, {"parquet-go", pqgo, built.Rows}} {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(11, 0))
			n := 150
			if testing.Short() {
				n = 40
			}
			for i := range n {
				f := randomTree(r, tc.rows, 0)
				opts := scan.Options{Filter: f, BatchSize: []int{0, 97, 1000}[i%3]}
				if i%4 == 3 {
					opts.Columns = []string{"id"} // filter columns read for the filter alone
				}
				scan.SetReaderTests(false)
				want := projectedRows(t, tc.tbl, opts)
				scan.SetReaderTests(true)
				got := projectedRows(t, tc.tbl, opts)
				if len(got) != len(want) {
					t.Fatalf("filter %s: %d rows read on dictionaries, %d decoded", f, len(got), len(want))
				}
				for j := range got {
					if got[j] != want[j] {
						t.Fatalf("filter %s: row %d is %v read on dictionaries, %v decoded", f, j, got[j], want[j])
					}
				}
			}
		})
	}
}

// projectedRows reads a scan's rows as text, in the order it returns them.
func projectedRows(t *testing.T, tbl *table.Table, opts scan.Options) []string {
	t.Helper()
	ctx := context.Background()
	s, err := scan.New(ctx, tbl, opts)
	if err != nil {
		t.Fatalf("scan (filter %s): %v", opts.Filter, err)
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	rr, err := s.Reader(ctx, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var rows []string
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := ""
			for _, c := range rec.Columns() {
				row += c.ValueStr(i) + "|"
			}
			rows = append(rows, row)
		}
	}
	if err := rr.Err(); err != nil {
		t.Fatalf("scan (filter %s): %v", opts.Filter, err)
	}
	return rows
}

// fallbackRows are testtable's rows whose int, double, decimal and date
// columns hold a handful of values in the first rows and many after, so
// a writer's dictionary overflows part way through a chunk.
func fallbackRows(seed uint64, n int) [][]any {
	rows := testtable.RandomRows(seed, n)
	r := rand.New(rand.NewPCG(seed, 1))
	for i, row := range rows {
		few := i < n/3
		if row[1] != nil && !few {
			row[1] = int32(r.Uint32())
		}
		if row[3] != nil && few {
			row[3] = []float64{math.NaN(), 0, math.Copysign(0, -1), 1.5, math.Inf(-1)}[r.IntN(5)]
		}
		if row[8] != nil && few {
			row[8] = iceberg.DecimalFromInt64([]int64{6, 7, 65, -999_999_999, 999_999_999}[r.IntN(5)], 2)
		}
	}
	return rows
}

var testedColumns = []string{"i", "l", "d", "s", "dt", "dec", "wdec", "b"}

// randomTree is a random AND/OR of predicates, often several on one
// column, negated now and then.
func randomTree(r *rand.Rand, rows [][]any, depth int) expr.Expr {
	if depth < 2 && r.IntN(3) > 0 {
		col := testedColumns[r.IntN(len(testedColumns))]
		left := randomPredicate(r, rows, col)
		var right expr.Expr
		if r.IntN(2) == 0 {
			right = randomPredicate(r, rows, col) // the same column
		} else {
			right = randomTree(r, rows, depth+1)
		}
		var e expr.Expr
		if r.IntN(3) == 0 {
			e = expr.NewOr(left, right)
		} else {
			e = expr.NewAnd(left, right)
		}
		if r.IntN(6) == 0 {
			e = expr.NewNot(e)
		}
		return e
	}
	return randomPredicate(r, rows, testedColumns[r.IntN(len(testedColumns))])
}

func randomPredicate(r *rand.Rand, rows [][]any, col string) expr.Expr {
	pos := map[string]int{"i": 1, "l": 2, "d": 3, "s": 4, "dt": 5, "dec": 8, "wdec": 9, "b": 10}[col]
	value := func() any {
		for range 50 {
			if v := rows[r.IntN(len(rows))][pos]; v != nil {
				return v
			}
		}
		return nil
	}
	v := value()
	switch r.IntN(14) {
	case 0:
		return mustPred(expr.OpIsNull, col)
	case 1:
		return mustPred(expr.OpNotNull, col)
	case 2:
		if col == "d" {
			return mustPred(expr.OpIsNaN, col)
		}
	case 3:
		if col == "d" {
			return mustPred(expr.OpNotNaN, col)
		}
	case 4:
		if col == "s" {
			return mustPred(expr.OpStartsWith, col, v.(string)[:min(1, len(v.(string)))])
		}
	case 5:
		return mustPred(expr.OpIn, col, v, value(), value())
	case 6:
		return mustPred(expr.OpNotIn, col, v, value())
	case 7:
		if col == "dec" {
			// more scale than the column's two digits: rounding matters
			f, err := expr.ParseFilter([]string{"dec < 0.065", "dec >= 0.075", "dec = 0.065", "dec > -9999999.995"}[r.IntN(4)])
			if err != nil {
				panic(err)
			}
			return f
		}
	}
	if v == nil {
		return mustPred(expr.OpIsNull, col)
	}
	ops := []expr.Op{expr.OpEq, expr.OpNotEq, expr.OpLt, expr.OpLtEq, expr.OpGt, expr.OpGtEq}
	return mustPred(ops[r.IntN(len(ops))], col, v)
}

// mustPred builds a predicate, its literals turned from the rows' values
// into the forms literals take (a NaN dropped: it is no literal).
func mustPred(op expr.Op, col string, values ...any) expr.Expr {
	var vs []any
	for _, v := range values {
		switch x := v.(type) {
		case int32:
			v = int64(x)
		case iceberg.Decimal:
			n, err := expr.ParseNumber(x.String())
			if err != nil {
				panic(err)
			}
			v = n
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				v = nil
			}
		}
		if v != nil {
			vs = append(vs, v)
		}
	}
	if len(vs) == 0 && !op.IsUnary() {
		op, vs = expr.OpNotNull, nil
	}
	p, err := expr.NewPredicate(op, col, vs...)
	if err != nil {
		panic(fmt.Sprintf("%s %s %v: %v", col, op, vs, err))
	}
	return p
}
