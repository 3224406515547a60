package kernels

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// column builds a one-column array of dt from Go values (nil is null).
func column(t *testing.T, mem memory.Allocator, dt arrow.DataType, vals ...any) arrow.Array {
	t.Helper()
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for _, v := range vals {
		if v == nil {
			b.AppendNull()
			continue
		}
		switch bb := b.(type) {
		case *array.Int32Builder:
			bb.Append(int32(v.(int)))
		case *array.Int64Builder:
			bb.Append(int64(v.(int)))
		case *array.Int16Builder:
			bb.Append(int16(v.(int)))
		case *array.Float32Builder:
			bb.Append(float32(v.(float64)))
		case *array.Float64Builder:
			bb.Append(v.(float64))
		case *array.StringBuilder:
			bb.Append(v.(string))
		case *array.LargeStringBuilder:
			bb.Append(v.(string))
		case *array.BinaryBuilder:
			bb.Append([]byte(v.(string)))
		case *array.BooleanBuilder:
			bb.Append(v.(bool))
		case *array.Decimal128Builder:
			bb.Append(decimal128.FromI64(int64(v.(int))))
		case *array.TimestampBuilder:
			bb.Append(arrow.Timestamp(v.(int)))
		case *array.Date32Builder:
			bb.Append(arrow.Date32(v.(int)))
		case *array.FixedSizeBinaryBuilder:
			bb.Append([]byte(v.(string)))
		default:
			t.Fatalf("column: no case for %T", b)
		}
	}
	return b.NewArray()
}

// keysAgree asserts the three views of key equality agree for row i of a
// and row j of b, and returns the verdict.
func keysAgree(t *testing.T, a *Keys, i int, b *Keys, j int, ha, hb []uint64) bool {
	t.Helper()
	eq := a.Equal(i, b, j)
	if eq != b.Equal(j, a, i) {
		t.Fatalf("Equal is not symmetric for rows %d, %d", i, j)
	}
	encEq := bytes.Equal(a.Encode(nil, i), b.Encode(nil, j))
	if eq != encEq {
		t.Fatalf("rows %d, %d: Equal %v but encodings equal %v", i, j, eq, encEq)
	}
	if eq && ha[i] != hb[j] {
		t.Fatalf("rows %d, %d are equal but hash %x vs %x", i, j, ha[i], hb[j])
	}
	return eq
}

func TestKeysCanonicalAcrossPromotedTypes(t *testing.T) {
	mem := newTrackingAllocator(t)
	pairs := []struct {
		a, b arrow.DataType
		vals []any
	}{
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64, []any{1, -1, nil, math.MaxInt32, math.MinInt32, 0}},
		{arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int64, []any{-300, 300, nil}},
		{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64, []any{1.5, -0.25, nil, math.Inf(1), 0.0}},
		{arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, []any{"", "a", "ab", nil, "a long string past sixteen bytes"}},
		{&arrow.Decimal128Type{Precision: 9, Scale: 2}, &arrow.Decimal128Type{Precision: 38, Scale: 2}, []any{12345, -1, nil, 0}},
		{arrow.FixedWidthTypes.Timestamp_us, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, []any{1, nil, -5}},
	}
	for _, p := range pairs {
		ca, cb := column(t, mem, p.a, p.vals...), column(t, mem, p.b, p.vals...)
		// Slice b so the two sides also differ in offset.
		padded := column(t, mem, p.b, append([]any{nil, p.vals[0], nil}, p.vals...)...)
		cs := array.NewSlice(padded, 3, int64(3+len(p.vals)))
		for _, other := range []arrow.Array{cb, cs} {
			ka, err := NewKeys([]arrow.Array{ca})
			if err != nil {
				t.Fatal(err)
			}
			kb, err := NewKeys([]arrow.Array{other})
			if err != nil {
				t.Fatal(err)
			}
			ha, hb := ka.Hash(42, nil), kb.Hash(42, nil)
			for i := range p.vals {
				for j := range p.vals {
					want := i == j || (p.vals[i] == nil && p.vals[j] == nil)
					if got := keysAgree(t, ka, i, kb, j, ha, hb); got != want {
						t.Fatalf("%s vs %s rows %d (%v), %d (%v): equal %v", p.a, p.b, i, p.vals[i], j, p.vals[j], got)
					}
				}
			}
		}
		ca.Release()
		cb.Release()
		cs.Release()
		padded.Release()
	}
}

