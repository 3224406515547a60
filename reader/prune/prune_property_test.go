package prune

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// The pruning property: for random data and random filters, every row the
// filter accepts lies in a row group that is not skipped, within its
// Ranges.

// randomLiteral draws a value of column c: one the column holds, or a
// neighbour of one.
func (tbl *pruneTable) randomLiteral(r *rand.Rand, c int) any {
	var v any
	for range 20 {
		if v = tbl.rows[c][r.IntN(len(tbl.rows[c]))]; v != nil && !isNaNValue(v) {
			break
		}
	}
	if v == nil || isNaNValue(v) {
		switch tbl.cols[c].typ.(type) {
		case iceberg.FloatType:
			return float32(1.5)
		case iceberg.DoubleType:
			return 1.5
		case iceberg.LongType:
			return int64(r.IntN(100))
		}
		return nil
	}
	if r.IntN(3) > 0 {
		return v
	}
	d := int64(1 - 2*r.IntN(2))
	switch x := v.(type) {
	case bool:
		return !x
	case int32:
		return x + int32(d)
	case int64:
		return x + d*int64(1+r.IntN(1000))
	case float32:
		return x + float32(d)/2
	case float64:
		return x + float64(d)/2
	case string:
		if len(x) > 0 && r.IntN(2) == 0 {
			return x[:len(x)-1]
		}
		return x + "a"
	case []byte:
		return append(slices.Clone(x), byte(r.IntN(256)))
	case [16]byte:
		x[r.IntN(16)] ^= 1
		return x
	case iceberg.Decimal:
		n, _ := x.Int64()
		return iceberg.DecimalFromInt64(n+d, x.Scale)
	}
	return v
}

func (tbl *pruneTable) randomPredicate(r *rand.Rand) expr.Expr {
	c := r.IntN(len(tbl.cols))
	col := tbl.cols[c]
	ops := []expr.Op{expr.OpEq, expr.OpNotEq, expr.OpLt, expr.OpLtEq, expr.OpGt, expr.OpGtEq, expr.OpIn, expr.OpNotIn, expr.OpIsNull, expr.OpNotNull}
	switch col.typ.(type) {
	case iceberg.FloatType, iceberg.DoubleType:
		ops = append(ops, expr.OpIsNaN, expr.OpNotNaN)
	case iceberg.StringType:
		ops = append(ops, expr.OpStartsWith, expr.OpNotStartsWith, expr.OpStartsWith)
	}
	op := ops[r.IntN(len(ops))]
	var values []any
	switch {
	case op.IsUnary():
	case op == expr.OpStartsWith || op == expr.OpNotStartsWith:
		s, _ := tbl.randomLiteral(r, c).(string)
		values = []any{s[:r.IntN(len(s)+1)]}
	case op.IsSet():
		for range 1 + r.IntN(4) {
			values = append(values, tbl.randomLiteral(r, c))
		}
	default:
		values = []any{tbl.randomLiteral(r, c)}
	}
	for _, v := range values {
		if v == nil {
			return expr.AlwaysTrue{}
		}
	}
	return tbl.pred(op, col.name, values...)
}

func (tbl *pruneTable) randomFilter(r *rand.Rand, depth int) expr.Expr {
	if depth == 0 || r.IntN(5) < 2 {
		return tbl.randomPredicate(r)
	}
	switch r.IntN(4) {
	case 0:
		return &expr.Not{Child: tbl.randomFilter(r, depth-1)}
	case 1:
		return &expr.Or{Left: tbl.randomFilter(r, depth-1), Right: tbl.randomFilter(r, depth-1)}
	}
	return &expr.And{Left: tbl.randomFilter(r, depth-1), Right: tbl.randomFilter(r, depth-1)}
}

// pruneTally counts what pruning achieved over many checks.
type pruneTally struct {
	reasons                   map[string]int
	rowsKept, rowsTotal       int64
	pagesSkipped, bytesSkiped int64
}

