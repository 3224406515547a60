package fileio

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"cloud.google.com/go/storage"
)

// Open finds the object's size with a metadata request and returns a File
// whose ReadAt issues ranged GETs. ReadAt uses ctx, so it must outlive the
// File.
func (g *GCS) Open(ctx context.Context, path string) (File, error) {
	info, err := g.Stat(ctx, path)
	if err != nil {
		return nil, err
	}
	return g.OpenSized(ctx, path, info.Size)
}

// OpenSized is Open for a caller that already knows the object's size (a
// manifest records it), saving the metadata request. A wrong size shows up
// as an error from ReadAt, not as wrong data.
func (g *GCS) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return nil, err
	}
	return newRangedFile(path, size, func(off int64, dst []byte) error { return g.getRange(ctx, path, obj, off, dst) })
}

// getRange fills dst with the object's bytes from off.
func (g *GCS) getRange(ctx context.Context, location string, obj gcsObject, off int64, dst []byte) error {
	return g.do(ctx, location, func(ctx context.Context) error {
		r, err := g.handle(obj).NewRangeReader(ctx, off, int64(len(dst)))
		if err != nil {
			return err
		}
		defer r.Close()
		if r.Attrs.Decompressed {
			return fmt.Errorf("%w: the object is stored gzip-encoded and was served whole", errBadRange)
		}
		if r.Attrs.StartOffset != off || r.Remain() < int64(len(dst)) {
			return fmt.Errorf("%w: asked for %d bytes at %d, got %d at %d (object shorter than its recorded size?)",
				errBadRange, len(dst), off, r.Remain(), r.Attrs.StartOffset)
		}
		return g.readBody(r, dst)
	})
}

// readBody fills dst from body; fewer bytes is a retryable errShortBody.
func (g *GCS) readBody(body io.Reader, dst []byte) error {
	n, err := io.ReadFull(body, dst)
	g.bytesRead.Add(int64(n))
	if err != nil {
		return fmt.Errorf("%w after %d of %d bytes: %w", errShortBody, n, len(dst), err)
	}
	return nil
}

// ReadFile reads a whole object of at most MaxReadFile bytes with one GET.
func (g *GCS) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return g.ReadFileLimited(ctx, path, MaxReadFile)
}

// ReadFileLimited reads a whole object of at most limit bytes with one GET,
// refusing a longer one by its announced size before reading its body.
func (g *GCS) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return nil, err
	}
	return g.readObject(ctx, path, obj, limit)
}

func (g *GCS) readObject(ctx context.Context, location string, obj gcsObject, limit int64) ([]byte, error) {
	var data []byte
	err := g.do(ctx, location, func(ctx context.Context) error {
		r, err := g.handle(obj).NewReader(ctx)
		if err != nil {
			return err
		}
		defer r.Close()
		size := r.Remain()
		if size < 0 {
			// Served transcoded: the length is known only at the end.
			counted := &countingReader{r: r}
			data, err = readUpTo(counted, location, -1, limit)
			g.bytesRead.Add(counted.n)
			return err
		}
		if size > limit {
			return &TooLargeError{Path: location, Limit: limit}
		}
		data = make([]byte, size)
		if err := g.readBody(r, data); err != nil {
			return err
		}
		// The library checks the whole object's CRC32C when it meets the
		// body's end, which ReadFull stops short of.
		if _, err := r.Read(make([]byte, 1)); err != io.EOF {
			if err == nil {
				err = errors.New("object longer than announced")
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return data, nil
}

// Stat describes an object with a metadata request.
func (g *GCS) Stat(ctx context.Context, path string) (FileInfo, error) {
	obj, err := parseGCSLocation(path, false)
	if err != nil {
		return FileInfo{}, err
	}
	var info FileInfo
	err = g.do(ctx, path, func(ctx context.Context) error {
		attrs, err := g.handle(obj).Attrs(ctx)
		if err != nil {
			return err
		}
		info = FileInfo{Path: path, Size: attrs.Size, ModTime: attrs.Updated}
		return nil
	})
	return info, err
}

// Exists reports whether an object exists. A "directory" (a prefix other
// objects share) is not an object and does not exist.
func (g *GCS) Exists(ctx context.Context, path string) (bool, error) {
	_, err := g.Stat(ctx, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	default:
		return false, err
	}
}

// isGCSNotFound is the library's answer for a missing object or bucket.
func isGCSNotFound(err error) bool {
	return errors.Is(err, storage.ErrObjectNotExist) || errors.Is(err, storage.ErrBucketNotExist) || gcsStatus(err) == 404
}
