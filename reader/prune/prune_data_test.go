package prune

import (
	"bytes"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/parquettest"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

// Test data for pruning: every column is generated in Go, written with
// parquet-go, and kept as the values a reader of the column's Iceberg type
// sees, so rows can be checked against predicates without our decoder.

type pruneCol struct {
	name string
	typ  iceberg.Type
	node pq.Node
	// gen returns the value to write (nil for null) and the value in typ's
	// canonical form.
	gen func(r *rand.Rand, i int) (stored, value any)
}

type pruneTable struct {
	cols   []pruneCol
	schema *iceberg.Schema
	data   []byte
	file   *parquet.File
	// rows[c][i] is column c's value in row i (nil for null).
	rows [][]any
	// rowGroupStart[g] is the first row of row group g.
	rowGroupStart []int64
}

func nullable(p float64, gen func(r *rand.Rand, i int) (any, any)) func(r *rand.Rand, i int) (any, any) {
	return func(r *rand.Rand, i int) (any, any) {
		if r.Float64() < p {
			return nil, nil
		}
		return gen(r, i)
	}
}

func same(v any) (any, any) { return v, v }

var pruneWords = []string{"apple", "apricot", "banana", "blueberry", "cherry", "date", "elder", "fig", "grape", "kiwi", "lemon", "lime", "mango", "melon", "ünïcödé", "zucchini", ""}

func floatWithSpecials(r *rand.Rand, scale float64) float64 {
	switch r.IntN(20) {
	case 0:
		return math.NaN()
	case 1:
		return math.Copysign(0, -1)
	case 2:
		return 0
	case 3:
		return math.Inf(1 - 2*r.IntN(2))
	}
	return math.Round(r.NormFloat64()*scale) / 4
}

func decimalBytes(v int64, width int) []byte {
	b := make([]byte, width)
	for i := width - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

// pruneCols covers each physical type, the promotions and unit changes
// the reader applies, sorted and unsorted columns, dictionaries, bloom
// filters, nulls, NaN and ±0.
func pruneCols() []pruneCol {
	const blockRows = 250
	return []pruneCol{
		{"id", iceberg.LongType{}, pq.Int(64), func(_ *rand.Rand, i int) (any, any) { return same(int64(i)) }},
		{"small", iceberg.IntType{}, pq.Optional(pq.Encoded(pq.Int(32), &pq.RLEDictionary)),
			nullable(0.1, func(r *rand.Rand, i int) (any, any) { return same(int32(r.IntN(40) - 20 + (i/blockRows)*7)) })},
		{"wide_as_long", iceberg.LongType{}, pq.Optional(pq.Int(32)),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) { v := int32(r.Uint32()); return v, int64(v) })},
		{"u32_as_long", iceberg.LongType{}, pq.Optional(pq.Uint(32)),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) { v := r.Uint32() >> r.IntN(32); return int32(v), int64(v) })},
		{"f32_as_double", iceberg.DoubleType{}, pq.Optional(pq.Leaf(pq.FloatType)),
			nullable(0.1, func(r *rand.Rand, _ int) (any, any) { f := float32(floatWithSpecials(r, 40)); return f, float64(f) })},
		{"dbl", iceberg.DoubleType{}, pq.Optional(pq.Leaf(pq.DoubleType)),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				if r.IntN(30) == 0 {
					return same(math.NaN())
				}
				return same(float64(i) + math.Round(r.Float64()*8)/8)
			})},
		{"f32", iceberg.FloatType{}, pq.Optional(pq.Encoded(pq.Leaf(pq.FloatType), &pq.RLEDictionary)),
			nullable(0.1, func(r *rand.Rand, _ int) (any, any) { return same(float32(floatWithSpecials(r, 4))) })},
		{"word", iceberg.StringType{}, pq.Optional(pq.Encoded(pq.String(), &pq.RLEDictionary)),
			nullable(0.1, func(r *rand.Rand, i int) (any, any) {
				// each block of rows draws from a few words, so dictionaries
				// miss most of them
				k := (i/blockRows*3 + r.IntN(4)) % len(pruneWords)
				return same(pruneWords[k])
			})},
		{"text", iceberg.StringType{}, pq.Optional(pq.Encoded(pq.String(), &pq.Plain)),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				return same(pruneWords[r.IntN(len(pruneWords))] + strings.Repeat("x", r.IntN(3)) + string(rune('a'+i/blockRows)))
			})},
		{"bin", iceberg.BinaryType{}, pq.Optional(pq.Leaf(pq.ByteArrayType)),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) {
				b := make([]byte, r.IntN(4))
				for k := range b {
					b[k] = byte(r.IntN(3)) * 0x7f
				}
				return same(b)
			})},
		{"dec_i32", iceberg.DecimalType{Precision: 12, Scale: 2}, pq.Optional(pq.Decimal(2, 7, pq.Int32Type)),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				v := int32(r.IntN(20000) - 10000 + i*3)
				return v, iceberg.DecimalFromInt64(int64(v), 2)
			})},
		{"dec_i64", iceberg.DecimalType{Precision: 18, Scale: 3}, pq.Optional(pq.Encoded(pq.Decimal(3, 18, pq.Int64Type), &pq.RLEDictionary)),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) {
				v := int64(r.IntN(30)-15) * 1e12
				return v, iceberg.DecimalFromInt64(v, 3)
			})},
		{"dec_flba", iceberg.DecimalType{Precision: 20, Scale: 3}, pq.Optional(pq.Decimal(3, 20, pq.FixedLenByteArrayType(9))),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) {
				v := r.Int64N(2e12) - 1e12
				return decimalBytes(v, 9), iceberg.DecimalFromInt64(v, 3)
			})},
		{"day", iceberg.DateType{}, pq.Optional(pq.Date()),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) { return same(int32(i/10 - 100 + r.IntN(3))) })},
		{"day_as_ts", iceberg.TimestampType{}, pq.Optional(pq.Date()),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				d := int32(r.IntN(400) - 200)
				return d, int64(d) * 86_400_000_000
			})},
		{"ts_ms", iceberg.TimestamptzType{}, pq.Optional(pq.Timestamp(pq.Millisecond)),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				v := int64(i)*1000 + r.Int64N(5000) - 2000
				return v, v * 1000
			})},
		{"ts_ns_as_us", iceberg.TimestampType{}, pq.Optional(pq.Timestamp(pq.Nanosecond)),
			nullable(0.05, func(r *rand.Rand, i int) (any, any) {
				v := int64(i-1500)*1_000_000 + r.Int64N(3000) - 1500
				return v, floorDivTest(v, 1000)
			})},
		{"ts_us_to_ns", iceberg.TimestampNsType{}, pq.Optional(pq.Timestamp(pq.Microsecond)),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) {
				v := r.Int64N(2e6) - 1e6
				return v, v * 1000
			})},
		{"uuid", iceberg.UUIDType{}, pq.Optional(pq.UUID()),
			nullable(0.05, func(r *rand.Rand, _ int) (any, any) {
				var u [16]byte
				for k := range u {
					u[k] = byte(r.IntN(2))
				}
				return u[:], u
			})},
		{"flag", iceberg.BooleanType{}, pq.Optional(pq.Leaf(pq.BooleanType)),
			nullable(0.1, func(r *rand.Rand, i int) (any, any) { return same(i/blockRows%3 == 0 || r.IntN(50) == 0) })},
		{"nothing", iceberg.LongType{}, pq.Optional(pq.Int(64)), func(*rand.Rand, int) (any, any) { return nil, nil }},
	}
}

