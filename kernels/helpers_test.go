package kernels

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// trackingAllocator is a checked allocator that also remembers the live
// allocations, so a test can prove every output buffer lives in memory
// from the allocator it passed (the C Data Interface export requirement).
type trackingAllocator struct {
	*memory.CheckedAllocator
	mu   sync.Mutex
	live map[uintptr]int
}

func newTrackingAllocator(t testing.TB) *trackingAllocator {
	a := &trackingAllocator{CheckedAllocator: memory.NewCheckedAllocator(memory.NewGoAllocator()), live: map[uintptr]int{}}
	t.Cleanup(func() { a.AssertSize(t, 0) })
	return a
}

func (a *trackingAllocator) Allocate(size int) []byte {
	b := a.CheckedAllocator.Allocate(size)
	a.remember(nil, b)
	return b
}

// AllocateUninitialized hands kernels memory full of garbage, as a pool of
// recycled buffers may: a kernel that leaves a byte it exposes unwritten
// fails the comparisons.
func (a *trackingAllocator) AllocateUninitialized(size int) []byte {
	b := a.CheckedAllocator.Allocate(size)
	for i := range b {
		b[i] = 0xa5
	}
	a.remember(nil, b)
	return b
}

func (a *trackingAllocator) Reallocate(size int, old []byte) []byte {
	b := a.CheckedAllocator.Reallocate(size, old)
	a.remember(old, b)
	return b
}

func (a *trackingAllocator) Free(b []byte) {
	a.remember(b, nil)
	a.CheckedAllocator.Free(b)
}

func (a *trackingAllocator) remember(old, cur []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if cap(old) > 0 {
		delete(a.live, uintptr(unsafe.Pointer(unsafe.SliceData(old))))
	}
	if cap(cur) > 0 {
		a.live[uintptr(unsafe.Pointer(unsafe.SliceData(cur)))] = cap(cur)
	}
}

func (a *trackingAllocator) owns(b []byte) bool {
	if len(b) == 0 {
		return true
	}
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	a.mu.Lock()
	defer a.mu.Unlock()
	for base, size := range a.live {
		if p >= base && p+uintptr(len(b)) <= base+uintptr(size) {
			return true
		}
	}
	return false
}

// checkOutput asserts arr is a well-formed array whose every buffer lives
// in a live allocation of mem.
func checkOutput(t *testing.T, mem *trackingAllocator, arr arrow.Array) {
	t.Helper()
	if err := checkData(mem, arr.Data()); err != nil {
		t.Fatalf("%s: %v", arr.DataType(), err)
	}
}

func checkData(mem *trackingAllocator, d arrow.ArrayData) error {
	for i, b := range d.Buffers() {
		if b != nil && !mem.owns(b.Bytes()) {
			return fmt.Errorf("buffer %d is not from the allocator", i)
		}
	}
	dt := d.DataType()
	if ext, ok := dt.(arrow.ExtensionType); ok {
		dt = ext.StorageType()
	}
	off, n := d.Offset(), d.Len()
	if dt.ID() != arrow.NULL {
		bitmap := bufferBytes(d, 0)
		want := 0
		if bitmap != nil {
			if len(bitmap)*8 < off+n {
				return fmt.Errorf("validity of %d bytes for %d rows at %d", len(bitmap), n, off)
			}
			want = n - bitutil.CountSetBits(bitmap, off, n)
		}
		if got := nullCount(d); got != want {
			return fmt.Errorf("null count %d, bitmap says %d", got, want)
		}
	}
	children := d.Children()
	switch t := dt.(type) {
	case *arrow.BooleanType:
		if len(bufferBytes(d, 1))*8 < off+n {
			return fmt.Errorf("bool values too short")
		}
	case *arrow.StringType, *arrow.BinaryType:
		return checkOffsets(view[int32](bufferBytes(d, 1)), off, n, len(bufferBytes(d, 2)))
	case *arrow.LargeStringType, *arrow.LargeBinaryType:
		return checkOffsets(view[int64](bufferBytes(d, 1)), off, n, len(bufferBytes(d, 2)))
	case *arrow.StructType:
		for _, c := range children {
			if c.Len() < off+n {
				return fmt.Errorf("struct child of %d rows for %d at %d", c.Len(), n, off)
			}
			if err := checkData(mem, c); err != nil {
				return err
			}
		}
	case *arrow.ListType, *arrow.MapType:
		if err := checkOffsets(view[int32](bufferBytes(d, 1)), off, n, children[0].Len()); err != nil {
			return err
		}
		return checkData(mem, children[0])
	case *arrow.LargeListType:
		if err := checkOffsets(view[int64](bufferBytes(d, 1)), off, n, children[0].Len()); err != nil {
			return err
		}
		return checkData(mem, children[0])
	case *arrow.FixedSizeListType:
		if children[0].Len() < (off+n)*int(t.Len()) {
			return fmt.Errorf("fixed-size list child too short")
		}
		return checkData(mem, children[0])
	default:
		if w, ok := byteWidth(dt); ok && len(bufferBytes(d, 1)) < (off+n)*w {
			return fmt.Errorf("values of %d bytes for %d rows of %d bytes at %d", len(bufferBytes(d, 1)), n, w, off)
		}
	}
	return nil
}

