package fileio

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/floedb/floe/errkind"
)

// DirLister is a FileIO that lists the directories directly under a
// directory (on an object store: the common prefixes below a prefix).
// A filesystem warehouse needs it to list its namespaces and tables;
// reading and committing tables never do, so it is not part of FileIO.
type DirLister interface {
	// ListDirs returns the paths of the directories directly under dir,
	// sorted, each dir joined with the directory's name. A missing dir
	// lists as empty.
	ListDirs(ctx context.Context, dir string) ([]string, error)
}

// ListDirs lists the directories under dir with files, which must be a
// DirLister.
func ListDirs(ctx context.Context, files FileIO, dir string) ([]string, error) {
	l, ok := files.(DirLister)
	if !ok {
		return nil, errkind.Errorf(errkind.Unsupported, "fileio: %T cannot list directories", files)
	}
	return l.ListDirs(ctx, dir)
}

func (Local) ListDirs(ctx context.Context, dir string) ([]string, error) {
	p, err := checkedLocalPath(ctx, dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			st, err := os.Stat(filepath.Join(p, e.Name()))
			isDir = err == nil && st.IsDir()
		}
		if isDir {
			out = append(out, JoinPath(dir, e.Name()))
		}
	}
	return out, nil
}

func (r *Router) ListDirs(ctx context.Context, dir string) ([]string, error) {
	files, err := r.Resolve(dir)
	if err != nil {
		return nil, err
	}
	return ListDirs(ctx, files, dir)
}

func (r *Remapping) ListDirs(ctx context.Context, dir string) ([]string, error) {
	dirs, err := ListDirs(ctx, r.inner, r.m.Apply(dir))
	if err != nil {
		return nil, err
	}
	for i := range dirs {
		dirs[i] = JoinPath(dir, baseName(dirs[i]))
	}
	slices.Sort(dirs)
	return dirs, nil
}

// ListDirs passes the listing on: confinement limits writes, not reads.
func (c *confined) ListDirs(ctx context.Context, dir string) ([]string, error) {
	return ListDirs(ctx, c.inner, dir)
}

func (h *hinting) ListDirs(ctx context.Context, dir string) ([]string, error) {
	dirs, err := ListDirs(ctx, h.inner, dir)
	return dirs, h.wrap(dir, err)
}
