package prune

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/reader/parquet"
	pq "github.com/parquet-go/parquet-go"
)

var allPruning = Options{Statistics: true, Dictionary: true, BloomFilter: true, PageIndex: true}

// reasonTable has a column shaped for each mechanism: rows are 3000, row
// groups 600 rows.
func reasonTable(t *testing.T) *pruneTable {
	return writePruneTable(t, []pruneCol{
		{"id", iceberg.LongType{}, pq.Int(64), func(_ *rand.Rand, i int) (any, any) { return same(int64(i)) }},
		// steps of 10 within each row group: 635 is inside the chunk's
		// bounds but between two pages'
		{"gap", iceberg.LongType{}, pq.Int(64), func(_ *rand.Rand, i int) (any, any) { return same(int64(i%600) * 10) }},
		// dictionary of even numbers only
		{"even", iceberg.IntType{}, pq.Encoded(pq.Int(32), &pq.RLEDictionary), func(r *rand.Rand, _ int) (any, any) { return same(int32(r.IntN(50) * 2)) }},
		// bloom filter over random strings
		{"key", iceberg.StringType{}, pq.Encoded(pq.String(), &pq.Plain), func(r *rand.Rand, i int) (any, any) {
			return same(fmt.Sprintf("k%06d", r.IntN(1_000_000)))
		}},
		{"maybe", iceberg.LongType{}, pq.Optional(pq.Int(64)), nullable(0.5, func(_ *rand.Rand, i int) (any, any) { return same(int64(i / 600)) })},
	}, 3000, 5, []string{"key"})
}

func pruneAll(t *testing.T, tbl *pruneTable, filter expr.Expr, opts Options) []Result {
	t.Helper()
	var out []Result
	for g := range tbl.file.RowGroups {
		res, err := RowGroup(tbl.file, g, filter, tbl.columns(), opts)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res)
	}
	// whatever it found, it must keep every matching row
	tbl.checkPruneProperty(t, filter, opts, &pruneTally{reasons: map[string]int{}})
	return out
}

func TestPruneEachReason(t *testing.T) {
	tbl := reasonTable(t)
	// a key that no row holds but that lies within every row group's bounds
	absent := "k500000x"
	for c, v := range tbl.rows[3] {
		if v == absent {
			t.Fatalf("row %d holds the absent key", c)
		}
	}
	cases := []struct {
		name   string
		filter expr.Expr
		reason string
	}{
		{"statistics", tbl.pred(expr.OpGt, "id", int64(5000)), ReasonStatistics},
		{"dictionary", tbl.pred(expr.OpEq, "even", int32(31)), ReasonDictionary},
		{"dictionary in", tbl.pred(expr.OpIn, "even", int32(1), int32(33), int32(97)), ReasonDictionary},
		{"bloom filter", tbl.pred(expr.OpEq, "key", absent), ReasonBloomFilter},
		{"page index", tbl.pred(expr.OpEq, "gap", int64(635)), ReasonPageIndex},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for g, res := range pruneAll(t, tbl, c.filter, allPruning) {
				if !res.Skip || res.Reason != c.reason {
					t.Errorf("row group %d: got %+v, want a skip by %s", g, res, c.reason)
				}
				if res.BytesSkipped <= 0 || res.PagesSkipped <= 0 {
					t.Errorf("row group %d: skip counted %d pages, %d bytes", g, res.PagesSkipped, res.BytesSkipped)
				}
			}
			// without the structure that decided, nothing is skipped
			opts := allPruning
			switch c.reason {
			case ReasonStatistics:
				opts.Statistics, opts.PageIndex = false, false
			case ReasonDictionary:
				opts.Dictionary = false
			case ReasonBloomFilter:
				opts.BloomFilter = false
			case ReasonPageIndex:
				opts.PageIndex = false
			}
			for g, res := range pruneAll(t, tbl, c.filter, opts) {
				if res.Skip {
					t.Errorf("row group %d skipped by %s with %+v", g, res.Reason, opts)
				}
			}
		})
	}
}

