package fileio

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/errkind"
)

// Confine wraps files so that every write, create and delete lands inside
// root, where paths go after the inner FileIO's remapping: a table opened
// from a directory other than the location its metadata records (a copy, a
// move) writes and deletes only inside the directory it was opened from,
// whatever a location map, a write.data.path or a hostile metadata file
// makes of a path. Reads pass through: a copy may still read files its
// metadata names elsewhere (registered with add_files). root is a local
// path (made absolute) or a URI.
func Confine(files FileIO, root string) FileIO {
	return &confined{inner: files, root: absLocal(Canonical(root))}
}

type confined struct {
	inner FileIO
	root  string
}

// inside refuses path unless it is root or lies beneath it, in any
// spelling of root (s3/s3a, file:///p and /p). A "." or ".." segment is
// refused outright in a URI, and resolved in a local path before the
// comparison.
func (c *confined) inside(op, path string) error {
	p := absLocal(Canonical(Remap(c.inner, path)))
	if Scheme(p) != "" && HasDotSegment(p) {
		return c.refuse(op, path)
	}
	if _, ok := RecordedPrefix(p, c.root); !ok {
		return c.refuse(op, path)
	}
	return nil
}

func (c *confined) refuse(op, path string) error {
	return errkind.Errorf(errkind.InvalidArgument,
		"fileio: refusing to %s %s: it lies outside %s, the directory the table was opened from (a table opened away from its recorded location writes and deletes only inside the directory it was opened from)",
		op, path, c.root)
}

// absLocal makes a plain path absolute and clean; URIs are returned as
// they are.
func absLocal(p string) string {
	if Scheme(p) != "" || p == "" {
		return p
	}
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return filepath.Clean(p)
}

// HasDotSegment tells whether a location has a "." or ".." segment after
// its scheme and authority (a path without a scheme: anywhere). No writer
// makes one, and normalising it would be a guess, so whatever deletes or
// confines by location refuses it.
func HasDotSegment(location string) bool {
	rest := location
	if s := Scheme(location); s != "" {
		rest = location[len(s)+1:]
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// Remap passes on the inner FileIO's remapping.
func (c *confined) Remap(path string) string { return Remap(c.inner, path) }

func (c *confined) OpenSized(ctx context.Context, path string, size int64) (File, error) {
	return OpenSized(ctx, c.inner, path, size)
}

func (c *confined) Open(ctx context.Context, path string) (File, error) {
	return c.inner.Open(ctx, path)
}

func (c *confined) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return c.inner.ReadFile(ctx, path)
}

func (c *confined) Stat(ctx context.Context, path string) (FileInfo, error) {
	return c.inner.Stat(ctx, path)
}

func (c *confined) Exists(ctx context.Context, path string) (bool, error) {
	return c.inner.Exists(ctx, path)
}

func (c *confined) List(ctx context.Context, dir string) ([]FileInfo, error) {
	return c.inner.List(ctx, dir)
}

func (c *confined) WriteFile(ctx context.Context, path string, data []byte) error {
	if err := c.inside("write", path); err != nil {
		return err
	}
	return c.inner.WriteFile(ctx, path, data)
}

func (c *confined) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	if err := c.inside("write", path); err != nil {
		return err
	}
	return c.inner.WriteFileIfAbsent(ctx, path, data)
}

func (c *confined) Create(ctx context.Context, path string) (Writer, error) {
	if err := c.inside("create", path); err != nil {
		return nil, err
	}
	return c.inner.Create(ctx, path)
}

func (c *confined) Delete(ctx context.Context, path string) error {
	if err := c.inside("delete", path); err != nil {
		return err
	}
	return c.inner.Delete(ctx, path)
}
