package fileio

import "context"

// SizedOpener is implemented by FileIOs that can open a file whose size the
// caller already knows (a manifest records every data file's size) without
// asking the store for it: S3 saves a HEAD request per file.
type SizedOpener interface {
	OpenSized(ctx context.Context, path string, size int64) (File, error)
}

// OpenSized opens path for ranged reads, handing the known size to files
// when it is a SizedOpener; otherwise, or when size is not positive (an
// unknown size, or an empty file no reader needs to open), it is Open.
//
// The size is trusted: a wrong one makes reads fail (an object store
// refuses a range past the object's end) or find no valid footer, so it
// must come from table metadata, not from a guess.
func OpenSized(ctx context.Context, files FileIO, path string, size int64) (File, error) {
	if so, ok := files.(SizedOpener); ok && size > 0 {
		return so.OpenSized(ctx, path, size)
	}
	return files.Open(ctx, path)
}

// OpenSized routes to the scheme's FileIO, passing the size on when that
// FileIO can use it.
func (r *Router) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	files, err := r.Resolve(path)
	if err != nil {
		return nil, err
	}
	return OpenSized(ctx, files, path, size)
}

// OpenSized remaps path and passes the size on.
func (r *Remapping) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	return OpenSized(ctx, r.inner, r.m.Apply(path), size)
}
