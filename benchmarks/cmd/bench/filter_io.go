package main

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/floedb/floe/iceberg/fileio"
)

// countingIO wraps a table's FileIO and counts the bytes it hands out, so
// the filter section measures what floe reads from storage without
// trusting floe's own counters. Only ReadAt and ReadFile are wrapped: an
// optional interface of the wrapped File (a batched read, say) is hidden,
// so floe falls back to ReadAt, which is counted.
type countingIO struct {
	fileio.FileIO
	data, other atomic.Int64 // bytes of Parquet data files, of everything else
}

func (c *countingIO) counter(path string) *atomic.Int64 {
	if strings.HasSuffix(strings.ToLower(path), ".parquet") {
		return &c.data
	}
	return &c.other
}

func (c *countingIO) Open(ctx context.Context, path string) (fileio.File, error) {
	f, err := c.FileIO.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, n: c.counter(path)}, nil
}

func (c *countingIO) ReadFile(ctx context.Context, path string) ([]byte, error) {
	b, err := c.FileIO.ReadFile(ctx, path)
	c.counter(path).Add(int64(len(b)))
	return b, err
}

type countingFile struct {
	fileio.File
	n *atomic.Int64
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.n.Add(int64(n))
	return n, err
}
