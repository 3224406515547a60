package puffin

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// The position sets below rebuild, call for call, what apache/iceberg's
// TestBitmapPositionDeleteIndex puts into each index before comparing its
// serialisation with the golden file (core/src/test/resources/org/apache/
// iceberg/deletes). index.delete(a, b) sets the range [a, b).

const (
	bitmapOffset    = uint64(1) << 32 // 0xFFFFFFFFL + 1L
	containerOffset = uint64(1) << 16 // Character.MAX_VALUE + 1L
)

func position(bitmap, container, value uint64) uint64 {
	return bitmap*bitmapOffset + container*containerOffset + value
}

type goldenDV struct {
	file  string
	build func(bm *roaring64.Bitmap)
}

var goldenDVs = []goldenDV{
	{"empty-position-index.bin", func(*roaring64.Bitmap) {}},
	{"small-alternating-values-position-index.bin", func(bm *roaring64.Bitmap) {
		for _, p := range []uint64{1, 3, 5, 7, 9} {
			bm.Add(p)
		}
	}},
	{"small-and-large-values-position-index.bin", func(bm *roaring64.Bitmap) {
		for _, p := range []uint64{100, 101, math.MaxInt32 + 100, math.MaxInt32 + 101} {
			bm.Add(p)
		}
	}},
	{"all-container-types-position-index.bin", func(bm *roaring64.Bitmap) {
		bm.Add(position(0, 0, 5))
		bm.Add(position(0, 0, 7))
		bm.AddRange(position(0, 1, 1), position(0, 1, 1000))
		bm.AddRange(position(0, 2, 1), position(0, 2, containerOffset-1))
		bm.Add(position(1, 0, 10))
		bm.Add(position(1, 0, 20))
		bm.AddRange(position(1, 1, 10), position(1, 1, 500))
		bm.AddRange(position(1, 2, 1), position(1, 2, containerOffset-1))
	}},
}

func TestDecodeGoldenDeletionVectors(t *testing.T) {
	for _, g := range goldenDVs {
		t.Run(g.file, func(t *testing.T) {
			want := roaring64.New()
			g.build(want)
			got, err := DecodeDeletionVector(readGolden(t, "deletion-vectors/"+g.file))
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equals(want) || got.GetCardinality() != want.GetCardinality() {
				t.Fatalf("decoded %d positions, want %d", got.GetCardinality(), want.GetCardinality())
			}
		})
	}
}

func TestEncodeMatchesGoldenDeletionVectors(t *testing.T) {
	for _, g := range goldenDVs {
		t.Run(g.file, func(t *testing.T) {
			bm := roaring64.New()
			g.build(bm)
			got, err := EncodeDeletionVector(bm)
			if err != nil {
				t.Fatal(err)
			}
			if want := readGolden(t, "deletion-vectors/"+g.file); !bytes.Equal(got, want) {
				t.Fatalf("encoded\n% x\nJava wrote\n% x", got, want)
			}
		})
	}
}

// Java's DV writer adds positions one at a time; run-optimisation must pick
// the same containers as for the ranges above.
func TestEncodeFromSinglePositionsMatchesGolden(t *testing.T) {
	ranged := roaring64.New()
	goldenDVs[3].build(ranged)
	single := roaring64.New()
	for p := range roaring64.Values(ranged) {
		single.Add(p)
	}
	got, err := EncodeDeletionVector(single)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readGolden(t, "deletion-vectors/"+goldenDVs[3].file)) {
		t.Fatalf("encoded % x", got)
	}
}

// Java's testDeserializeInvalidCrc: positions {1, 2}, the last CRC byte
// flipped, fails with "Invalid CRC ...: 0x712fa6e8, expected 0x712fa6e9".
func TestDeletionVectorCRCMismatch(t *testing.T) {
	blob, err := EncodeDeletionVector(roaring64.BitmapOf(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	if crc := blob[len(blob)-4:]; !bytes.Equal(crc, []byte{0x71, 0x2f, 0xa6, 0xe8}) {
		t.Fatalf("CRC % x, Java computes 71 2f a6 e8", crc)
	}
	blob[len(blob)-1] ^= 0x01
	_, err = DecodeDeletionVector(blob)
	if err == nil || err.Error() != "puffin: deletion vector CRC is 0x712fa6e8, stored 0x712fa6e9" {
		t.Fatalf("got %v", err)
	}
}

// RoaringPositionBitmap keeps a bitmap for every key up to the largest and
// serialises them all, empty ones included (cookie 12346, no containers).
func TestEncodeWritesEmptyBitmapsForMissingKeys(t *testing.T) {
	bm := roaring64.BitmapOf(position(2, 0, 7))
	got, err := EncodeDeletionVector(bm)
	if err != nil {
		t.Fatal(err)
	}
	vector := []byte{3, 0, 0, 0, 0, 0, 0, 0}
	for key := range byte(2) {
		vector = append(vector, key, 0, 0, 0, 0x3a, 0x30, 0, 0, 0, 0, 0, 0)
	}
	vector = append(vector, 2, 0, 0, 0,
		0x3a, 0x30, 0, 0, 1, 0, 0, 0, // no runs, one container
		0, 0, 0, 0, // key 0, cardinality 1
		16, 0, 0, 0, // offset of the container
		7, 0)
	if want := frameDV(vector); !bytes.Equal(got, want) {
		t.Fatalf("encoded\n% x\nwant\n% x", got, want)
	}
	back, err := DecodeDeletionVector(got)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.ToArray(), []uint64{position(2, 0, 7)}) {
		t.Fatalf("decoded %v", back.ToArray())
	}
}

func TestEncodeNilIsEmpty(t *testing.T) {
	got, err := EncodeDeletionVector(nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, readGolden(t, "deletion-vectors/empty-position-index.bin")) {
		t.Fatalf("got % x", got)
	}
}

func TestEncodeRejectsHugeKeys(t *testing.T) {
	for _, p := range []uint64{1 << 63, uint64(math.MaxInt32) << 32, 1 << 60} {
		if _, err := EncodeDeletionVector(roaring64.BitmapOf(p)); err == nil {
			t.Errorf("position %#x: no error", p)
		}
	}
}