func checkOffsets[O offsetInt](offs []O, off, n, limit int) error {
	if n == 0 {
		return nil
	}
	if len(offs) < off+n+1 {
		return fmt.Errorf("%d offsets for %d rows at %d", len(offs), n, off)
	}
	for i := off; i < off+n; i++ {
		if offs[i] < 0 || offs[i+1] < offs[i] || int(offs[i+1]) > limit {
			return fmt.Errorf("offsets %d..%d at row %d outside %d", offs[i], offs[i+1], i, limit)
		}
	}
	return nil
}

var (
	structType = arrow.StructOf(
		arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int32, Nullable: true},
		arrow.Field{Name: "b", Type: arrow.BinaryTypes.String, Nullable: true},
		arrow.Field{Name: "c", Type: arrow.StructOf(arrow.Field{Name: "d", Type: arrow.FixedWidthTypes.Boolean, Nullable: true}), Nullable: true},
	)
	listOfStruct = arrow.ListOf(arrow.StructOf(arrow.Field{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}))
)

// testTypes is every Arrow type the reader produces, nested ones included.
func testTypes() []arrow.DataType {
	return []arrow.DataType{
		arrow.Null,
		arrow.FixedWidthTypes.Boolean,
		arrow.PrimitiveTypes.Int8, arrow.PrimitiveTypes.Int16, arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int64,
		arrow.PrimitiveTypes.Uint8, arrow.PrimitiveTypes.Uint16, arrow.PrimitiveTypes.Uint32, arrow.PrimitiveTypes.Uint64,
		arrow.PrimitiveTypes.Float32, arrow.PrimitiveTypes.Float64,
		&arrow.Decimal128Type{Precision: 38, Scale: 4},
		arrow.FixedWidthTypes.Date32, arrow.FixedWidthTypes.Time64us,
		arrow.FixedWidthTypes.Timestamp_us, &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"},
		arrow.FixedWidthTypes.Timestamp_ns, &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"},
		arrow.BinaryTypes.String, arrow.BinaryTypes.LargeString, arrow.BinaryTypes.Binary, arrow.BinaryTypes.LargeBinary,
		&arrow.FixedSizeBinaryType{ByteWidth: 16}, &arrow.FixedSizeBinaryType{ByteWidth: 3},
		extensions.NewUUIDType(),
		structType,
		arrow.ListOf(arrow.PrimitiveTypes.Int64),
		listOfStruct,
		arrow.LargeListOf(arrow.BinaryTypes.String),
		arrow.FixedSizeListOf(3, arrow.PrimitiveTypes.Int32),
		arrow.MapOf(arrow.BinaryTypes.String, arrow.PrimitiveTypes.Int64),
		arrow.ListOf(arrow.ListOf(arrow.PrimitiveTypes.Int32)),
		arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.ListOf(arrow.BinaryTypes.String)),
	}
}

// randomArray builds n random rows of dt with arrow's own builders; about
// nullRate of the rows (at every nesting level) are null.
func randomArray(mem memory.Allocator, dt arrow.DataType, n int, r *rand.Rand, nullRate float64) arrow.Array {
	b := array.NewBuilder(mem, dt)
	defer b.Release()
	for range n {
		appendRandom(b, r, nullRate)
	}
	return b.NewArray()
}

func randomBytes(r *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('a' + r.IntN(26))
	}
	return b
}

