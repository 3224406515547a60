package reader

import (
	"io"
	"sync/atomic"
)

// meteredFile counts the bytes a task reads from its data file, so a scan
// can report what pruning saved.
type meteredFile struct {
	r    io.ReaderAt
	read atomic.Int64
}

func (m *meteredFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := m.r.ReadAt(p, off)
	m.read.Add(int64(n))
	return n, err
}

// flushBytes moves the bytes read so far into the scan's metrics.
func (r *taskReader) flushBytes() {
	if r.metered != nil {
		r.counters.bytesRead.Add(r.metered.read.Swap(0))
	}
}