func TestPrunePageIndexNarrowsRows(t *testing.T) {
	tbl := reasonTable(t)
	filter := &expr.And{Left: tbl.pred(expr.OpGtEq, "id", int64(700)), Right: tbl.pred(expr.OpLt, "id", int64(760))}
	res := pruneAll(t, tbl, filter, allPruning)
	if !res[0].Skip || res[0].Reason != ReasonStatistics {
		t.Errorf("row group 0: %+v", res[0])
	}
	r := res[1]
	if r.Skip || r.Reason != ReasonPageIndex || len(r.Ranges) != 1 {
		t.Fatalf("row group 1: %+v", r)
	}
	// rows 100-159 of row group 1, widened to whole pages
	if got := r.Ranges[0]; got.Start > 100 || got.End < 160 || got.End-got.Start > 300 {
		t.Errorf("row group 1 keeps %v", got)
	}
	if r.PagesSkipped == 0 || r.BytesSkipped == 0 {
		t.Errorf("row group 1 counted %d pages, %d bytes skipped", r.PagesSkipped, r.BytesSkipped)
	}
	// OR across columns whose pages differ unites their rows
	or := &expr.Or{Left: filter, Right: tbl.pred(expr.OpEq, "gap", int64(5000))}
	res = pruneAll(t, tbl, or, allPruning)
	if res[1].Skip || len(res[1].Ranges) < 2 {
		t.Errorf("row group 1 with OR: %+v", res[1])
	}
}

func TestPruneNegations(t *testing.T) {
	tbl := reasonTable(t)
	cases := []struct {
		filter expr.Expr
		skip   []bool
	}{
		// not (id >= 600) is id < 600
		{&expr.Not{Child: tbl.pred(expr.OpGtEq, "id", int64(600))}, []bool{false, true, true, true, true}},
		// not (id < 600 or id >= 1200)
		{&expr.Not{Child: &expr.Or{Left: tbl.pred(expr.OpLt, "id", int64(600)), Right: tbl.pred(expr.OpGtEq, "id", int64(1200))}}, []bool{true, false, true, true, true}},
		// not (maybe is not null) is maybe is null: every row group has nulls
		{&expr.Not{Child: tbl.pred(expr.OpNotNull, "maybe")}, []bool{false, false, false, false, false}},
		// not (maybe != 2): maybe = 2, nulls do not match
		{&expr.Not{Child: tbl.pred(expr.OpNotEq, "maybe", int64(2))}, []bool{true, true, false, true, true}},
		{&expr.Not{Child: expr.AlwaysTrue{}}, []bool{true, true, true, true, true}},
	}
	for _, c := range cases {
		var got []bool
		for _, res := range pruneAll(t, tbl, c.filter, Options{Statistics: true}) {
			got = append(got, res.Skip)
		}
		if !slices.Equal(got, c.skip) {
			t.Errorf("%s: skips %v, want %v", c.filter, got, c.skip)
		}
	}
}

// A filter parsed from text and bound to the schema, as scans produce it.
func TestPruneBoundTextFilter(t *testing.T) {
	tbl := reasonTable(t)
	e, err := expr.ParseText("id >= 1200 and not (even in (1, 3) or gap > 2000) and key like 'k%'")
	if err != nil {
		t.Fatal(err)
	}
	bound, err := expr.Bind(e, tbl.schema, false)
	if err != nil {
		t.Fatal(err)
	}
	var skips []bool
	for _, res := range pruneAll(t, tbl, bound, allPruning) {
		skips = append(skips, res.Skip)
	}
	if want := []bool{true, true, false, false, false}; !slices.Equal(skips, want) {
		t.Errorf("skips %v, want %v", skips, want)
	}
}

func TestPruneMissingAndUnusableColumns(t *testing.T) {
	tbl := reasonTable(t)
	f := tbl.file
	impossible := tbl.pred(expr.OpGt, "id", int64(1e9))
	// the column is absent from the map: unknown, so nothing is skipped
	for g := range f.RowGroups {
		for _, filter := range []expr.Expr{impossible, tbl.pred(expr.OpIsNull, "id")} {
			res, err := RowGroup(f, g, filter, map[int]*parquet.Node{}, allPruning)
			if err != nil || res.Skip || res.Ranges != nil {
				t.Fatalf("%s on a missing column: %+v, %v", filter, res, err)
			}
		}
	}
	// a predicate type the column cannot be read as is never used
	wrong := *impossible
	wrong.Field.Type = iceberg.StringType{}
	wrong.Values = []any{"zzz"}
	res, err := RowGroup(f, 0, &wrong, tbl.columns(), allPruning)
	if err != nil || res.Skip {
		t.Fatalf("mistyped predicate: %+v, %v", res, err)
	}
	if _, err := RowGroup(f, 0, &expr.Predicate{Op: expr.OpEq, Column: "id", Values: []any{int64(1)}}, tbl.columns(), allPruning); err == nil {
		t.Error("an unbound filter was accepted")
	}
	if _, err := RowGroup(f, len(f.RowGroups), impossible, tbl.columns(), allPruning); err == nil {
		t.Error("a row group out of range was accepted")
	}
	if res, err := RowGroup(f, 0, nil, tbl.columns(), allPruning); err != nil || res.Skip {
		t.Errorf("nil filter: %+v, %v", res, err)
	}
}

