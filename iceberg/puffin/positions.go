package puffin

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// AppendPositions appends to dst, in ascending order, the positions of bm in
// [start, end). It seeks to start, so any range costs only the positions in
// it; for consecutive ranges a PositionCursor is several times faster.
func AppendPositions(dst []int64, bm *roaring64.Bitmap, start, end int64) []int64 {
	if bm == nil || end <= 0 || end <= start {
		return dst
	}
	start = max(start, 0)
	it := bm.Iterator()
	it.AdvanceIfNeeded(uint64(start))
	for it.HasNext() {
		p := it.PeekNext()
		if p >= uint64(end) {
			break
		}
		dst = append(dst, int64(p))
		it.Next()
	}
	return dst
}

// CountPositions returns how many positions of bm lie in [start, end),
// without visiting them.
func CountPositions(bm *roaring64.Bitmap, start, end int64) int64 {
	if bm == nil || end <= 0 || end <= start {
		return 0
	}
	start = max(start, 0)
	n := bm.Rank(uint64(end - 1))
	if start > 0 {
		n -= bm.Rank(uint64(start - 1))
	}
	return int64(n)
}

// cursorBatch is how many positions a PositionCursor decodes at a time.
const cursorBatch = 512

// PositionCursor hands out a bitmap's positions range by range, in
// ascending order, as a reader going through a file's row groups needs
// them. It decodes positions in batches, which is much cheaper per position
// than seeking; skipping a range still decodes the positions in it.
type PositionCursor struct {
	it         *roaring64.ManyIntIterator64
	batch      [cursorBatch]uint64
	head, tail int
	done       bool
}

// NewPositionCursor returns a cursor at the start of bm, which must not
// change while the cursor is in use. A nil bm has no positions.
func NewPositionCursor(bm *roaring64.Bitmap) *PositionCursor {
	c := &PositionCursor{done: bm == nil}
	if bm != nil {
		c.it = &roaring64.ManyIntIterator64{}
		c.it.Initialize(bm)
	}
	return c
}

// Append appends to dst the positions in [start, end) and moves the cursor
// to end. Ranges must come in ascending order: positions before the end of
// an earlier range are not seen again.
func (c *PositionCursor) Append(dst []int64, start, end int64) []int64 {
	for {
		if c.head == c.tail {
			if c.done {
				return dst
			}
			c.head, c.tail = 0, c.it.NextMany(c.batch[:])
			if c.tail == 0 {
				c.done = true
				return dst
			}
		}
		pending := c.batch[c.head:c.tail]
		if int64(pending[0]) >= start && int64(pending[len(pending)-1]) < end {
			// The common case inside a range: take the whole batch.
			n := len(dst)
			dst = slices.Grow(dst, len(pending))[:n+len(pending)]
			for i, p := range pending {
				dst[n+i] = int64(p)
			}
			c.head = c.tail
			continue
		}
		for _, p := range pending {
			if int64(p) >= end {
				return dst
			}
			if int64(p) >= start {
				dst = append(dst, int64(p))
			}
			c.head++
		}
	}
}
