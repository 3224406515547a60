package scan

import (
	"io"
	"sync/atomic"
)

// meteredFile counts the bytes and reads a task takes from its data
// file, so a scan can report what pruning and coalescing saved.
type meteredFile struct {
	r           io.ReaderAt
	read, calls atomic.Int64
}

func (m *meteredFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := m.r.ReadAt(p, off)
	m.read.Add(int64(n))
	m.calls.Add(1)
	return n, err
}

// flushBytes moves the bytes read so far into the scan's metrics.
func (r *taskReader) flushBytes() {
	if r.metered != nil {
		r.counters.bytesRead.Add(r.metered.read.Swap(0))
		r.counters.requests.Add(r.metered.calls.Swap(0))
	}
}