// Float columns: NaN matches != and not in whatever the bounds say, and
// -0 equals +0 although their bits (and bloom filter hashes) differ.
func TestPruneFloatSpecials(t *testing.T) {
	tbl := writePruneTable(t, []pruneCol{
		// every value is 1 except a NaN in row group 1; bounds cannot
		// exclude NaN, the dictionary can
		{"ones", iceberg.DoubleType{}, pq.Encoded(pq.Leaf(pq.DoubleType), &pq.RLEDictionary), func(_ *rand.Rand, i int) (any, any) {
			if i == 700 {
				return same(math.NaN())
			}
			return same(1.0)
		}},
		// row groups alternate between holding -0 and +0 among other values
		{"zero", iceberg.DoubleType{}, pq.Leaf(pq.DoubleType), func(_ *rand.Rand, i int) (any, any) {
			if i%600 == 17 {
				return same(math.Copysign(0, float64(1-2*(i/600%2))))
			}
			return same(float64(i%600) + 0.5)
		}},
	}, 3000, 1, []string{"zero"})
	skips := func(filter expr.Expr, opts Options) []bool {
		var out []bool
		for _, r := range pruneAll(t, tbl, filter, opts) {
			out = append(out, r.Skip)
		}
		return out
	}
	if got, want := skips(tbl.pred(expr.OpNotEq, "ones", 1.0), allPruning), []bool{true, false, true, true, true}; !slices.Equal(got, want) {
		t.Errorf("ones != 1: %v, want %v", got, want)
	}
	if got, want := skips(tbl.pred(expr.OpNotIn, "ones", 1.0, 2.0), allPruning), []bool{true, false, true, true, true}; !slices.Equal(got, want) {
		t.Errorf("ones not in (1, 2): %v, want %v", got, want)
	}
	if got, want := skips(tbl.pred(expr.OpGt, "ones", 1.0), allPruning), []bool{true, true, true, true, true}; !slices.Equal(got, want) {
		t.Errorf("ones > 1: %v, want %v", got, want)
	}
	for _, lit := range []float64{0, math.Copysign(0, -1)} {
		bloomOnly := Options{BloomFilter: true}
		if got := skips(tbl.pred(expr.OpEq, "zero", lit), bloomOnly); slices.Contains(got, true) {
			t.Errorf("zero = %v skipped by the bloom filter: %v", lit, got)
		}
		if got := skips(tbl.pred(expr.OpEq, "zero", lit+0.25), bloomOnly); slices.Contains(got, false) {
			t.Errorf("zero = %v kept: %v", lit+0.25, got)
		}
	}
}

// Timestamps stored in nanoseconds and read as microseconds round down,
// as the reader does, also before 1970.
func TestPruneUnitConversionRoundsDown(t *testing.T) {
	tbl := writePruneTable(t, []pruneCol{
		{"ts", iceberg.TimestampType{}, pq.Timestamp(pq.Nanosecond), func(_ *rand.Rand, i int) (any, any) {
			v := int64(-1500 - i*1000)
			return v, floorDivTest(v, 1000)
		}},
	}, 3000, 1, nil)
	for g, rg := range tbl.file.RowGroups {
		// values descend: the first row is the largest, the last the least
		for _, row := range []int64{tbl.rowGroupStart[g], tbl.rowGroupStart[g] + rg.NumRows - 1} {
			for _, op := range []expr.Op{expr.OpEq, expr.OpGtEq, expr.OpLtEq, expr.OpIn} {
				filter := tbl.pred(op, "ts", tbl.rows[0][row])
				res, err := RowGroup(tbl.file, g, filter, tbl.columns(), allPruning)
				if err != nil || res.Skip || res.Ranges != nil && !inRanges(res.Ranges, row-tbl.rowGroupStart[g]) {
					t.Errorf("row group %d, %s: %+v %v", g, filter, res, err)
				}
			}
		}
	}
}

