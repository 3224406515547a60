package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// sameBitmap reports whether out's validity is a view of in's memory at
// the same bit, rather than a copy.
func sameBitmap(in, out arrow.Array) bool {
	ib, ob := in.Data().Buffers()[0], out.Data().Buffers()[0]
	if ib == nil || ob == nil {
		return ib == nil && ob == nil
	}
	inBit := &ib.Bytes()[in.Data().Offset()/8]
	outBit := &ob.Bytes()[out.Data().Offset()/8]
	return inBit == outBit && in.Data().Offset()%8 == out.Data().Offset()%8
}

func promoteInputs(mem memory.Allocator, dt arrow.DataType) []arrow.Array {
	full := randomArray(mem, dt, 200, rand.New(rand.NewPCG(7, 7)), 0.25)
	return []arrow.Array{full, array.NewSlice(full, 3, 190), array.NewSlice(full, 8, 100), array.NewSlice(full, 13, 13), randomArray(mem, dt, 50, rand.New(rand.NewPCG(8, 8)), 0)}
}

func TestPromoteNumeric(t *testing.T) {
	mem := newTrackingAllocator(t)
	cases := []struct {
		from, to arrow.DataType
		want     func(arr arrow.Array, i int) any
		got      func(arr arrow.Array, i int) any
	}{
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
			func(a arrow.Array, i int) any { return int64(a.(*array.Int32).Value(i)) },
			func(a arrow.Array, i int) any { return a.(*array.Int64).Value(i) }},
		{arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int32,
			func(a arrow.Array, i int) any { return int32(a.(*array.Int8).Value(i)) },
			func(a arrow.Array, i int) any { return a.(*array.Int32).Value(i) }},
		{arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int64,
			func(a arrow.Array, i int) any { return int64(a.(*array.Int16).Value(i)) },
			func(a arrow.Array, i int) any { return a.(*array.Int64).Value(i) }},
		{arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
			func(a arrow.Array, i int) any { return float64(a.(*array.Float32).Value(i)) },
			func(a arrow.Array, i int) any { return a.(*array.Float64).Value(i) }},
	}
	for _, c := range cases {
		for _, in := range promoteInputs(mem, c.from) {
			out, err := Promote(in, c.to, mem)
			if err != nil {
				t.Fatal(err)
			}
			checkOutput(t, mem, out)
			if !arrow.TypeEqual(out.DataType(), c.to) || out.Len() != in.Len() || out.NullN() != in.NullN() {
				t.Fatalf("%s→%s: got %s of %d rows, %d nulls", c.from, c.to, out.DataType(), out.Len(), out.NullN())
			}
			for i := range in.Len() {
				if in.IsNull(i) != out.IsNull(i) {
					t.Fatalf("%s→%s row %d: null %v, want %v", c.from, c.to, i, out.IsNull(i), in.IsNull(i))
				}
				if in.IsValid(i) && c.want(in, i) != c.got(out, i) {
					t.Fatalf("%s→%s row %d: %v, want %v", c.from, c.to, i, c.got(out, i), c.want(in, i))
				}
			}
			if in.NullN() > 0 && !sameBitmap(in, out) {
				t.Fatalf("%s→%s: validity was copied, not shared", c.from, c.to)
			}
			out.Release()
			in.Release()
		}
	}
}

func TestPromoteFloatKeepsSpecialValues(t *testing.T) {
	mem := newTrackingAllocator(t)
	b := array.NewFloat32Builder(mem)
	in32 := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Copysign(0, -1)), 1e-40}
	b.AppendValues(in32, nil)
	in := b.NewArray()
	b.Release()
	defer in.Release()
	out, err := Promote(in, arrow.PrimitiveTypes.Float64, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	v := out.(*array.Float64).Float64Values()
	if !math.IsNaN(v[0]) || !math.IsInf(v[1], 1) || !math.Signbit(v[2]) || v[3] != float64(float32(1e-40)) {
		t.Fatalf("special values lost: %v", v)
	}
}