func appendRandom(b array.Builder, r *rand.Rand, nullRate float64) {
	if r.Float64() < nullRate {
		b.AppendNull()
		return
	}
	switch bb := b.(type) {
	case *array.NullBuilder:
		bb.AppendNull()
	case *array.BooleanBuilder:
		bb.Append(r.IntN(2) == 1)
	case *array.Int8Builder:
		bb.Append(int8(r.Uint32()))
	case *array.Int16Builder:
		bb.Append(int16(r.Uint32()))
	case *array.Int32Builder:
		bb.Append(int32(r.Uint32()))
	case *array.Int64Builder:
		bb.Append(int64(r.Uint64()))
	case *array.Uint8Builder:
		bb.Append(uint8(r.Uint32()))
	case *array.Uint16Builder:
		bb.Append(uint16(r.Uint32()))
	case *array.Uint32Builder:
		bb.Append(r.Uint32())
	case *array.Uint64Builder:
		bb.Append(r.Uint64())
	case *array.Float32Builder:
		bb.Append(float32(r.NormFloat64()))
	case *array.Float64Builder:
		bb.Append(r.NormFloat64())
	case *array.Decimal128Builder:
		bb.Append(decimal128.New(r.Int64N(3)-1, r.Uint64()))
	case *array.Date32Builder:
		bb.Append(arrow.Date32(r.IntN(40000) - 20000))
	case *array.Time64Builder:
		bb.Append(arrow.Time64(r.Int64N(86_400_000_000)))
	case *array.TimestampBuilder:
		bb.Append(arrow.Timestamp(r.Int64()))
	case *array.StringBuilder:
		bb.Append(string(randomBytes(r, r.IntN(12))))
	case *array.LargeStringBuilder:
		bb.Append(string(randomBytes(r, r.IntN(12))))
	case *array.BinaryBuilder:
		bb.Append(randomBytes(r, r.IntN(12)))
	case *extensions.UUIDBuilder:
		var u [16]byte
		copy(u[:], randomBytes(r, 16))
		bb.AppendBytes(u)
	case *array.FixedSizeBinaryBuilder:
		bb.Append(randomBytes(r, bb.Type().(*arrow.FixedSizeBinaryType).ByteWidth))
	case *array.StructBuilder:
		bb.Append(true)
		for i := range bb.NumField() {
			appendRandom(bb.FieldBuilder(i), r, nullRate)
		}
	case *array.ListBuilder:
		bb.Append(true)
		for range r.IntN(4) {
			appendRandom(bb.ValueBuilder(), r, nullRate)
		}
	case *array.LargeListBuilder:
		bb.Append(true)
		for range r.IntN(4) {
			appendRandom(bb.ValueBuilder(), r, nullRate)
		}
	case *array.FixedSizeListBuilder:
		bb.Append(true)
		for range bb.Type().(*arrow.FixedSizeListType).Len() {
			appendRandom(bb.ValueBuilder(), r, nullRate)
		}
	case *array.MapBuilder:
		bb.Append(true)
		for range r.IntN(4) {
			appendRandom(bb.KeyBuilder(), r, 0)
			appendRandom(bb.ItemBuilder(), r, nullRate)
		}
	default:
		panic(fmt.Sprintf("test has no random values for %T", b))
	}
}

// takeOracle is Take done with arrow-go's own slicing and concatenation:
// one-row slices of the input, concatenated.
func takeOracle(t *testing.T, mem memory.Allocator, arr arrow.Array, idx []int32) arrow.Array {
	t.Helper()
	if len(idx) == 0 {
		return array.MakeArrayOfNull(mem, arr.DataType(), 0)
	}
	parts := make([]arrow.Array, len(idx))
	for j, i := range idx {
		parts[j] = array.NewSlice(arr, int64(i), int64(i)+1)
	}
	out, err := array.Concatenate(parts, mem)
	for _, p := range parts {
		p.Release()
	}
	if err != nil {
		t.Fatalf("oracle concatenate %s: %v", arr.DataType(), err)
	}
	return out
}

func assertEqual(t *testing.T, want, got arrow.Array) {
	t.Helper()
	if !arrow.TypeEqual(want.DataType(), got.DataType()) {
		t.Fatalf("type %s, want %s", got.DataType(), want.DataType())
	}
	if want.Len() != got.Len() || want.NullN() != got.NullN() {
		t.Fatalf("%s: %d rows / %d nulls, want %d / %d", want.DataType(), got.Len(), got.NullN(), want.Len(), want.NullN())
	}
	if !array.Equal(want, got) {
		t.Fatalf("%s differs:\n got %v\nwant %v", want.DataType(), got, want)
	}
}
