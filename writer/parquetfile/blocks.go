package parquetfile

import "unsafe"

// blockBuffer holds a chunk's encoded pages until its row group is
// written: page bodies are compressed straight into large blocks that are
// never moved, and the buffer is the list of segments (headers and
// bodies) to write in order. Appending pages to one growing slice copied
// the l_comment chunk (65 MB compressed) over and over, and copying each
// compressed page into a block still took 0.35 s of 4.6 (page faults on
// new blocks) in the write section's one-thread zstd profile.
type blockBuffer struct {
	segments [][]byte
	blocks   [][]byte // blocks in use, the last one being filled
	spare    [][]byte // emptied blocks, reused by the next row group
	n        int
}

const blockSize = 1 << 20

// freeBlocks keeps emptied blocks between files, up to 64 MiB: a new
// block's pages fault in on first write, which took 0.39 s of 4.0 in the
// same profile when every file started with new blocks.
var freeBlocks = make(chan []byte, 64)

func newBlock(n int) []byte {
	if n <= blockSize {
		select {
		case b := <-freeBlocks:
			return b[:0]
		default:
		}
	}
	return make([]byte, 0, max(blockSize, n))
}

// release hands the buffer's blocks to the next file.
func (b *blockBuffer) release() {
	b.reset()
	for _, block := range b.spare {
		if cap(block) != blockSize {
			continue
		}
		select {
		case freeBlocks <- block:
		default:
		}
	}
	clear(b.spare)
	b.spare = b.spare[:0]
}

func (b *blockBuffer) len() int { return b.n }

// reserve returns an empty slice with room for n bytes at the end of the
// block being filled, for an encoder to append to.
func (b *blockBuffer) reserve(n int) []byte {
	if k := len(b.blocks) - 1; k >= 0 && cap(b.blocks[k])-len(b.blocks[k]) >= n {
		last := b.blocks[k]
		return last[len(last):len(last)]
	}
	var block []byte
	if k := len(b.spare) - 1; k >= 0 && cap(b.spare[k]) >= n {
		block, b.spare = b.spare[k][:0], b.spare[:k]
	} else {
		block = newBlock(n)
	}
	b.blocks = append(b.blocks, block)
	return block
}

// commit adds p, which an encoder appended to reserve's slice, as the
// next segment; an encoder that needed more room returned its own
// allocation, which is kept as it is.
func (b *blockBuffer) commit(p []byte) {
	if k := len(b.blocks) - 1; k >= 0 && len(p) > 0 {
		last := b.blocks[k]
		if unsafe.SliceData(p) == unsafe.SliceData(last[len(last):cap(last)]) {
			b.blocks[k] = last[:len(last)+len(p)]
		}
	}
	b.add(p)
}

// add appends p as the next segment without copying it.
func (b *blockBuffer) add(p []byte) {
	b.segments = append(b.segments, p)
	b.n += len(p)
}

// writeTo writes the segments in order.
func (b *blockBuffer) writeTo(write func([]byte) error) error {
	for _, s := range b.segments {
		if err := write(s); err != nil {
			return err
		}
	}
	return nil
}

// reset empties the buffer, keeping its blocks for reuse.
func (b *blockBuffer) reset() {
	b.spare = append(b.spare, b.blocks...)
	clear(b.blocks)
	clear(b.segments)
	b.blocks, b.segments, b.n = b.blocks[:0], b.segments[:0], 0
}
