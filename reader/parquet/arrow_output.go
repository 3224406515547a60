package parquet

import (
	"fmt"

	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// outBuf is a buffer from the caller's allocator (C memory in production),
// handed to Arrow when the batch is done. Its slice is the whole
// allocation, as Allocator.Free expects.
type outBuf struct {
	mem memory.Allocator
	b   []byte
}

func roundUp64(n int) int { return (n + 63) &^ 63 }

// reserve makes room for n bytes, keeping the first keep bytes.
func (o *outBuf) reserve(n, keep int) {
	if n <= len(o.b) {
		return
	}
	size := roundUp64(max(n, 64))
	if o.b == nil {
		o.b = o.allocate(size)
		return
	}
	// Grow geometrically: strings and nested columns append past guesses.
	size = roundUp64(max(size, 2*len(o.b)))
	if keep == len(o.b) {
		o.b = o.mem.Reallocate(size, o.b)
		return
	}
	nb := o.allocate(size)
	copy(nb, o.b[:keep])
	o.mem.Free(o.b)
	o.b = nb
}

// allocate takes size bytes from the allocator, uncleared when it can hand
// out recycled memory as it is: the decoders write every slot, offset and
// validity bit of a batch (values under nulls excepted, which Arrow leaves
// undefined), so clearing a pooled buffer first was wasted work, about
// 5 % of a full scan.
func (o *outBuf) allocate(size int) []byte {
	if u, ok := o.mem.(interface{ AllocateUninitialized(int) []byte }); ok {
		return u.AllocateUninitialized(size)
	}
	return o.mem.Allocate(size)
}

// buffer hands the memory to Arrow with the given used length.
func (o *outBuf) buffer(length int) *memory.Buffer {
	if o.b == nil {
		return nil
	}
	buf := memory.NewBufferWithAllocator(o.b, o.mem)
	buf.ResizeNoShrink(length)
	o.b = nil
	return buf
}

func (o *outBuf) free() {
	if o.b != nil {
		o.mem.Free(o.b)
		o.b = nil
	}
}

// leafOutput accumulates one leaf's Arrow array for a batch.
type leafOutput struct {
	kind     targetKind
	width    int
	length   int // slots written
	nulls    int
	capHint  int    // slots the buffers were sized for
	validity outBuf // allocated at the first null
	values   outBuf // fixed-width values or boolean bits
	offsets  outBuf // binary kinds
	data     outBuf // binary kinds
	dataLen  int
}

func newLeafOutput(mem memory.Allocator, c *conversion) leafOutput {
	return leafOutput{
		kind:     c.kind,
		width:    c.width,
		validity: outBuf{mem: mem},
		values:   outBuf{mem: mem},
		offsets:  outBuf{mem: mem},
		data:     outBuf{mem: mem},
	}
}

// begin starts a batch, sizing buffers for capSlots slots.
func (o *leafOutput) begin(capSlots int) {
	o.length, o.nulls, o.dataLen, o.capHint = 0, 0, 0, -1
	o.ensureSlots(capSlots)
	if o.kind == targetBinary || o.kind == targetLargeBin {
		clear(o.offsets.b[:o.offsetWidth()])
	}
}

func (o *leafOutput) offsetWidth() int {
	if o.kind == targetLargeBin {
		return 8
	}
	return 4
}

func (o *leafOutput) capSlots() int { return o.capHint }

// ensureSlots makes room for n slots in total.
func (o *leafOutput) ensureSlots(n int) {
	if n <= o.capHint {
		return
	}
	o.capHint = n
	switch o.kind {
	case targetFixed:
		o.values.reserve(n*o.width, o.length*o.width)
	case targetBool:
		o.values.reserve((n+7)/8, (o.length+7)/8)
	default:
		w := o.offsetWidth()
		o.offsets.reserve((n+1)*w, (o.length+1)*w)
	}
	if o.validity.b != nil {
		o.validity.reserve((n+7)/8, (o.length+7)/8)
	}
}

// ensureData makes room for n more bytes of binary data.
func (o *leafOutput) ensureData(n int) error {
	need := o.dataLen + n
	if o.kind == targetBinary && need > math.MaxInt32 {
		return fmt.Errorf("string/binary data of one batch exceeds 2 GiB; request a large type or smaller batches")
	}
	o.data.reserve(need, o.dataLen)
	return nil
}

// startValidity allocates the validity bitmap, marking the slots written
// so far valid.
func (o *leafOutput) startValidity(capSlots int) {
	o.validity.reserve((capSlots+7)/8, 0)
	v := o.validity.b
	full := o.length / 8
	fill(v[:full], 0xff)
	clear(v[full:])
	for i := full * 8; i < o.length; i++ {
		v[i/8] |= 1 << (i % 8)
	}
}

func (o *leafOutput) setOffset(slot int, off int) {
	if o.kind == targetLargeBin {
		binary.LittleEndian.PutUint64(o.offsets.b[slot*8:], uint64(off))
	} else {
		binary.LittleEndian.PutUint32(o.offsets.b[slot*4:], uint32(off))
	}
}

func (o *leafOutput) offset(slot int) int {
	if o.kind == targetLargeBin {
		return int(binary.LittleEndian.Uint64(o.offsets.b[slot*8:]))
	}
	return int(binary.LittleEndian.Uint32(o.offsets.b[slot*4:]))
}

// finish hands the buffers to an ArrayData of the given type.
func (o *leafOutput) finish(typ arrow.DataType) arrow.ArrayData {
	var validity *memory.Buffer
	if o.nulls > 0 {
		validity = o.validity.buffer((o.length + 7) / 8)
	} else {
		o.validity.free()
	}
	var bufs []*memory.Buffer
	switch o.kind {
	case targetFixed:
		bufs = []*memory.Buffer{validity, o.values.buffer(o.length * o.width)}
	case targetBool:
		bufs = []*memory.Buffer{validity, o.values.buffer((o.length + 7) / 8)}
	default:
		if o.data.b == nil {
			o.data.reserve(1, 0) // Arrow consumers expect a data buffer
		}
		bufs = []*memory.Buffer{validity, o.offsets.buffer((o.length + 1) * o.offsetWidth()), o.data.buffer(o.dataLen)}
	}
	d := array.NewData(typ, o.length, bufs, nil, o.nulls, 0)
	for _, b := range bufs {
		if b != nil {
			b.Release() // the ArrayData holds its own reference
		}
	}
	return d
}

// free drops buffers of an unfinished batch (after an error).
func (o *leafOutput) free() {
	o.validity.free()
	o.values.free()
	o.offsets.free()
	o.data.free()
}

func ReleaseData(ds []arrow.ArrayData) {
	for _, d := range ds {
		d.Release()
	}
}

// WrapData makes an array of freshly built data, handing the data's own
// reference over to the array.
func WrapData(d arrow.ArrayData) arrow.Array {
	defer d.Release()
	return array.MakeFromData(d)
}
