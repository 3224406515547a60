package fileio

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/floedb/floe/errkind"
)

// MaxReadFile caps ReadFile of any file through floe's FileIOs: a whole
// read is for metadata (table metadata, hints, manifest lists, manifests,
// markers), never for data, and twice the largest such cap callers set
// (ReadFileLimited) leaves room for anything real.
const MaxReadFile = 1 << 30

// LimitedReader is implemented by FileIOs that read a whole file but
// refuse one longer than limit bytes without reading or holding more than
// that: a hostile path (/dev/zero, a pipe, a sparse file of terabytes) then
// costs at most limit bytes, or nothing when the size is known up front.
type LimitedReader interface {
	ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error)
}

// ReadFileLimited reads the whole file at path, refusing with
// errkind.Corrupt (a *TooLargeError naming the file and the cap) a file
// longer than limit bytes. A FileIO that is not a LimitedReader is read with
// its ReadFile, which floe's own stores cap at MaxReadFile, and the length
// checked after.
func ReadFileLimited(ctx context.Context, files FileIO, path string, limit int64) ([]byte, error) {
	if lr, ok := files.(LimitedReader); ok {
		return lr.ReadFileLimited(ctx, path, limit)
	}
	data, err := files.ReadFile(ctx, path)
	if err == nil && int64(len(data)) > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	return data, err
}

// TooLargeError is a whole-file read refused because the file is longer
// than the reader's cap. It is errkind.Corrupt: the caps are far above
// what real tables write, so only a damaged or hostile table meets one.
type TooLargeError struct {
	Path  string
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("fileio: %s is over the %s cap on reading a whole file", e.Path, formatBytes(e.Limit))
}

func (e *TooLargeError) Unwrap() error { return errkind.Corrupt }

// formatBytes spells a cap the way it is chosen: 256 MiB, 1 GiB.
func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// readUpTo reads r to its end, refusing more than limit bytes; size is
// what the store says the file holds (-1 when it does not say), used only
// to allocate once.
func readUpTo(r io.Reader, path string, size, limit int64) ([]byte, error) {
	if size > limit {
		return nil, &TooLargeError{Path: path, Limit: limit}
	}
	capacity := int64(512)
	if size >= 0 {
		capacity = size + 1 // +1: the read that finds the end
	}
	buf := make([]byte, 0, capacity)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, &TooLargeError{Path: path, Limit: limit}
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// ReadFileLimited reads a whole local file of at most limit bytes. Only
// regular files are read: a device (/dev/zero) or a pipe has no end or no
// size, and opening a pipe no one writes to would block, so they are
// refused by their mode before they are opened.
func (Local) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return nil, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if err := checkRegular(p, st); err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The path may have been replaced since the Stat; the open file is
	// what is read.
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := checkRegular(p, st); err != nil {
		return nil, err
	}
	return readUpTo(f, path, st.Size(), limit)
}

func checkRegular(p string, st fs.FileInfo) error {
	switch {
	case st.IsDir():
		return &fs.PathError{Op: "read", Path: p, Err: errIsDir}
	case !st.Mode().IsRegular():
		return errkind.Errorf(errkind.Corrupt, "fileio: %s is not a regular file but %s: floe reads only regular files whole", p, fileKind(st.Mode()))
	}
	return nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "of mode " + m.Type().String()
}

// ReadFileLimited reads a whole object of at most limit bytes with one GET.
func (s *S3) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	obj, err := parseS3Location(path, false)
	if err != nil {
		return nil, err
	}
	return s.readObject(ctx, path, obj, limit)
}

// ReadFileLimited remaps path and passes the limit on.
func (r *Remapping) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	return ReadFileLimited(ctx, r.inner, r.m.Apply(path), limit)
}

// ReadFileLimited routes to the scheme's FileIO.
func (r *Router) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	return ReadFileLimited(ctx, files, path, limit)
}

// ReadFileLimited reads through the S3 client, made on first use.
func (l *lazyS3) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	s, err := l.get(ctx)
	if err != nil {
		return nil, err
	}
	return s.ReadFileLimited(ctx, path, limit)
}

// ReadFileLimited adds the hint of a missing file, as ReadFile does.
func (h *hinting) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	data, err := ReadFileLimited(ctx, h.inner, path, limit)
	return data, h.wrap(path, err)
}

// countingReader counts the bytes read through it, for the S3 byte metric.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// ReadFileLimited passes through, as every read of a confined FileIO does.
func (c *confined) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	return ReadFileLimited(ctx, c.inner, path, limit)
}
