package fileio

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// Every local write goes to a hidden temporary file beside its target, is
// synced, and is then published under the final name in one step, so readers
// never see a partial file and a crash leaves at worst a stray temp file.

// WriteFile replaces a local file atomically (temp file + rename). Missing
// parent directories are created, as an object store would not need them.
func (Local) WriteFile(ctx context.Context, path string, data []byte) error {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return err
	}
	tmp, err := writeTemp(p, data)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		os.Remove(tmp)
		return err
	}
	syncDir(filepath.Dir(p))
	return nil
}

// WriteFileIfAbsent creates a local file unless one exists. The temp file is
// published with link(), which fails when the name is taken, so an existing
// file is never replaced even by a racing writer.
func (Local) WriteFileIfAbsent(ctx context.Context, path string, data []byte) error {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(p); err == nil {
		return fmt.Errorf("fileio: %s: %w", path, ErrExists)
	}
	tmp, err := writeTemp(p, data)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := os.Link(tmp, p); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("fileio: %s: %w", path, ErrExists)
		}
		return err
	}
	syncDir(filepath.Dir(p))
	return nil
}

// Create starts a streamed write to a temp file that Close renames to path.
func (Local) Create(ctx context.Context, path string) (Writer, error) {
	p, err := checkedLocalPath(ctx, path)
	if err != nil {
		return nil, err
	}
	f, err := createTemp(p)
	if err != nil {
		return nil, err
	}
	return &localWriter{ctx: ctx, f: f, buf: bufio.NewWriterSize(f, writeBufferSize), final: p}, nil
}

// writeBufferSize batches the small writes of encoders into few syscalls;
// large writes bypass it.
const writeBufferSize = 256 << 10

type localWriter struct {
	ctx   context.Context
	f     *os.File
	buf   *bufio.Writer
	final string
	done  bool
}

var errWriterDone = errors.New("fileio: write to a closed or aborted file")

func (w *localWriter) Write(b []byte) (int, error) {
	if w.done {
		return 0, errWriterDone
	}
	return w.buf.Write(b)
}

func (w *localWriter) Close() error {
	if w.done {
		return errWriterDone
	}
	err := w.buf.Flush()
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = w.ctx.Err()
	}
	if err == nil {
		err = os.Rename(w.f.Name(), w.final)
	}
	w.done = true
	if err != nil {
		os.Remove(w.f.Name())
		return err
	}
	syncDir(filepath.Dir(w.final))
	return nil
}

func (w *localWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.f.Close()
	if err := os.Remove(w.f.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeTemp writes data to a synced temp file beside target and returns its
// name.
func writeTemp(target string, data []byte) (string, error) {
	f, err := createTemp(target)
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// createTemp creates a hidden file beside target, making parent directories
// as needed. Unlike os.CreateTemp it honours the umask (0666) instead of
// 0600, since the file becomes a table file other users may read.
func createTemp(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	if base == "" {
		return nil, fmt.Errorf("fileio: %s: path names a directory", target)
	}
	if dir == "" {
		dir = "."
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	const maxBase = 200 // leave room for the suffix within NAME_MAX
	if len(base) > maxBase {
		base = base[:maxBase]
	}
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(rand.Uint64(), 36)+".tmp")
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, err
	}
	return nil, fmt.Errorf("fileio: %s: could not pick a free temp name", target)
}

// syncDir makes a new directory entry durable. It is best effort: some file
// systems refuse fsync on directories, and by now the file is already
// visible, so failing the write would only mislead the caller.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