func TestPruneValueDecoders(t *testing.T) {
	le32 := func(v uint32) []byte { return binary.LittleEndian.AppendUint32(nil, v) }
	le64 := func(v uint64) []byte { return binary.LittleEndian.AppendUint64(nil, v) }
	neg := func(v int64) uint64 { return uint64(v) }
	node := func(p parquet.PhysicalType, l parquet.LogicalType, width int) *parquet.Node {
		return &parquet.Node{Physical: p, Logical: l, TypeLength: width, Leaf: 0}
	}
	dec := func(p, s int32) parquet.LogicalType {
		return parquet.LogicalType{Kind: parquet.LogicalDecimal, Precision: p, Scale: s}
	}
	cases := []struct {
		name string
		n    *parquet.Node
		t    iceberg.Type
		raw  []byte
		want bounds.Value
		ok   bool
	}{
		{"int as long", node(parquet.Int32, parquet.LogicalType{}, 0), iceberg.LongType{}, le32(uint32(neg(-5))), bounds.Value{Int: -5}, true},
		{"uint32 as long", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalInteger, BitWidth: 32}, 0), iceberg.LongType{}, le32(0xffffffff), bounds.Value{Int: 0xffffffff}, true},
		{"uint32 as int", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalInteger, BitWidth: 32}, 0), iceberg.IntType{}, le32(1), bounds.Value{}, false},
		{"uint64 as long", node(parquet.Int64, parquet.LogicalType{Kind: parquet.LogicalInteger, BitWidth: 64}, 0), iceberg.LongType{}, le64(1), bounds.Value{}, false},
		{"float as double", node(parquet.Float, parquet.LogicalType{}, 0), iceberg.DoubleType{}, le32(math.Float32bits(0.1)), bounds.Value{Float: float64(float32(0.1))}, true},
		{"double as float", node(parquet.Double, parquet.LogicalType{}, 0), iceberg.FloatType{}, le64(1), bounds.Value{}, false},
		{"date as timestamp", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalDate}, 0), iceberg.TimestampType{}, le32(uint32(neg(-1))), bounds.Value{Int: -86_400_000_000}, true},
		{"date as timestamp_ns", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalDate}, 0), iceberg.TimestampNsType{}, le32(2), bounds.Value{Int: 2 * 86_400_000_000_000}, true},
		{"date beyond timestamp_ns", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalDate}, 0), iceberg.TimestampNsType{}, le32(1 << 30), bounds.Value{}, false},
		{"millis as micros", node(parquet.Int64, parquet.LogicalType{Kind: parquet.LogicalTimestamp, Unit: parquet.Millis}, 0), iceberg.TimestamptzType{}, le64(neg(-3)), bounds.Value{Int: -3000}, true},
		{"nanos as micros", node(parquet.Int64, parquet.LogicalType{Kind: parquet.LogicalTimestamp, Unit: parquet.Nanos}, 0), iceberg.TimestampType{}, le64(neg(-1500)), bounds.Value{Int: -2}, true},
		{"micros as nanos", node(parquet.Int64, parquet.LogicalType{Kind: parquet.LogicalTimestamp, Unit: parquet.Micros}, 0), iceberg.TimestampNsType{}, le64(7), bounds.Value{Int: 7000}, true},
		{"int96", node(parquet.Int96, parquet.LogicalType{}, 0), iceberg.TimestampType{}, make([]byte, 12), bounds.Value{}, false},
		{"time millis", node(parquet.Int32, parquet.LogicalType{Kind: parquet.LogicalTime, Unit: parquet.Millis}, 0), iceberg.TimeType{}, le32(5), bounds.Value{Int: 5000}, true},
		{"time nanos", node(parquet.Int64, parquet.LogicalType{Kind: parquet.LogicalTime, Unit: parquet.Nanos}, 0), iceberg.TimeType{}, le64(5999), bounds.Value{Int: 5}, true},
		{"decimal int32 widened", node(parquet.Int32, dec(7, 2), 0), iceberg.DecimalType{Precision: 12, Scale: 2}, le32(uint32(neg(-12345))), bounds.Value{Hi: -1, Lo: neg(-12345)}, true},
		{"decimal int64 rescaled", node(parquet.Int64, dec(10, 1), 0), iceberg.DecimalType{Precision: 12, Scale: 3}, le64(7), bounds.Value{Lo: 700}, true},
		{"decimal fixed", node(parquet.FixedLenByteArray, dec(20, 3), 9), iceberg.DecimalType{Precision: 20, Scale: 3}, decimalBytes(-2, 9), bounds.Value{Hi: -1, Lo: neg(-2)}, true},
		{"decimal bytes", node(parquet.ByteArray, dec(20, 3), 0), iceberg.DecimalType{Precision: 20, Scale: 3}, []byte{0x01, 0x00}, bounds.Value{Lo: 256}, true},
		{"decimal bytes of 17", node(parquet.ByteArray, dec(38, 0), 0), iceberg.DecimalType{Precision: 38, Scale: 0}, append([]byte{0x01}, make([]byte, 16)...), bounds.Value{}, false},
		{"decimal narrowed", node(parquet.Int64, dec(10, 3), 0), iceberg.DecimalType{Precision: 12, Scale: 2}, le64(7), bounds.Value{}, false},
		{"string", node(parquet.ByteArray, parquet.LogicalType{Kind: parquet.LogicalString}, 0), iceberg.StringType{}, []byte("abc"), bounds.Value{Bytes: []byte("abc")}, true},
		{"unannotated binary as string", node(parquet.ByteArray, parquet.LogicalType{}, 0), iceberg.StringType{}, []byte("abc"), bounds.Value{Bytes: []byte("abc")}, true},
		{"uuid", node(parquet.FixedLenByteArray, parquet.LogicalType{Kind: parquet.LogicalUUID}, 16), iceberg.UUIDType{}, make([]byte, 16), bounds.Value{Bytes: make([]byte, 16)}, true},
		{"fixed of the wrong length", node(parquet.FixedLenByteArray, parquet.LogicalType{}, 8), iceberg.FixedType{Length: 16}, make([]byte, 8), bounds.Value{}, false},
		{"boolean", node(parquet.Boolean, parquet.LogicalType{}, 0), iceberg.BooleanType{}, []byte{1}, bounds.Value{Int: 1}, true},
		{"short value", node(parquet.Int64, parquet.LogicalType{}, 0), iceberg.LongType{}, []byte{1, 2}, bounds.Value{}, false},
	}
	for _, c := range cases {
		d, ok := newValueDecoder(c.n, c.t)
		var got bounds.Value
		if ok {
			got, ok = d.decode(c.raw)
		}
		if ok != c.ok || ok && (got.Int != c.want.Int || got.Float != c.want.Float || got.Hi != c.want.Hi || got.Lo != c.want.Lo || string(got.Bytes) != string(c.want.Bytes)) {
			t.Errorf("%s: got %+v (ok %v), want %+v (ok %v)", c.name, got, ok, c.want, c.ok)
		}
	}
}

