package parquet

import (
	"bytes"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// decompressAll runs DecompressChunk over every chunk of data.
func decompressAll(t *testing.T, data []byte) (int64, error) {
	t.Helper()
	f := openBytes(t, data)
	var total int64
	for rg := range f.RowGroups {
		for leaf := range f.Leaves {
			n, err := f.DecompressChunk(rg, leaf)
			total += n
			if err != nil {
				return total, err
			}
		}
	}
	return total, nil
}

// pageBytes is every page of data decompressed, in file order, and what
// DecompressChunk counts for them.
func pageBytes(t *testing.T, data []byte) ([]byte, int64) {
	t.Helper()
	f := openBytes(t, data)
	var out []byte
	var total int64
	for rg := range f.RowGroups {
		for leaf := range f.Leaves {
			n, err := f.DecompressChunk(rg, leaf)
			if err != nil {
				t.Fatal(err)
			}
			total += n
			err = f.CompressedPages(rg, leaf, func(codec Codec, compressed []byte, size, _ int) error {
				page := make([]byte, size)
				if err := Decompress(codec, page, compressed); err != nil {
					return err
				}
				out = append(out, page...)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return out, total
}

// The same rows under every codec and page version decompress to the
// bytes the uncompressed file's pages hold, page for page, and
// DecompressChunk counts them (with v2 pages' levels) as that file does.
func TestDecompressChunkMatchesUncompressed(t *testing.T) {
	for _, version := range []int{1, 2} {
		plain, plainTotal := pageBytes(t, smallTable(t, 5000, parquet.Compression(&parquet.Uncompressed), parquet.DataPageVersion(version)))
		if len(plain) == 0 {
			t.Fatal("the uncompressed file decompressed to nothing")
		}
		for _, codec := range testCodecs {
			got, total := pageBytes(t, smallTable(t, 5000, parquet.Compression(codec), parquet.DataPageVersion(version)))
			if !bytes.Equal(got, plain) || total != plainTotal {
				t.Errorf("%s v%d: %d bytes decompressed (%d counted), the uncompressed pages hold %d (%d)", codec, version, len(got), total, len(plain), plainTotal)
			}
		}
	}
}

func TestDecompressChunkRefusesCorruptPages(t *testing.T) {
	data := smallTable(t, 5000) // snappy
	start, end := firstPageBody(t, data)
	for i := start; i < end; i++ {
		data[i] = 0xff
	}
	if _, err := decompressAll(t, data); err == nil {
		t.Fatal("a page of 0xff bytes decompressed without an error")
	}
	f := openBytes(t, data)
	if _, err := f.DecompressChunk(len(f.RowGroups), 0); err == nil {
		t.Error("a row group past the last was accepted")
	}
}
