package puffin

import (
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

func TestAppendAndCountPositions(t *testing.T) {
	bm, err := DecodeDeletionVector(readGolden(t, "deletion-vectors/all-container-types-position-index.bin"))
	if err != nil {
		t.Fatal(err)
	}
	all := bm.ToArray()
	bounds := []int64{-5, 0, 5, 6, 7, 8, 65536, 65537, 66535, 66536, 1 << 17, 1<<17 + 1, 1<<17 + 65535,
		1 << 32, 1<<32 + 10, 1<<32 + 11, 1<<32 + 131071, 1<<32 + 131072, 1 << 40}
	buf := make([]int64, 0, 16)
	for _, start := range bounds {
		for _, end := range bounds {
			var want []int64
			for _, p := range all {
				if int64(p) >= start && int64(p) < end {
					want = append(want, int64(p))
				}
			}
			buf = AppendPositions(buf[:0], bm, start, end)
			if !slices.Equal(buf, want) && len(buf)+len(want) > 0 {
				t.Fatalf("[%d, %d): %d positions, want %d", start, end, len(buf), len(want))
			}
			if n := CountPositions(bm, start, end); n != int64(len(want)) {
				t.Fatalf("[%d, %d): count %d, want %d", start, end, n, len(want))
			}
		}
	}
	prefix := []int64{-1}
	if got := AppendPositions(prefix, bm, 0, 8); !slices.Equal(got, []int64{-1, 5, 7}) {
		t.Fatalf("appended %v", got)
	}
	if AppendPositions(nil, nil, 0, 10) != nil || CountPositions(nil, 0, 10) != 0 || CountPositions(roaring64.New(), 0, 10) != 0 {
		t.Fatal("nil or empty bitmap")
	}
}

func TestPositionCursor(t *testing.T) {
	bm, err := DecodeDeletionVector(readGolden(t, "deletion-vectors/all-container-types-position-index.bin"))
	if err != nil {
		t.Fatal(err)
	}
	// Ranges of each step size over the first 2^18 positions of both keys,
	// skipping every third range as a reader does for pruned row groups.
	for _, step := range []int64{1, 3, 1000, 65536, 1 << 31} {
		c := NewPositionCursor(bm)
		var got, want []int64
		for _, base := range []int64{0, 1 << 32} {
			for start := base; start < base+1<<18; start += step {
				end := start + step
				if start/step%3 == 2 {
					continue
				}
				got = c.Append(got, start, end)
				want = AppendPositions(want, bm, start, end)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: cursor gave %d positions, AppendPositions %d", step, len(got), len(want))
		}
	}
	if got := NewPositionCursor(nil).Append(nil, 0, 100); got != nil {
		t.Fatalf("nil bitmap gave %v", got)
	}
}

func benchmarkBitmap() *roaring64.Bitmap {
	bm := roaring64.New()
	for p := uint64(0); p < 10_000_000; p += 7 {
		bm.Add(p)
	}
	return bm
}

const benchRowGroup = 1 << 20

func BenchmarkAppendPositionsPerRowGroup(b *testing.B) {
	bm := benchmarkBitmap()
	buf := make([]int64, 0, benchRowGroup/7+1)
	b.ReportAllocs()
	for b.Loop() {
		for start := int64(0); start < 10_000_000; start += benchRowGroup {
			buf = AppendPositions(buf[:0], bm, start, start+benchRowGroup)
		}
	}
}

func BenchmarkPositionCursorPerRowGroup(b *testing.B) {
	bm := benchmarkBitmap()
	buf := make([]int64, 0, benchRowGroup/7+1)
	b.ReportAllocs()
	for b.Loop() {
		c := NewPositionCursor(bm)
		for start := int64(0); start < 10_000_000; start += benchRowGroup {
			buf = c.Append(buf[:0], start, start+benchRowGroup)
		}
	}
}