// Only min_value/max_value are trusted everywhere; the deprecated min/max
// only for types whose signed order is the column's.
func TestPruneLegacyStatistics(t *testing.T) {
	le64 := func(v int64) []byte { return binary.LittleEndian.AppendUint64(nil, uint64(v)) }
	le32 := func(v int32) []byte { return binary.LittleEndian.AppendUint32(nil, uint32(v)) }
	cases := []struct {
		name     string
		node     *parquet.Node
		typ      iceberg.Type
		min, max []byte
		bounded  bool
	}{
		{"long", &parquet.Node{Physical: parquet.Int64}, iceberg.LongType{}, le64(-3), le64(9), true},
		{"date", &parquet.Node{Physical: parquet.Int32, Logical: parquet.LogicalType{Kind: parquet.LogicalDate}}, iceberg.DateType{}, le32(-3), le32(9), true},
		{"decimal in int64", &parquet.Node{Physical: parquet.Int64, Logical: parquet.LogicalType{Kind: parquet.LogicalDecimal, Precision: 10, Scale: 2}}, iceberg.DecimalType{Precision: 10, Scale: 2}, le64(-3), le64(9), true},
		{"double", &parquet.Node{Physical: parquet.Double}, iceberg.DoubleType{}, le64(int64(math.Float64bits(-1))), le64(int64(math.Float64bits(2))), true},
		{"string", &parquet.Node{Physical: parquet.ByteArray, Logical: parquet.LogicalType{Kind: parquet.LogicalString}}, iceberg.StringType{}, []byte("a"), []byte("é"), false},
		{"unsigned", &parquet.Node{Physical: parquet.Int32, Logical: parquet.LogicalType{Kind: parquet.LogicalInteger, BitWidth: 32}}, iceberg.LongType{}, le32(3), le32(9), false},
		{"decimal in bytes", &parquet.Node{Physical: parquet.FixedLenByteArray, TypeLength: 2, Logical: parquet.LogicalType{Kind: parquet.LogicalDecimal, Precision: 4, Scale: 0}}, iceberg.DecimalType{Precision: 4, Scale: 0}, []byte{0xff, 0}, []byte{1, 0}, false},
	}
	for _, c := range cases {
		col := &pruneColumn{fileColumn: &fileColumn{node: c.node}, chunk: &parquet.ColumnChunk{Physical: c.node.Physical, Statistics: &parquet.Statistics{LegacyMin: c.min, LegacyMax: c.max, HasLegacyMin: true, HasLegacyMax: true}}}
		col.node.DefLevel = 1
		col.dec, col.usable = newValueDecoder(c.node, c.typ)
		if !col.usable {
			t.Fatalf("%s: no decoder", c.name)
		}
		s := chunkSummary(col, 10)
		if s.HasLower != c.bounded || s.HasUpper != c.bounded {
			t.Errorf("%s: legacy bounds used %v/%v, want %v", c.name, s.HasLower, s.HasUpper, c.bounded)
		}
		// min_value/max_value win over the legacy fields
		col.chunk.Statistics.Min, col.chunk.Statistics.Max = c.min, c.max
		col.chunk.Statistics.HasMin, col.chunk.Statistics.HasMax = true, true
		if s := chunkSummary(col, 10); !s.HasLower || !s.HasUpper {
			t.Errorf("%s: min_value/max_value not used", c.name)
		}
	}
}