func TestKeysFloatCanonical(t *testing.T) {
	mem := newTrackingAllocator(t)
	nan1 := math.Float64frombits(0x7ff8000000000001)
	nan2 := math.Float64frombits(0xfff0000000000f00)
	f64 := column(t, mem, arrow.PrimitiveTypes.Float64, 0.0, math.Copysign(0, -1), nan1, nan2, 1.0, nil, nil)
	f32 := column(t, mem, arrow.PrimitiveTypes.Float32, math.Copysign(0, -1), math.NaN())
	defer f64.Release()
	defer f32.Release()
	k, _ := NewKeys([]arrow.Array{f64})
	k32, _ := NewKeys([]arrow.Array{f32})
	h, h32 := k.Hash(0, nil), k32.Hash(0, nil)
	groups := []int{0, 0, 1, 1, 2, 3, 3}
	for i := range groups {
		for j := range groups {
			if got := keysAgree(t, k, i, k, j, h, h); got != (groups[i] == groups[j]) {
				t.Fatalf("rows %d, %d: equal %v", i, j, got)
			}
		}
	}
	if !keysAgree(t, k32, 0, k, 0, h32, h) || !keysAgree(t, k32, 1, k, 3, h32, h) {
		t.Fatalf("float32 -0 / NaN should equal float64 0 / NaN")
	}
}

func TestKeysMultiColumn(t *testing.T) {
	mem := newTrackingAllocator(t)
	a := column(t, mem, arrow.BinaryTypes.String, "ab", "a", nil, "")
	b := column(t, mem, arrow.BinaryTypes.String, "c", "bc", "x", nil)
	defer a.Release()
	defer b.Release()
	k, err := NewKeys([]arrow.Array{a, b})
	if err != nil {
		t.Fatal(err)
	}
	h := k.Hash(1, nil)
	for i := range 4 {
		for j := range 4 {
			if got := keysAgree(t, k, i, k, j, h, h); got != (i == j) {
				t.Fatalf("rows %d, %d: equal %v", i, j, got)
			}
		}
	}
	if h[0] == h[1] {
		t.Fatalf("(ab, c) and (a, bc) hash alike")
	}
	// Reusing the buffer appends after what is there.
	buf := k.Encode([]byte("prefix"), 0)
	if !bytes.HasPrefix(buf, []byte("prefix")) || !bytes.Equal(buf[6:], k.Encode(nil, 0)) {
		t.Fatalf("Encode does not append")
	}
	enc, err := EncodeKeys(nil, []arrow.Array{a, b}, 0)
	if err != nil || !bytes.Equal(enc, k.Encode(nil, 0)) {
		t.Fatalf("EncodeKeys disagrees with Keys.Encode: %v", err)
	}
	if eq, err := RowsEqual([]arrow.Array{a, b}, 0, []arrow.Array{a, b}, 1); err != nil || eq {
		t.Fatalf("RowsEqual(0, 1) = %v, %v", eq, err)
	}
	hs, err := HashRows([]arrow.Array{a, b}, 1)
	if err != nil || hs[2] != h[2] {
		t.Fatalf("HashRows disagrees with Keys.Hash: %v", err)
	}
	if other := k.Hash(2, nil); other[0] == h[0] {
		t.Fatalf("the seed does not change the hash")
	}
}

func TestKeysDistinguishClasses(t *testing.T) {
	mem := newTrackingAllocator(t)
	cols := []arrow.Array{
		column(t, mem, arrow.PrimitiveTypes.Int64, 1, nil),
		column(t, mem, arrow.FixedWidthTypes.Date32, 1, nil),
		column(t, mem, arrow.FixedWidthTypes.Timestamp_ns, 1, nil),
		column(t, mem, arrow.FixedWidthTypes.Timestamp_us, 1, nil),
		column(t, mem, &arrow.Decimal128Type{Precision: 9, Scale: 3}, 1, nil),
		column(t, mem, &arrow.Decimal128Type{Precision: 9, Scale: 2}, 1, nil),
		column(t, mem, arrow.BinaryTypes.Binary, "1", nil),
		column(t, mem, arrow.BinaryTypes.String, "1", nil),
		column(t, mem, arrow.FixedWidthTypes.Boolean, true, nil),
		column(t, mem, &arrow.FixedSizeBinaryType{ByteWidth: 1}, "1", nil),
	}
	keys := make([]*Keys, len(cols))
	hashes := make([][]uint64, len(cols))
	for i, c := range cols {
		defer c.Release()
		k, err := NewKeys([]arrow.Array{c})
		if err != nil {
			t.Fatal(err)
		}
		keys[i], hashes[i] = k, k.Hash(0, nil)
	}
	for i := range cols {
		for j := range cols {
			if got := keysAgree(t, keys[i], 0, keys[j], 0, hashes[i], hashes[j]); got != (i == j) {
				t.Errorf("%s vs %s: equal %v", cols[i].DataType(), cols[j].DataType(), got)
			}
			// Null equals null whatever the column type.
			if !keysAgree(t, keys[i], 1, keys[j], 1, hashes[i], hashes[j]) {
				t.Errorf("null %s vs null %s differ", cols[i].DataType(), cols[j].DataType())
			}
			if keysAgree(t, keys[i], 0, keys[j], 1, hashes[i], hashes[j]) {
				t.Errorf("%s value equals null", cols[i].DataType())
			}
		}
	}
}