// checkPruneProperty prunes every row group with filter and fails on a row
// the filter accepts that pruning ruled out.
func (tbl *pruneTable) checkPruneProperty(t *testing.T, filter expr.Expr, opts Options, tally *pruneTally) {
	t.Helper()
	nnf := testNNF(filter, false)
	cols := tbl.columns()
	for g := range tbl.file.RowGroups {
		res, err := RowGroup(tbl.file, g, filter, cols, opts)
		if err != nil {
			t.Fatalf("%s: row group %d: %v", filter, g, err)
		}
		if res.Skip && res.Ranges != nil || res.Ranges != nil && res.Reason != ReasonPageIndex || !res.Skip && res.Ranges == nil && res.Reason != "" {
			t.Fatalf("%s: row group %d: inconsistent result %+v", filter, g, res)
		}
		checkRangesWellFormed(t, res.Ranges, tbl.file.RowGroups[g].NumRows)
		tally.reasons[res.Reason]++
		tally.pagesSkipped += res.PagesSkipped
		tally.bytesSkiped += res.BytesSkipped
		start, n := tbl.rowGroupStart[g], tbl.file.RowGroups[g].NumRows
		tally.rowsTotal += n
		for i := range n {
			kept := !res.Skip && (res.Ranges == nil || inRanges(res.Ranges, i))
			if kept {
				tally.rowsKept++
			}
			if !kept && tbl.rowMatches(nnf, int(start+i)) {
				t.Fatalf("%s with %+v: row group %d row %d matches but was pruned (%+v); row: %s", filter, opts, g, i, res, tbl.describeRow(int(start+i)))
			}
		}
	}
}

func (tbl *pruneTable) describeRow(i int) string {
	s := ""
	for c, col := range tbl.cols {
		s += fmt.Sprintf("%s=%v ", col.name, tbl.rows[c][i])
	}
	return s
}

func checkRangesWellFormed(t *testing.T, ranges []parquet.RowRange, rows int64) {
	t.Helper()
	prev := int64(-1)
	for _, r := range ranges {
		if r.Start <= prev || r.End <= r.Start || r.End > rows {
			t.Fatalf("ranges %v are not ascending, disjoint, non-empty and within %d rows", ranges, rows)
		}
		prev = r.End
	}
}

func inRanges(ranges []parquet.RowRange, i int64) bool {
	for _, r := range ranges {
		if i >= r.Start && i < r.End {
			return true
		}
	}
	return false
}

var pruneOptionSets = []Options{
	{Statistics: true, Dictionary: true, BloomFilter: true, PageIndex: true},
	{Statistics: true},
	{Dictionary: true},
	{BloomFilter: true},
	{PageIndex: true},
}

func TestPrunePropertyRandomFilters(t *testing.T) {
	blooms := []string{"wide_as_long", "text", "dec_flba", "ts_ms", "uuid", "f32_as_double", "dbl", "bin", "ts_us_to_ns", "u32_as_long"}
	variants := []struct {
		name string
		opts []pq.WriterOption
	}{
		{"v1", []pq.WriterOption{pq.DataPageVersion(1)}},
		{"v2", []pq.WriterOption{pq.DataPageVersion(2)}},
		// dictionaries overflow and later pages fall back to PLAIN
		{"fallback", []pq.WriterOption{pq.DictionaryMaxBytes(200)}},
	}
	for version, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			tbl := writePruneTable(t, pruneCols(), 3000, uint64(version), blooms, v.opts...)
			if len(tbl.file.RowGroups) < 4 {
				t.Fatalf("want several row groups, got %d", len(tbl.file.RowGroups))
			}
			r := rand.New(rand.NewPCG(uint64(version), 3))
			tally := &pruneTally{reasons: map[string]int{}}
			for range 1500 {
				filter := tbl.randomFilter(r, 3)
				for _, opts := range pruneOptionSets {
					tbl.checkPruneProperty(t, filter, opts, tally)
				}
			}
			t.Logf("reasons %v; rows kept %d of %d; pages skipped %d (%d bytes)", tally.reasons, tally.rowsKept, tally.rowsTotal, tally.pagesSkipped, tally.bytesSkiped)
			// The property holds trivially if nothing is pruned.
			for _, reason := range []string{ReasonStatistics, ReasonDictionary, ReasonBloomFilter, ReasonPageIndex} {
				if tally.reasons[reason] == 0 {
					t.Errorf("no row group was pruned by %s", reason)
				}
			}
		})
	}
}