// Statistics with a NaN bound, or inverted bounds, bound nothing: x > 5
// is not ruled out by a chunk whose bounds, taken at their word, end
// below 5.
func TestPruneDistrustedBounds(t *testing.T) {
	nan := binary.LittleEndian.AppendUint64(nil, math.Float64bits(math.NaN()))
	one := binary.LittleEndian.AppendUint64(nil, math.Float64bits(1))
	two := binary.LittleEndian.AppendUint64(nil, math.Float64bits(2))
	n := &parquet.Node{Physical: parquet.Double, DefLevel: 1}
	field := iceberg.NestedField{ID: 1, Name: "x", Type: iceberg.DoubleType{}}
	gt5 := bounds.NewLeaf(&expr.BoundPredicate{Op: expr.OpGt, FieldID: 1, Name: "x", Field: field, Values: []any{5.0}})
	trusted := &pruneColumn{fileColumn: &fileColumn{node: n}, chunk: &parquet.ColumnChunk{Physical: parquet.Double, Statistics: &parquet.Statistics{Min: one, Max: two, HasMin: true, HasMax: true}}}
	trusted.dec, trusted.usable = newValueDecoder(n, iceberg.DoubleType{})
	if s := chunkSummary(trusted, 5); gt5.MightMatch(&s) {
		t.Fatal("bounds [1, 2] do not rule out x > 5: the test shows nothing")
	}
	for _, mm := range [][2][]byte{{nan, one}, {one, nan}, {two, one}} {
		col := &pruneColumn{fileColumn: &fileColumn{node: n}, chunk: &parquet.ColumnChunk{Physical: parquet.Double, Statistics: &parquet.Statistics{Min: mm[0], Max: mm[1], HasMin: true, HasMax: true}}}
		col.dec, col.usable = newValueDecoder(n, iceberg.DoubleType{})
		if s := chunkSummary(col, 5); !gt5.MightMatch(&s) {
			t.Errorf("bounds %v trusted: x > 5 ruled out", mm)
		}
	}
	// parquet-go's dictionary-encoded float bounds ignore values next to a NaN
	chunk := &parquet.ColumnChunk{Physical: parquet.Float, Encodings: []parquet.Encoding{parquet.EncRLEDictionary, parquet.EncPlain}}
	if !knownBadFloatBounds("github.com/parquet-go/parquet-go version 0.32.0(build )", chunk) || knownBadFloatBounds("parquet-mr version 1.13.1", chunk) {
		t.Error("knownBadFloatBounds misjudges the writer")
	}
	// floe's writer, on parquet-go, dictionary-encoded floats up to 0.1.0;
	// its PLAIN float chunks and its other types are sound
	if !knownBadFloatBounds("floe version 0.1.0(build )", chunk) {
		t.Error("floe's dictionary-encoded float bounds trusted")
	}
	plain := &parquet.ColumnChunk{Physical: parquet.Double, Encodings: []parquet.Encoding{parquet.EncPlain, parquet.EncRLE}}
	ints := &parquet.ColumnChunk{Physical: parquet.Int64, Encodings: []parquet.Encoding{parquet.EncRLEDictionary, parquet.EncPlain}, DictionaryPageOffset: 4}
	if knownBadFloatBounds("floe version 0.1.1(build )", plain) || knownBadFloatBounds("floe version 0.1.0(build )", ints) {
		t.Error("floe's PLAIN float or dictionary int bounds distrusted")
	}
}

func TestPruneRangeOperations(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	const rows = 64
	random := func() ([]parquet.RowRange, [rows]bool) {
		var set [rows]bool
		var out []parquet.RowRange
		for i := 0; i < rows; {
			n := 1 + r.IntN(8)
			if r.IntN(2) == 0 {
				out = append(out, parquet.RowRange{Start: int64(i), End: int64(min(i+n, rows))})
				for k := i; k < min(i+n, rows); k++ {
					set[k] = true
				}
				i += n + 1 + r.IntN(3)
			} else {
				i += n
			}
		}
		return out, set
	}
	for range 500 {
		a, as := random()
		b, bs := random()
		for _, op := range []string{"and", "or"} {
			got := IntersectRowRanges(a, b)
			if op == "or" {
				got = unionRowRanges(a, b)
			}
			checkRangesWellFormed(t, got, rows)
			for i := range rows {
				want := as[i] && bs[i]
				if op == "or" {
					want = as[i] || bs[i]
				}
				if inRanges(got, int64(i)) != want {
					t.Fatalf("%v %s %v = %v: row %d wrong", a, op, b, got, i)
				}
			}
			if op == "or" {
				for k := 1; k < len(got); k++ {
					if got[k].Start == got[k-1].End {
						t.Fatalf("union %v leaves touching ranges apart", got)
					}
				}
			}
		}
	}
}

