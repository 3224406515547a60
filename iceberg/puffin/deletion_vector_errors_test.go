package puffin

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// frameDV wraps a portable bitmap as a deletion-vector-v1 blob.
func frameDV(vector []byte) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(4+len(vector)))
	out = append(out, dvMagic[:]...)
	out = append(out, vector...)
	return binary.BigEndian.AppendUint32(out, crc32.ChecksumIEEE(out[4:]))
}

func TestDecodeDeletionVectorErrors(t *testing.T) {
	golden := readGolden(t, "deletion-vectors/small-alternating-values-position-index.bin")
	vector := golden[8 : len(golden)-4]
	withLength := func(n uint32) []byte {
		b := bytes.Clone(golden)
		binary.BigEndian.PutUint32(b, n)
		return b
	}
	badMagic := bytes.Clone(golden)
	badMagic[4] = 0
	edited := func(at int, v ...byte) []byte {
		b := bytes.Clone(vector)
		copy(b[at:], v)
		return frameDV(b)
	}
	for _, tc := range []struct {
		name, want string
		blob       []byte
	}{
		{"short", "shorter than its framing", golden[:10]},
		{"length too small", "length field says 41", withLength(41)},
		{"length too large", "length field says 43", withLength(43)},
		{"magic", "magic", badMagic},
		{"truncated blob", "length field", golden[:len(golden)-1]},
		{"trailing bytes", "left after the last bucket", frameDV(append(bytes.Clone(vector), 0))},
		{"bucket count", "bucket count 3 cannot fit", edited(0, 3)},
		{"missing bucket", "bucket 1: truncated key", edited(0, 2)},
		{"negative key", "makes positions negative", edited(8, 0, 0, 0, 0x80)},
		{"unknown cookie", "unknown cookie", edited(12, 0x3c)},
		{"unsorted array", "not increasing", edited(28, 9, 0)},
		{"array cardinality", "truncated", edited(22, 9)},
		{"empty vector", "no bucket count", frameDV(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDeletionVector(tc.blob)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestDecodeRejectsBadContainers(t *testing.T) {
	bucket := func(roaring32 ...byte) []byte {
		return frameDV(append([]byte{1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, roaring32...))
	}
	runs := func(card uint16, rs ...uint16) []byte {
		b := []byte{0x3b, 0x30, 0, 0, 1, 0, 0}
		b = binary.LittleEndian.AppendUint16(b, card-1)
		b = binary.LittleEndian.AppendUint16(b, uint16(len(rs)/2))
		for _, r := range rs {
			b = binary.LittleEndian.AppendUint16(b, r)
		}
		return b
	}
	bitmap := func(card uint16, set int) []byte {
		b := []byte{0x3a, 0x30, 0, 0, 1, 0, 0, 0, 0, 0}
		b = binary.LittleEndian.AppendUint16(b, card-1)
		b = append(b, 16, 0, 0, 0)
		words := make([]byte, roaringBitmapBytes)
		for i := range set {
			words[i/8] |= 1 << (i % 8)
		}
		return append(b, words...)
	}
	for _, tc := range []struct {
		name, want string
		blob       []byte
	}{
		{"runs overlap", "overlaps", bucket(runs(8, 0, 4, 3, 1)...)},
		{"runs adjacent", "touches", bucket(runs(4, 0, 1, 2, 1)...)},
		{"run past 65535", "passes 65535", bucket(runs(2, 65535, 1)...)},
		{"run cardinality", "header says", bucket(runs(3, 0, 1)...)},
		{"bitmap cardinality", "bitmap holds 4097 values, header says 5000", bucket(bitmap(5000, 4097)...)},
		{"keys repeat", "keys not increasing", bucket(0x3a, 0x30, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 2, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeDeletionVector(tc.blob)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// And the well-formed neighbours of those cases decode.
	for _, blob := range [][]byte{bucket(runs(4, 0, 1, 3, 1)...), bucket(bitmap(4097, 4097)...)} {
		if _, err := DecodeDeletionVector(blob); err != nil {
			t.Errorf("well-formed container rejected: %v", err)
		}
	}
}

func TestReadDeletionVectorRange(t *testing.T) {
	golden := readGolden(t, "deletion-vectors/small-and-large-values-position-index.bin")
	file := append(append([]byte("junk"), golden...), "more junk"...)
	bm, err := ReadDeletionVector(bytes.NewReader(file), 4, int64(len(golden)))
	if err != nil {
		t.Fatal(err)
	}
	if bm.GetCardinality() != 4 {
		t.Fatalf("cardinality %d", bm.GetCardinality())
	}
	for _, tc := range []struct{ off, n int64 }{{-1, 20}, {4, -1}, {4, 5}, {4, int64(len(golden)) + 1}, {int64(len(file)), 20}} {
		if _, err := ReadDeletionVector(bytes.NewReader(file), tc.off, tc.n); err == nil {
			t.Errorf("offset %d length %d: no error", tc.off, tc.n)
		}
	}
}
