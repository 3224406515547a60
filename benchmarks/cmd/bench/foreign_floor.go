package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/floedb/floe/reader/parquet"
)

// The floor of a scan: a pass over the same files that reads every page
// of the columns a query returns and only decompresses it
// (parquet.File.DecompressChunk), decoding nothing. No reader using the
// same codec library can go below it; the report gives floe's and
// DuckDB's scans as multiples of it.

// floorQueries are the queries whose floor is reported: the full scans,
// which read every row of the columns they return.
var floorQueries = []string{"all columns", "2 columns (bigint, decimal)", "text column"}

// foreignFloor decompresses every page of columns (nil: all) in the
// table's files and returns the bytes they decompress to as DecodedBytes.
func foreignFloor(ft *foreignTable, columns []string) (checksum, error) {
	var sum checksum
	for _, path := range ft.Files {
		n, err := decompressFile(path, columns)
		if err != nil {
			return sum, fmt.Errorf("%s: %w", path, err)
		}
		sum.DecodedBytes += n
	}
	return sum, nil
}

func decompressFile(path string, columns []string) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	f, err := parquet.OpenFile(fh, info.Size(), nil)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var leaves []int
	for i, leaf := range f.Leaves {
		if columns == nil || slices.Contains(columns, leaf.DottedPath()) {
			leaves = append(leaves, i)
		}
	}
	if columns != nil && len(leaves) != len(columns) {
		return 0, fmt.Errorf("%d of the columns %v found", len(leaves), columns)
	}
	var total int64
	for rg := range f.RowGroups {
		for _, leaf := range leaves {
			n, err := f.DecompressChunk(rg, leaf)
			if err != nil {
				return total, err
			}
			total += n
		}
	}
	return total, nil
}

// measureFloor is the least CPU time of repeat floor passes for q's
// columns.
func measureFloor(ft *foreignTable, q foreignQuery, repeat int) (time.Duration, error) {
	s, err := measure(repeat, func() (checksum, error) { return foreignFloor(ft, q.Columns) })
	return s.CPU, err
}

// codecFloor is the zstd table's pages decompressed by two libraries:
// klauspost/compress (the floor floe's reader stands on) and libzstd
// (what DuckDB links), through its command-line tool, on the same
// concatenated frames: how much of floe's distance to DuckDB the codec
// library alone accounts for.
type codecFloor struct {
	Frames   int           `json:"frames"`
	Bytes    int64         `json:"decompressed_bytes"`
	GoCPU    time.Duration `json:"klauspost_cpu_ns"`
	LibZstd  time.Duration `json:"libzstd_cpu_ns"`
	LibError string        `json:"libzstd_error,omitempty"`
}

// measureCodecFloor writes every zstd page of the table's files (columns
// nil: all) as one multi-frame file and decompresses it repeat times with
// each library, keeping the least CPU time of each.
func measureCodecFloor(ft *foreignTable, repeat int) (codecFloor, error) {
	var cf codecFloor
	var frames []byte
	for _, path := range ft.Files {
		if err := eachCompressedPage(path, func(codec parquet.Codec, page []byte, size int) {
			if codec == parquet.CodecZstd {
				frames = append(frames, page...)
				cf.Frames++
				cf.Bytes += int64(size)
			}
		}); err != nil {
			return cf, err
		}
	}
	if cf.Frames == 0 {
		return cf, fmt.Errorf("no zstd pages in the %s table", ft.Codec)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return cf, err
	}
	defer dec.Close()
	out := make([]byte, 0, cf.Bytes)
	s, err := measure(repeat, func() (checksum, error) {
		got, err := dec.DecodeAll(frames, out[:0])
		if int64(len(got)) != cf.Bytes && err == nil {
			err = fmt.Errorf("klauspost: %d bytes from the frames, the pages hold %d", len(got), cf.Bytes)
		}
		return checksum{}, err
	})
	if err != nil {
		return cf, err
	}
	cf.GoCPU = s.CPU
	tmp, err := os.CreateTemp("", "floe-frames-*.zst")
	if err != nil {
		return cf, err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(frames); err != nil {
		tmp.Close()
		return cf, err
	}
	tmp.Close()
	for i := range repeat {
		cmd := exec.Command("zstd", "-d", "-q", "-c", "--no-check", tmp.Name())
		cmd.Stdout = io.Discard
		if err := cmd.Run(); err != nil {
			cf.LibError = err.Error()
			return cf, nil
		}
		cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if i == 0 || cpu < cf.LibZstd {
			cf.LibZstd = cpu
		}
	}
	return cf, nil
}

func eachCompressedPage(path string, fn func(codec parquet.Codec, page []byte, size int)) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	info, err := fh.Stat()
	if err != nil {
		return err
	}
	f, err := parquet.OpenFile(fh, info.Size(), nil)
	if err != nil {
		return err
	}
	defer f.Close()
	for rg := range f.RowGroups {
		for leaf := range f.Leaves {
			err := f.CompressedPages(rg, leaf, func(codec parquet.Codec, page []byte, size, _ int) error {
				fn(codec, page, size)
				return nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}