// Our bloom filter check agrees with parquet-go's, which wrote the filter,
// on values present and absent.
func TestPruneBloomFilterMatchesWriter(t *testing.T) {
	tbl := reasonTable(t)
	pf, err := pq.OpenFile(bytes.NewReader(tbl.data), int64(len(tbl.data)))
	if err != nil {
		t.Fatal(err)
	}
	n := tbl.file.Lookup("key")
	r := rand.New(rand.NewPCG(1, 1))
	for g, rg := range pf.RowGroups() {
		theirs := rg.ColumnChunks()[n.Leaf].BloomFilter()
		ours, err := tbl.file.ReadBloomFilter(&tbl.file.RowGroups[g].Columns[n.Leaf])
		if err != nil || ours == nil || theirs == nil {
			t.Fatalf("row group %d: filters %v %v (%v)", g, ours, theirs, err)
		}
		present, absent := 0, 0
		for k := range 2000 {
			key := fmt.Sprintf("k%06d", r.IntN(1_000_000))
			if k%2 == 0 {
				key = tbl.rows[3][tbl.rowGroupStart[g]+int64(r.IntN(600))].(string)
			}
			want, err := theirs.Check(pq.ValueOf(key))
			if err != nil {
				t.Fatal(err)
			}
			field := iceberg.NestedField{ID: 1, Name: "key", Type: iceberg.StringType{}}
			pred := &prunePredicate{leaf: bounds.NewLeaf(&expr.BoundPredicate{Op: expr.OpEq, FieldID: 1, Name: "key", Field: field, Values: []any{key}})}
			col := &pruneColumn{fileColumn: &fileColumn{dec: valueDecoder{domain: bounds.DomainBytes, kind: decBytes, invertible: true}}, bloomRead: true, bloom: ours}
			got, _ := (&rowGroupPruner{}).bloomMayMatch(pred, col)
			if got != want {
				t.Fatalf("row group %d key %q: ours %v, parquet-go %v", g, key, got, want)
			}
			if got {
				present++
			} else {
				absent++
			}
		}
		if absent < 500 || present < 1000 {
			t.Errorf("row group %d: %d present, %d absent: the check is not discriminating", g, present, absent)
		}
		ours.Release()
	}
}

