package parquetfile

import "unsafe"

// blockBuffer holds a chunk's encoded pages until its row group is
// written: page bodies are compressed straight into large blocks that are
// never moved, and the buffer is the list of segments (headers and
// bodies) to write in order. Appending pages to one growing slice copied
// the l_comment chunk (65 MB compressed) over and over, and copying each
// compressed page into a block still took 0.35 s of 4.6 (page faults on
// new blocks) in the write section's one-thread zstd profile. A row
// group's buffer moves to the goroutine writing it, which hands the blocks
// back (release) for the next ones.
type blockBuffer struct {
	segments [][]byte
	blocks   [][]byte // blocks in use, the last one being filled
	n        int
}

const blockSize = 1 << 20

// freeBlocks keeps emptied blocks between row groups and files, up to
// 64 MiB: a new block's pages fault in on first write, which took 0.39 s
// of 4.0 in the same profile when every file started with new blocks.
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

// release hands the buffer's blocks to the row groups written next; the
// buffer is empty afterwards.
func (b *blockBuffer) release() {
	for _, block := range b.blocks {
		if cap(block) != blockSize {
			continue
		}
		select {
		case freeBlocks <- block:
		default:
		}
	}
	*b = blockBuffer{}
}

func (b *blockBuffer) len() int { return b.n }

// reserve returns an empty slice with room for n bytes at the end of the
// block being filled, for an encoder to append to.
func (b *blockBuffer) reserve(n int) []byte {
	if k := len(b.blocks) - 1; k >= 0 && cap(b.blocks[k])-len(b.blocks[k]) >= n {
		last := b.blocks[k]
		return last[len(last):len(last)]
	}
	block := newBlock(n)
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
