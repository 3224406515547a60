package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"time"

	"github.com/floedb/floe/errkind"
)

// FileIO reads and writes whole files named by paths or URIs.
//
// Errors for a missing file wrap fs.ErrNotExist so callers can use errors.Is.
// Directories are not files: Stat and Open refuse them and Exists reports
// false, as an object store would.
type FileIO interface {
	// Open opens a file for ranged reads.
	Open(ctx context.Context, path string) (File, error)
	// ReadFile reads a whole file.
	ReadFile(ctx context.Context, path string) ([]byte, error)
	// Stat returns a file's size and modification time.
	Stat(ctx context.Context, path string) (FileInfo, error)
	// Exists reports whether a file exists at path.
	Exists(ctx context.Context, path string) (bool, error)

	// WriteFile replaces the file at path with data in one step: a reader sees
	// either the old content or the new, never a mixture.
	WriteFile(ctx context.Context, path string, data []byte) error
	// WriteFileIfAbsent creates the file at path with data unless a file
	// already exists there, in which case it returns an error wrapping
	// ErrExists and leaves that file untouched. Among concurrent callers on
	// one path exactly one succeeds; readers never see a partial file. This is
	// the primitive a metadata commit is built on.
	WriteFileIfAbsent(ctx context.Context, path string, data []byte) error
	// Create starts a streamed write of a large file. Nothing is visible at
	// path until Close succeeds; Abort discards what was written.
	Create(ctx context.Context, path string) (Writer, error)

	// Delete removes a file.
	Delete(ctx context.Context, path string) error
	// List returns the files directly under dir (not those in deeper
	// directories), sorted by path. Each Path is dir joined with the file's
	// name, in the caller's spelling of dir. A missing dir gives an error
	// wrapping fs.ErrNotExist on file systems; object stores have no
	// directories and list it as empty.
	List(ctx context.Context, dir string) ([]FileInfo, error)
}

// File is an open file for ranged reads. ReadAt may be called from several
// goroutines at once.
//
// Implementations may grow optional interfaces discovered by type assertion,
// such as a batched read of several ranges that an object store can coalesce
// into fewer requests.
type File interface {
	io.ReaderAt
	io.Closer
	// Size is the file's length in bytes when it was opened.
	Size() int64
}

// Writer streams a new file. It is not safe for concurrent use.
type Writer interface {
	io.Writer
	// Close makes the file visible at its path. If the context given to
	// Create is done by then, Close aborts instead and returns its error.
	// After a failed Close nothing is left behind.
	Close() error
	// Abort discards the file. It is a no-op after Close or Abort, so it can
	// be deferred unconditionally.
	Abort() error
}

// FileInfo describes one file.
type FileInfo struct {
	Path    string
	Size    int64
	ModTime time.Time
}

// ErrExists is returned (wrapped) by WriteFileIfAbsent when the path is
// taken. It also matches fs.ErrExist.
var ErrExists = errkind.Errorf(errkind.Conflict, "file already exists: %w", fs.ErrExist)

// ErrUnsupportedScheme is returned (wrapped) for a location whose scheme no
// FileIO handles.
var ErrUnsupportedScheme = errkind.New(errkind.Unsupported, "unsupported location scheme")

// errIsDir is the reason Open and Stat refuse a directory.
var errIsDir = errors.New("is a directory")