func TestPruneAllDictionaryEncoded(t *testing.T) {
	stats := func(enc ...parquet.Encoding) []parquet.PageEncodingStats {
		out := []parquet.PageEncodingStats{{PageType: int32(parquet.PageDictionary), Encoding: parquet.EncPlain, Count: 1}}
		for _, e := range enc {
			out = append(out, parquet.PageEncodingStats{PageType: int32(parquet.PageData), Encoding: e, Count: 3})
		}
		return out
	}
	cases := []struct {
		name  string
		chunk parquet.ColumnChunk
		want  bool
	}{
		{"stats: dictionary pages only", parquet.ColumnChunk{EncodingStats: stats(parquet.EncRLEDictionary), Encodings: []parquet.Encoding{parquet.EncPlain, parquet.EncRLEDictionary}}, true},
		{"stats: a fallback page", parquet.ColumnChunk{EncodingStats: stats(parquet.EncRLEDictionary, parquet.EncPlain)}, false},
		{"stats: an empty fallback entry", parquet.ColumnChunk{EncodingStats: append(stats(parquet.EncPlainDictionary), parquet.PageEncodingStats{PageType: int32(parquet.PageDataV2), Encoding: parquet.EncPlain})}, true},
		{"parquet-mr v1", parquet.ColumnChunk{Encodings: []parquet.Encoding{parquet.EncPlainDictionary, parquet.EncRLE, parquet.EncBitPacked}}, true},
		{"parquet-mr v1 fallback", parquet.ColumnChunk{Encodings: []parquet.Encoding{parquet.EncPlainDictionary, parquet.EncRLE, parquet.EncPlain}}, false},
		{"RLE_DICTIONARY without stats", parquet.ColumnChunk{Encodings: []parquet.Encoding{parquet.EncPlain, parquet.EncRLEDictionary, parquet.EncRLE}}, false},
		{"plain", parquet.ColumnChunk{Encodings: []parquet.Encoding{parquet.EncPlain, parquet.EncRLE}}, false},
		{"an empty stats list says nothing", parquet.ColumnChunk{EncodingStats: []parquet.PageEncodingStats{}, Encodings: []parquet.Encoding{parquet.EncPlain, parquet.EncRLE}}, false},
	}
	for _, c := range cases {
		if got := allDictionaryEncoded(&c.chunk); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// A literal between two of a column's steps cannot be stored: bloom
// filters are not even asked.
func TestPrunePlainLiteral(t *testing.T) {
	ms := &parquet.Node{Physical: parquet.Int64, Logical: parquet.LogicalType{Kind: parquet.LogicalTimestamp, Unit: parquet.Millis}}
	d, _ := newValueDecoder(ms, iceberg.TimestampType{})
	if _, absent, ok := d.plainLiteral(nil, &bounds.Value{Int: 1500}); !absent || !ok {
		t.Errorf("1500 µs in a millisecond column: absent %v ok %v", absent, ok)
	}
	if b, absent, ok := d.plainLiteral(nil, &bounds.Value{Int: -3000}); absent || !ok || int64(binary.LittleEndian.Uint64(b)) != -3 {
		t.Errorf("-3000 µs: %v %v %v", b, absent, ok)
	}
	i32 := &parquet.Node{Physical: parquet.Int32}
	d, _ = newValueDecoder(i32, iceberg.LongType{})
	if _, absent, ok := d.plainLiteral(nil, &bounds.Value{Int: 1 << 40}); !absent || !ok {
		t.Error("a long beyond an int column's range")
	}
	ns := &parquet.Node{Physical: parquet.Int64, Logical: parquet.LogicalType{Kind: parquet.LogicalTimestamp, Unit: parquet.Nanos}}
	d, _ = newValueDecoder(ns, iceberg.TimestampType{})
	if _, _, ok := d.plainLiteral(nil, &bounds.Value{Int: 5}); ok {
		t.Error("nanoseconds read as microseconds cannot be inverted")
	}
	flba := &parquet.Node{Physical: parquet.FixedLenByteArray, TypeLength: 3, Logical: parquet.LogicalType{Kind: parquet.LogicalDecimal, Precision: 6, Scale: 0}}
	d, _ = newValueDecoder(flba, iceberg.DecimalType{Precision: 6, Scale: 0})
	if b, absent, ok := d.plainLiteral(nil, &bounds.Value{Hi: -1, Lo: ^uint64(0)}); absent || !ok || !slices.Equal(b, []byte{0xff, 0xff, 0xff}) {
		t.Errorf("-1 in fixed[3]: %x %v %v", b, absent, ok)
	}
	if _, absent, _ := d.plainLiteral(nil, &bounds.Value{Lo: 1 << 23}); !absent {
		t.Error("2^23 fits no signed 3-byte decimal")
	}
}

// A column order the reader does not know voids min_value/max_value and
// the column index, not the deprecated min/max.
func TestPruneUnknownColumnOrder(t *testing.T) {
	tbl := reasonTable(t)
	for _, rg := range tbl.file.RowGroups {
		for _, c := range rg.Columns {
			if c.UnknownColumnOrder {
				t.Fatal("parquet-go's TYPE_ORDER read as unknown")
			}
		}
	}
	filter := tbl.pred(expr.OpGt, "id", int64(5000))
	n := tbl.file.Lookup("id")
	for g := range tbl.file.RowGroups {
		tbl.file.RowGroups[g].Columns[n.Leaf].UnknownColumnOrder = true
	}
	for g, res := range pruneAll(t, tbl, filter, allPruning) {
		if res.Skip || res.Ranges != nil {
			t.Errorf("row group %d pruned by bounds of an unknown order: %+v", g, res)
		}
	}
	col := &pruneColumn{fileColumn: &fileColumn{node: n}, chunk: &parquet.ColumnChunk{UnknownColumnOrder: true, Statistics: &parquet.Statistics{
		Min: make([]byte, 8), Max: make([]byte, 8), HasMin: true, HasMax: true,
		LegacyMin: make([]byte, 8), LegacyMax: make([]byte, 8), HasLegacyMin: true, HasLegacyMax: true}}}
	col.dec, _ = newValueDecoder(n, iceberg.LongType{})
	if s := chunkSummary(col, 1); !s.HasLower || !s.HasUpper {
		t.Error("the deprecated min/max were not used")
	}
}
