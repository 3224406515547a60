package parquet

import (
	"slices"
	"testing"
)

func TestParseBloomFilterHeader(t *testing.T) {
	// numBytes 64, SPLIT_BLOCK, XXHASH, UNCOMPRESSED as the Thrift compact
	// protocol writes them
	hdr := []byte{0x15, 0x80, 0x01, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00}
	h, n, err := ParseBloomFilterHeader(hdr)
	if err != nil || n != len(hdr) || !h.Usable() || h.NumBytes != 64 {
		t.Fatalf("got %+v, %d, %v", h, n, err)
	}
	// another compression (parquet-go writes a gzip member for gzip files)
	gz := slices.Clone(hdr)
	gz[11] = 0x2c
	if h, _, err := ParseBloomFilterHeader(gz); err != nil || h.Usable() {
		t.Errorf("compressed filter: %+v, %v", h, err)
	}
	for i := range len(hdr) - 1 {
		if _, _, err := ParseBloomFilterHeader(hdr[:i]); err == nil {
			t.Errorf("header cut at %d parsed", i)
		}
	}
}

// TestParseUnknownColumnOrder reads a ColumnOrder union member this
// reader does not know: its column is listed as of unknown order.
func TestParseUnknownColumnOrder(t *testing.T) {
	// [TYPE_ORDER, member 5]
	r := &ThriftReader{Buf: []byte{0x2c, 0x1c, 0x00, 0x00, 0x5c, 0x00, 0x00}}
	unknown, err := parseColumnOrders(r)
	if err != nil || !slices.Equal(unknown, []int{1}) {
		t.Fatalf("unknown orders %v, %v", unknown, err)
	}
}
