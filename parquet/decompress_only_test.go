package parquet

import (
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

// The same rows under every codec and page version decompress to the same
// bytes as the uncompressed file's pages hold: the pass visits every page
// and decompresses each to its full size.
func TestDecompressChunkMatchesUncompressed(t *testing.T) {
	for _, version := range []int{1, 2} {
		plain, err := decompressAll(t, smallTable(t, 5000, parquet.Compression(&parquet.Uncompressed), parquet.DataPageVersion(version)))
		if err != nil {
			t.Fatal(err)
		}
		if plain == 0 {
			t.Fatal("the uncompressed file decompressed to nothing")
		}
		for _, codec := range testCodecs {
			got, err := decompressAll(t, smallTable(t, 5000, parquet.Compression(codec), parquet.DataPageVersion(version)))
			if err != nil {
				t.Fatalf("%s v%d: %v", codec, version, err)
			}
			if got != plain {
				t.Errorf("%s v%d: %d bytes decompressed, the uncompressed pages hold %d", codec, version, got, plain)
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
