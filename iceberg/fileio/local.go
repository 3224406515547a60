package fileio

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Local is the FileIO of the local file system. It takes plain paths
// (relative ones resolve against the working directory) and file: URIs. The
// zero value is ready to use.
type Local struct{}

var _ FileIO = Local{}

// Open opens a local file for ranged reads through pread.
func (Local) Open(ctx context.Context, path string) (File, error) {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if st.IsDir() {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: p, Err: errIsDir}
	}
	return &localFile{File: f, size: st.Size()}, nil
}

type localFile struct {
	*os.File
	size int64
}

func (f *localFile) Size() int64 { return f.size }

// ReadFile reads a whole local file of at most MaxReadFile bytes.
func (l Local) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return l.ReadFileLimited(ctx, path, MaxReadFile)
}

// Stat describes a local file; it follows symbolic links.
func (Local) Stat(ctx context.Context, path string) (FileInfo, error) {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return FileInfo{}, err
	}
	st, err := os.Stat(p)
	if err != nil {
		return FileInfo{}, err
	}
	if st.IsDir() {
		return FileInfo{}, &fs.PathError{Op: "stat", Path: p, Err: errIsDir}
	}
	return FileInfo{Path: path, Size: st.Size(), ModTime: st.ModTime()}, nil
}

// Exists reports whether a local file exists. A directory, or a path running
// through a file as if it were a directory, does not count.
func (l Local) Exists(ctx context.Context, path string) (bool, error) {
	_, err := l.Stat(ctx, path)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errIsDir), errors.Is(err, syscall.ENOTDIR):
		return false, nil
	default:
		return false, err
	}
}

// Delete removes a local file; it refuses directories.
func (Local) Delete(ctx context.Context, path string) error {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return err
	}
	st, err := os.Lstat(p)
	if err != nil {
		return err
	}
	if st.IsDir() {
		return &fs.PathError{Op: "delete", Path: p, Err: errIsDir}
	}
	return os.Remove(p)
}

// List returns the regular files directly in dir, following symbolic links
// and skipping subdirectories and dangling links.
func (Local) List(ctx context.Context, dir string) ([]FileInfo, error) {
	p, err := checkedLocalPath(ctx, dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		info, err := e.Info()
		if err == nil && info.Mode()&fs.ModeSymlink != 0 {
			info, err = os.Stat(filepath.Join(p, e.Name()))
		}
		if errors.Is(err, fs.ErrNotExist) {
			continue // removed while listing, or a dangling link
		}
		if err != nil {
			return nil, err
		}
		if !info.Mode().IsRegular() {
			continue
		}
		out = append(out, FileInfo{Path: JoinPath(dir, e.Name()), Size: info.Size(), ModTime: info.ModTime()})
	}
	return out, nil
}

func checkedLocalPath(ctx context.Context, path string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return localPath(path)
}

// IsLocal reports whether f was opened on the local file system, where a
// read costs no round trip: a reader gains nothing by merging or reading
// ahead for it.
func IsLocal(f File) bool {
	_, ok := f.(*localFile)
	return ok
}