// TestKeysRandom checks Equal, Encode and Hash against plain Go tuple
// equality on random two-column keys with many duplicates.
func TestKeysRandom(t *testing.T) {
	mem := newTrackingAllocator(t)
	r := rand.New(rand.NewPCG(11, 12))
	const n = 400
	ints := make([]any, n)
	strs := make([]any, n)
	for i := range n {
		if r.IntN(8) > 0 {
			ints[i] = r.IntN(5)
		}
		if r.IntN(8) > 0 {
			strs[i] = string(randomBytes(r, r.IntN(3)))
		}
	}
	a, b := column(t, mem, arrow.PrimitiveTypes.Int64, ints...), column(t, mem, arrow.BinaryTypes.String, strs...)
	defer a.Release()
	defer b.Release()
	k, err := NewKeys([]arrow.Array{a, b})
	if err != nil {
		t.Fatal(err)
	}
	h := k.Hash(99, nil)
	equalPairs := 0
	for i := range n {
		for j := range n {
			want := ints[i] == ints[j] && strs[i] == strs[j]
			if got := keysAgree(t, k, i, k, j, h, h); got != want {
				t.Fatalf("rows %d (%v,%v) and %d (%v,%v): equal %v", i, ints[i], strs[i], j, ints[j], strs[j], got)
			}
			if want {
				equalPairs++
			} else if h[i] == h[j] {
				t.Fatalf("distinct rows %d, %d collide", i, j)
			}
		}
	}
	if equalPairs <= n {
		t.Fatalf("test data has no duplicates")
	}
}

func TestHashSpread(t *testing.T) {
	mem := newTrackingAllocator(t)
	const n = 1 << 16
	b := array.NewInt64Builder(mem)
	s := array.NewStringBuilder(mem)
	for i := range n {
		b.Append(int64(i))
		s.Append(string(rune('a'+i%26)) + string(rune('a'+(i/26)%26)) + string(rune('a'+(i/676)%26)) + string(rune('a'+i/17576)))
	}
	ints, strs := b.NewArray(), s.NewArray()
	b.Release()
	s.Release()
	defer ints.Release()
	defer strs.Release()
	for _, col := range []arrow.Array{ints, strs} {
		h, err := HashRows([]arrow.Array{col}, 0)
		if err != nil {
			t.Fatal(err)
		}
		seen := make(map[uint64]bool, n)
		buckets := make([]int, 1<<12)
		for _, v := range h {
			if seen[v] {
				t.Fatalf("%s: 64-bit collision among %d distinct keys", col.DataType(), n)
			}
			seen[v] = true
			buckets[v&(1<<12-1)]++
		}
		// 16 keys per bucket on average; a fair hash stays well under 48.
		for bucket, c := range buckets {
			if c > 48 {
				t.Fatalf("%s: bucket %d holds %d keys", col.DataType(), bucket, c)
			}
		}
	}
}

func TestKeysRejectNested(t *testing.T) {
	mem := newTrackingAllocator(t)
	l := randomArray(mem, arrow.ListOf(arrow.PrimitiveTypes.Int32), 3, rand.New(rand.NewPCG(1, 1)), 0)
	i := column(t, mem, arrow.PrimitiveTypes.Int32, 1, 2)
	defer l.Release()
	defer i.Release()
	if _, err := NewKeys([]arrow.Array{l}); err == nil {
		t.Errorf("list key: want an error")
	}
	short := column(t, mem, arrow.PrimitiveTypes.Int32, 1)
	defer short.Release()
	if _, err := NewKeys([]arrow.Array{i, short}); err == nil {
		t.Errorf("unequal lengths: want an error")
	}
}

