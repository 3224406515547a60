package fileio

import (
	"fmt"
	"io"
)

// rangedFile is an object store's File (S3, GCS, Azure): a size known
// from a metadata request or the manifest, and ReadAt one ranged GET of
// the store's, retried there until it delivers every byte. On error it
// reports 0 bytes: p may have been partly overwritten, but no partial
// data is passed off as a result. Several goroutines may read at once:
// the Parquet reader's coalesced fetches run in parallel over the client's
// pooled connections.
type rangedFile struct {
	location string
	size     int64
	// get fills dst with the object's bytes from off.
	get func(off int64, dst []byte) error
}

// newRangedFile is the File of an object of size bytes; a negative size
// is refused, a wrong one shows up as an error from ReadAt, not as wrong
// data.
func newRangedFile(location string, size int64, get func(off int64, dst []byte) error) (File, error) {
	if size < 0 {
		return nil, fmt.Errorf("fileio: %s: negative size %d", location, size)
	}
	return &rangedFile{location: location, size: size, get: get}, nil
}

func (f *rangedFile) Size() int64 { return f.size }

func (f *rangedFile) Close() error { return nil }

func (f *rangedFile) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("fileio: %s: negative offset %d", f.location, off)
	}
	if off >= f.size {
		if len(p) == 0 {
			return 0, nil
		}
		return 0, io.EOF
	}
	n := len(p)
	var eof error
	if int64(n) > f.size-off {
		n, eof = int(f.size-off), io.EOF
	}
	if n == 0 {
		return 0, nil
	}
	if err := f.get(off, p[:n]); err != nil {
		return 0, err
	}
	return n, eof
}