func TestPromoteDecimalIsZeroCopy(t *testing.T) {
	mem := newTrackingAllocator(t)
	from := &arrow.Decimal128Type{Precision: 9, Scale: 2}
	for _, in := range promoteInputs(mem, from) {
		out, err := Promote(in, &arrow.Decimal128Type{Precision: 20, Scale: 2}, mem)
		if err != nil {
			t.Fatal(err)
		}
		if out.Data().Buffers()[1] != in.Data().Buffers()[1] || out.Data().Offset() != in.Data().Offset() {
			t.Fatalf("decimal widening copied its values")
		}
		for i := range in.Len() {
			if in.IsNull(i) != out.IsNull(i) || (in.IsValid(i) && in.(*array.Decimal128).Value(i) != out.(*array.Decimal128).Value(i)) {
				t.Fatalf("row %d differs", i)
			}
		}
		out.Release()
		for _, to := range []arrow.DataType{&arrow.Decimal128Type{Precision: 8, Scale: 2}, &arrow.Decimal128Type{Precision: 20, Scale: 3}} {
			if bad, err := Promote(in, to, mem); err == nil {
				bad.Release()
				t.Errorf("%s → %s: want an error", from, to)
			}
		}
		in.Release()
	}
}

func TestPromoteDateToTimestamp(t *testing.T) {
	mem := newTrackingAllocator(t)
	epoch := time.Unix(0, 0).UTC()
	units := map[arrow.TimeUnit]func(time.Time) int64{
		arrow.Second:      time.Time.Unix,
		arrow.Millisecond: time.Time.UnixMilli,
		arrow.Microsecond: time.Time.UnixMicro,
		arrow.Nanosecond:  time.Time.UnixNano,
	}
	for _, in := range promoteInputs(mem, arrow.FixedWidthTypes.Date32) {
		for unit, since := range units {
			for _, zone := range []string{"", "UTC"} {
				to := &arrow.TimestampType{Unit: unit, TimeZone: zone}
				out, err := Promote(in, to, mem)
				if err != nil {
					t.Fatal(err)
				}
				checkOutput(t, mem, out)
				if !arrow.TypeEqual(out.DataType(), to) {
					t.Fatalf("type %s, want %s", out.DataType(), to)
				}
				for i := range in.Len() {
					if in.IsNull(i) != out.IsNull(i) {
						t.Fatalf("row %d null mismatch", i)
					}
					if in.IsValid(i) {
						days := int(in.(*array.Date32).Value(i))
						want := since(epoch.AddDate(0, 0, days))
						if got := int64(out.(*array.Timestamp).Value(i)); got != want {
							t.Fatalf("%s day %d: %d, want %d", to, days, got, want)
						}
					}
				}
				if in.NullN() > 0 && !sameBitmap(in, out) {
					t.Fatalf("validity was copied, not shared")
				}
				out.Release()
			}
		}
		in.Release()
	}
}

func TestPromoteDateOverflow(t *testing.T) {
	mem := newTrackingAllocator(t)
	// 200000 days (year 2517) fits microseconds but not nanoseconds.
	b := array.NewDate32Builder(mem)
	b.AppendValues([]arrow.Date32{1, 200000}, nil)
	in := b.NewArray()
	b.Release()
	defer in.Release()
	if out, err := Promote(in, arrow.FixedWidthTypes.Timestamp_ns, mem); err == nil {
		out.Release()
		t.Fatalf("want an overflow error")
	}
	out, err := Promote(in, arrow.FixedWidthTypes.Timestamp_us, mem)
	if err != nil {
		t.Fatal(err)
	}
	out.Release()

	// The same out-of-range day under a null slot is not an error.
	values := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes([]int32{1, 200000}))
	validity := memory.NewBufferBytes([]byte{0b01})
	d := array.NewData(arrow.FixedWidthTypes.Date32, 2, []*memory.Buffer{validity, values}, nil, 1, 0)
	masked := array.MakeFromData(d)
	d.Release()
	defer masked.Release()
	out, err = Promote(masked, arrow.FixedWidthTypes.Timestamp_ns, mem)
	if err != nil {
		t.Fatalf("null slot value raised: %v", err)
	}
	defer out.Release()
	if out.(*array.Timestamp).Value(0) != 86_400_000_000_000 || out.IsValid(1) {
		t.Fatalf("got %v", out)
	}
}