// Int64 gives the value of signed integer-like key columns, by which a
// row group's bounds narrow a key set, and nothing for nulls and for
// classes whose order is not that of int64.
func TestKeysInt64(t *testing.T) {
	mem := memory.NewGoAllocator()
	cols := []arrow.Array{
		column(t, mem, arrow.PrimitiveTypes.Int32, -7, nil),
		column(t, mem, arrow.FixedWidthTypes.Date32, 19000, 3),
		column(t, mem, &arrow.TimestampType{Unit: arrow.Microsecond}, -1, 5),
		column(t, mem, arrow.BinaryTypes.String, "a", "b"),
		column(t, mem, arrow.FixedWidthTypes.Boolean, true, false),
		column(t, mem, arrow.PrimitiveTypes.Float64, 1.0, 2.0),
	}
	for _, c := range cols {
		defer c.Release()
	}
	k, err := NewKeys(cols)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		col, row int
		want     int64
		ok       bool
	}{
		{0, 0, -7, true}, {0, 1, 0, false},
		{1, 0, 19000, true}, {2, 0, -1, true}, {2, 1, 5, true},
		{3, 0, 0, false}, {4, 0, 0, false}, {5, 0, 0, false},
	} {
		if v, ok := k.Int64(tc.col, tc.row); ok != tc.ok || (ok && v != tc.want) {
			t.Errorf("column %d row %d: %d, %v; want %d, %v", tc.col, tc.row, v, ok, tc.want, tc.ok)
		}
	}
}

// Words stand in for Equal on one-column keys: across columns of every
// word class, including an int32 against an int64 column (promotion), -0.0
// against 0.0 and NaNs, two non-null rows of same-class columns have equal
// words exactly when Equal holds; other classes have no words.
func TestKeysWordsMatchEqual(t *testing.T) {
	mem := newTrackingAllocator(t)
	pairs := [][2]arrow.Array{
		{column(t, mem, arrow.PrimitiveTypes.Int32, -7, 3, nil, 0, 5), column(t, mem, arrow.PrimitiveTypes.Int64, 3, -7, 0, 9, nil)},
		{column(t, mem, arrow.PrimitiveTypes.Float32, -0.0, math.NaN(), 1.5, nil), column(t, mem, arrow.PrimitiveTypes.Float64, 0.0, math.NaN(), 1.5, 2.5)},
		{column(t, mem, &arrow.TimestampType{Unit: arrow.Microsecond}, -1, 5, 7), column(t, mem, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}, 5, -1, 8)},
		{column(t, mem, arrow.FixedWidthTypes.Date32, 19000, 3), column(t, mem, arrow.PrimitiveTypes.Int32, 19000, 3)},
		{column(t, mem, arrow.FixedWidthTypes.Boolean, true, false, nil), column(t, mem, arrow.FixedWidthTypes.Boolean, false, true, true)},
	}
	for pi, p := range pairs {
		defer p[0].Release()
		defer p[1].Release()
		a, err := NewKeys(p[:1])
		if err != nil {
			t.Fatal(err)
		}
		b, err := NewKeys(p[1:])
		if err != nil {
			t.Fatal(err)
		}
		wa, okA := a.Words(0, nil)
		wb, okB := b.Words(0, nil)
		if !okA || !okB {
			t.Fatalf("pair %d: no words", pi)
		}
		same := a.SameClass(0, b, 0)
		matched := 0
		for i := 0; i < a.Len(); i++ {
			for j := 0; j < b.Len(); j++ {
				if a.Null(0, i) || b.Null(0, j) {
					continue
				}
				byWords := same && wa[i] == wb[j]
				if eq := a.Equal(i, b, j); eq != byWords {
					t.Fatalf("pair %d rows %d, %d: Equal %v, words say %v", pi, i, j, eq, byWords)
				}
				if byWords {
					matched++
				}
			}
		}
		if wantSame := pi != 3; same != wantSame || (same && matched == 0) {
			t.Fatalf("pair %d: same class %v (want %v), %d matches", pi, same, wantSame, matched)
		}
		if a.HasNulls(0) != (p[0].NullN() > 0) {
			t.Fatalf("pair %d: HasNulls %v with %d nulls", pi, a.HasNulls(0), p[0].NullN())
		}
	}
	s := column(t, mem, arrow.BinaryTypes.String, "a")
	defer s.Release()
	k, err := NewKeys([]arrow.Array{s})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := k.Words(0, nil); ok {
		t.Fatal("a string column has words")
	}
}
