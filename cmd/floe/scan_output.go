package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer"
)

// outputFormat is the scan output format a file name's extension asks for.
func outputFormat(path string) (string, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return "parquet", nil
	case ".csv":
		return "csv", nil
	case ".jsonl", ".ndjson", ".json":
		return "jsonl", nil
	}
	return "", fmt.Errorf("--output %s: name a .parquet, .csv or .jsonl file (the extension picks the format)", path)
}

// outputFile is a scan's output written beside its path and moved there
// only when complete: a failed or interrupted scan leaves no partial file.
type outputFile struct {
	*os.File
	path string
	done bool
}

func createOutput(path string) (*outputFile, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("--output %s: %w", path, err)
	}
	// CreateTemp makes the file 0600; the output is an ordinary file,
	// readable as the user's umask allows for any file they create.
	if err := f.Chmod(os.FileMode(0o666 &^ umask())); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("--output %s: %w", path, err)
	}
	return &outputFile{File: f, path: path}, nil
}

func (o *outputFile) publish() error {
	if err := o.Sync(); err != nil {
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	if err := os.Rename(o.Name(), o.path); err != nil {
		return fmt.Errorf("--output %s: %w", o.path, err)
	}
	o.done = true
	return nil
}

func (o *outputFile) discard() {
	if !o.done {
		o.Close()
		os.Remove(o.Name())
	}
}

// parquetSink writes the batches as one Parquet file with floe's own
// writer, the one data and delete files go through: the scan's Iceberg
// fields give the columns their field ids and the footer its
// iceberg.schema; zstd, the writer's dictionary choice and page sizes.
type parquetSink struct {
	fw *writer.FileWriter
}

func newParquetSink(ctx context.Context, w io.Writer, fields []iceberg.NestedField) (*parquetSink, error) {
	fw, err := writer.NewStreamFileWriter(ctx, w, iceberg.NewSchema(0, fields), writer.DefaultOptions())
	if err != nil {
		return nil, err
	}
	return &parquetSink{fw: fw}, nil
}

func (s *parquetSink) batch(rec arrow.RecordBatch) error { return s.fw.Write(rec) }

func (s *parquetSink) finish() error {
	_, err := s.fw.Close()
	return err
}
