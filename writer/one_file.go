package writer

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
)

// FileWriter writes Arrow batches as exactly one Parquet file whose place
// its caller names — a position delete file at a path the commit chose,
// the CLI's `scan --output` on any io.Writer — with everything Writer
// does to a data file: field ids, the Iceberg schema in the footer, the
// dictionary choice, the writer's own page encoding and codecs, and full
// column metrics. It is a Writer that never rolls over, over a FileIO that
// hands out that one file (oneFileIO), so floe has one Parquet writer.
type FileWriter struct {
	w    *Writer
	out  *oneFileIO
	path string
}

// NewFileWriter starts the file at path in files. Options are as for New;
// the target file size is ignored (one file however large), and so is the
// sort buffer's (a sort order holds every row until Close).
func NewFileWriter(ctx context.Context, files fileio.FileIO, path string, schema *iceberg.Schema, opts Options) (*FileWriter, error) {
	if files == nil || path == "" {
		return nil, fmt.Errorf("writer: a FileIO and a path are required")
	}
	out := &oneFileIO{FileIO: files,
		create: func(ctx context.Context) (fileio.Writer, error) { return files.Create(ctx, path) },
		remove: func(ctx context.Context) error { return files.Delete(ctx, path) },
	}
	return newFileWriter(ctx, out, path, schema, opts)
}

// NewStreamFileWriter writes the file to out as it goes, for output that
// has no FileIO (standard output, a temporary file the caller renames).
// out is the caller's to close; a failed write leaves part of a file in
// it.
func NewStreamFileWriter(ctx context.Context, out io.Writer, schema *iceberg.Schema, opts Options) (*FileWriter, error) {
	if out == nil {
		return nil, fmt.Errorf("writer: no output")
	}
	one := &oneFileIO{
		create: func(context.Context) (fileio.Writer, error) { return streamOut{out}, nil },
		remove: func(context.Context) error { return nil },
	}
	return newFileWriter(ctx, one, "", schema, opts)
}

func newFileWriter(ctx context.Context, out *oneFileIO, path string, schema *iceberg.Schema, opts Options) (*FileWriter, error) {
	opts.TargetFileSize = math.MaxInt64
	// With a sort order the one file is one sorted run: every batch is
	// held until Close (a sort buffer's flush would start a second file).
	opts.SortBufferSize = math.MaxInt64
	location := path
	if location == "" {
		location = "stream"
	}
	w, err := New(ctx, out, location, schema, nil, opts)
	if err != nil {
		return nil, err
	}
	return &FileWriter{w: w, out: out, path: path}, nil
}

// Write adds a batch; see Writer.Write.
func (f *FileWriter) Write(rec arrow.RecordBatch) error { return f.w.Write(rec) }

// Close finishes the file and returns its entry (content data, no
// partition; FilePath the path given, empty for a stream). A file of no
// rows is still written: a footer and no row group.
func (f *FileWriter) Close() (manifest.DataFile, error) {
	files, err := f.w.Close()
	if err != nil {
		return manifest.DataFile{}, err
	}
	var df manifest.DataFile
	switch len(files) {
	case 0:
		if df, err = f.writeEmpty(); err != nil {
			f.w.Abort()
			return df, err
		}
	case 1:
		df = files[0]
	default:
		f.w.Abort()
		return df, fmt.Errorf("writer: internal error: %d files for one", len(files))
	}
	df.FilePath = f.path
	return df, nil
}

// writeEmpty writes the file of a writer that was given no rows, through
// the same file configuration.
func (f *FileWriter) writeEmpty() (manifest.DataFile, error) {
	w := f.w
	out, err := f.out.Create(w.ctx, f.path)
	if err != nil {
		return manifest.DataFile{}, err
	}
	df, err := newDataFile(out, f.path, nil, w.fs, w.config)
	if err != nil {
		return manifest.DataFile{}, err
	}
	return df.finish(w.fs, w.spec.ID, &w.opts)
}

// Abort discards the file, finished or not; see Writer.Abort.
func (f *FileWriter) Abort() error { return f.w.Abort() }

// oneFileIO is the FileIO a FileWriter's Writer sees: its one Create
// makes the caller's file, whatever name the Writer chose, and a second
// is refused (the file never rolls over, so that would be a bug); Delete,
// which Abort calls for finished files, removes that file. Other methods
// are the wrapped FileIO's, which a Writer does not call.
type oneFileIO struct {
	fileio.FileIO
	create  func(context.Context) (fileio.Writer, error)
	remove  func(context.Context) error
	created bool
}

func (o *oneFileIO) Create(ctx context.Context, _ string) (fileio.Writer, error) {
	if o.created {
		return nil, fmt.Errorf("writer: internal error: a second file for a single-file writer")
	}
	o.created = true
	return o.create(ctx)
}

func (o *oneFileIO) Delete(ctx context.Context, _ string) error { return o.remove(ctx) }

// streamOut is a stream as a FileIO writer: the bytes go straight out and
// there is nothing to publish or take back.
type streamOut struct{ io.Writer }

func (streamOut) Close() error { return nil }
func (streamOut) Abort() error { return nil }