func floorDivTest(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// writePruneTable writes rows of cols, with bloom filters on the named
// columns, small pages and several row groups.
func writePruneTable(t testing.TB, cols []pruneCol, rows int, seed uint64, blooms []string, opts ...pq.WriterOption) *pruneTable {
	t.Helper()
	group := pq.Group{}
	var fields []iceberg.NestedField
	for i, c := range cols {
		group[c.name] = c.node
		fields = append(fields, iceberg.NestedField{ID: i + 1, Name: c.name, Type: c.typ})
	}
	r := rand.New(rand.NewPCG(seed, 11))
	tbl := &pruneTable{cols: cols, schema: iceberg.NewSchema(0, fields), rows: make([][]any, len(cols))}
	data := make([]map[string]any, rows)
	for i := range data {
		row := map[string]any{}
		for c, col := range cols {
			stored, v := col.gen(r, i)
			if stored != nil && col.node.Optional() {
				// parquet-go writes a zero value of an optional column as
				// null; a pointer to it is not.
				p := reflect.New(reflect.TypeOf(stored))
				p.Elem().Set(reflect.ValueOf(stored))
				stored = p.Interface()
			}
			row[col.name] = stored
			tbl.rows[c] = append(tbl.rows[c], v)
		}
		data[i] = row
	}
	var filters []pq.BloomFilterColumn
	for _, name := range blooms {
		filters = append(filters, pq.SplitBlockFilter(10, name))
	}
	var buf bytes.Buffer
	all := append([]pq.WriterOption{pq.NewSchema("t", group), pq.PageBufferSize(512),
		pq.MaxRowsPerRowGroup(int64(rows / 5)), pq.BloomFilters(filters...)}, opts...)
	w := pq.NewGenericWriter[map[string]any](&buf, all...)
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	tbl.data = buf.Bytes()
	tbl.file = parquettest.OpenBytes(t, tbl.data)
	start := int64(0)
	for _, rg := range tbl.file.RowGroups {
		tbl.rowGroupStart = append(tbl.rowGroupStart, start)
		start += rg.NumRows
	}
	if start != int64(rows) {
		t.Fatalf("file has %d rows, wrote %d", start, rows)
	}
	return tbl
}

func (tbl *pruneTable) columns() map[int]*parquet.Node {
	m := map[int]*parquet.Node{}
	for i, c := range tbl.cols {
		if n := tbl.file.Lookup(c.name); n != nil {
			m[i+1] = n
		}
	}
	return m
}

func (tbl *pruneTable) field(name string) (int, iceberg.NestedField) {
	for i, c := range tbl.cols {
		if c.name == name {
			f, _ := tbl.schema.FindField(i + 1)
			return i, f
		}
	}
	panic("no column " + name)
}

func (tbl *pruneTable) pred(op expr.Op, name string, values ...any) *expr.BoundPredicate {
	i, f := tbl.field(name)
	return &expr.BoundPredicate{Op: op, FieldID: i + 1, Name: name, Field: f, Values: values}
}

// testNNF pushes negations into predicates, written independently of the
// reader's.
func testNNF(e expr.Expr, neg bool) expr.Expr {
	switch e := e.(type) {
	case *expr.Not:
		return testNNF(e.Child, !neg)
	case *expr.And:
		if neg {
			return &expr.Or{Left: testNNF(e.Left, true), Right: testNNF(e.Right, true)}
		}
		return &expr.And{Left: testNNF(e.Left, false), Right: testNNF(e.Right, false)}
	case *expr.Or:
		if neg {
			return &expr.And{Left: testNNF(e.Left, true), Right: testNNF(e.Right, true)}
		}
		return &expr.Or{Left: testNNF(e.Left, false), Right: testNNF(e.Right, false)}
	case *expr.BoundPredicate:
		if neg {
			c := *e
			c.Op = e.Op.Negate()
			return &c
		}
		return e
	case expr.AlwaysTrue:
		if neg {
			return expr.AlwaysFalse{}
		}
	case expr.AlwaysFalse:
		if neg {
			return expr.AlwaysTrue{}
		}
	}
	return e
}

// rowMatches evaluates a negation-free filter on row i with SQL's rules:
// null satisfies only "is null" (and, taking the looser reading, "not
// nan"); NaN satisfies only "!=", "not in" and "is nan"; -0 equals +0.
func (tbl *pruneTable) rowMatches(e expr.Expr, i int) bool {
	switch e := e.(type) {
	case *expr.And:
		return tbl.rowMatches(e.Left, i) && tbl.rowMatches(e.Right, i)
	case *expr.Or:
		return tbl.rowMatches(e.Left, i) || tbl.rowMatches(e.Right, i)
	case expr.AlwaysTrue:
		return true
	case expr.AlwaysFalse:
		return false
	case *expr.BoundPredicate:
		return valueMatches(e, tbl.rows[e.FieldID-1][i])
	}
	panic("unexpected expression")
}

func valueMatches(p *expr.BoundPredicate, v any) bool {
	switch p.Op {
	case expr.OpIsNull:
		return v == nil
	case expr.OpNotNull:
		return v != nil
	case expr.OpNotNaN:
		return v == nil || !isNaNValue(v)
	}
	if v == nil {
		return false
	}
	nan := isNaNValue(v)
	switch p.Op {
	case expr.OpIsNaN:
		return nan
	case expr.OpNotEq:
		return nan || compareTestValues(p.Field.Type, v, p.Values[0]) != 0
	case expr.OpNotIn:
		for _, l := range p.Values {
			if !nan && compareTestValues(p.Field.Type, v, l) == 0 {
				return false
			}
		}
		return true
	case expr.OpStartsWith:
		return strings.HasPrefix(v.(string), p.Values[0].(string))
	case expr.OpNotStartsWith:
		return !strings.HasPrefix(v.(string), p.Values[0].(string))
	}
	if nan {
		return false
	}
	switch p.Op {
	case expr.OpIn:
		for _, l := range p.Values {
			if compareTestValues(p.Field.Type, v, l) == 0 {
				return true
			}
		}
		return false
	case expr.OpEq:
		return compareTestValues(p.Field.Type, v, p.Values[0]) == 0
	}
	c := compareTestValues(p.Field.Type, v, p.Values[0])
	switch p.Op {
	case expr.OpLt:
		return c < 0
	case expr.OpLtEq:
		return c <= 0
	case expr.OpGt:
		return c > 0
	case expr.OpGtEq:
		return c >= 0
	}
	panic("unexpected operator")
}

func isNaNValue(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}

// compareTestValues orders non-NaN values numerically for floats (so -0
// equals +0) and by iceberg.Compare otherwise.
func compareTestValues(t iceberg.Type, a, b any) int {
	var x, y float64
	switch a := a.(type) {
	case float32:
		x, y = float64(a), float64(b.(float32))
	case float64:
		x, y = a, b.(float64)
	default:
		return iceberg.Compare(t, a, b)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}