func TestPromoteOthers(t *testing.T) {
	mem := newTrackingAllocator(t)
	ts := randomArray(mem, arrow.FixedWidthTypes.Timestamp_us, 20, rand.New(rand.NewPCG(1, 1)), 0.3)
	defer ts.Release()

	same, err := Promote(ts, arrow.FixedWidthTypes.Timestamp_us, mem)
	if err != nil || same != ts {
		t.Fatalf("same type should return the input: %v", err)
	}
	same.Release()

	utc := &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}
	zoned, err := Promote(ts, utc, mem)
	if err != nil {
		t.Fatal(err)
	}
	if !arrow.TypeEqual(zoned.DataType(), utc) || zoned.Data().Buffers()[1] != ts.Data().Buffers()[1] {
		t.Fatalf("zone relabel should share buffers")
	}
	zoned.Release()

	nulls := array.NewNull(5)
	defer nulls.Release()
	fromUnknown, err := Promote(nulls, structType, mem)
	if err != nil {
		t.Fatal(err)
	}
	if fromUnknown.NullN() != 5 || !arrow.TypeEqual(fromUnknown.DataType(), structType) {
		t.Fatalf("unknown → struct: %v", fromUnknown)
	}
	fromUnknown.Release()

	for _, c := range []struct{ from, to arrow.DataType }{
		{arrow.PrimitiveTypes.Int64, arrow.PrimitiveTypes.Int32},
		{arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64},
		{arrow.FixedWidthTypes.Timestamp_us, arrow.FixedWidthTypes.Timestamp_ns},
		{arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Float64},
	} {
		in := randomArray(mem, c.from, 3, rand.New(rand.NewPCG(1, 1)), 0)
		if out, err := Promote(in, c.to, mem); err == nil {
			out.Release()
			t.Errorf("%s → %s: want an error", c.from, c.to)
		}
		in.Release()
	}
}

func TestReplaceField(t *testing.T) {
	mem := newTrackingAllocator(t)
	full := randomArray(mem, structType, 100, rand.New(rand.NewPCG(4, 4)), 0.2).(*array.Struct)
	defer full.Release()
	for _, cut := range [][2]int64{{0, 100}, {3, 97}, {8, 60}, {50, 50}} {
		s := array.NewSlice(full, cut[0], cut[1]).(*array.Struct)
		promoted, err := Promote(s.Field(0), arrow.PrimitiveTypes.Int64, mem)
		if err != nil {
			t.Fatal(err)
		}
		out, err := ReplaceField(s, 0, promoted, mem)
		if err != nil {
			t.Fatal(err)
		}
		checkOutput(t, mem, out)
		if f := out.DataType().(*arrow.StructType).Field(0); f.Name != "a" || !arrow.TypeEqual(f.Type, arrow.PrimitiveTypes.Int64) {
			t.Fatalf("field 0 is %v", f)
		}
		assertEqual(t, promoted, out.Field(0))
		assertEqual(t, s.Field(1), out.Field(1))
		assertEqual(t, s.Field(2), out.Field(2))
		for i := range s.Len() {
			if s.IsNull(i) != out.IsNull(i) {
				t.Fatalf("slice %v row %d: null %v, want %v", cut, i, out.IsNull(i), s.IsNull(i))
			}
		}
		if _, err := ReplaceField(s, 3, promoted, mem); err == nil {
			t.Errorf("field 3 of 3: want an error")
		}
		out.Release()
		promoted.Release()
		s.Release()
	}
}

func TestShareValidityKeepsDecimalsExact(t *testing.T) {
	// Decimal widening must not reinterpret values: spot-check a negative.
	mem := newTrackingAllocator(t)
	b := array.NewDecimal128Builder(mem, &arrow.Decimal128Type{Precision: 5, Scale: 1})
	b.Append(decimal128.FromI64(-12345))
	in := b.NewArray()
	b.Release()
	defer in.Release()
	out, err := Promote(in, &arrow.Decimal128Type{Precision: 38, Scale: 1}, mem)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Release()
	if got := out.(*array.Decimal128).Value(0); got != decimal128.FromI64(-12345) {
		t.Fatalf("got %v", got)
	}
}
