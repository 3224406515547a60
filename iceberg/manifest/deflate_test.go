package manifest

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"testing"
)

// The pooled block decompressor gives back exactly what was compressed,
// whether the block expands less or far more than its first guess, and
// never the same buffer twice (decoded bounds point into it).
func TestDeflateReaderRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := make([]byte, 200_000)
	for i := range random {
		random[i] = byte(rng.IntN(256))
	}
	inputs := map[string][]byte{
		"empty":           {},
		"short":           []byte("a manifest block"),
		"incompressible":  random,
		"very repetitive": bytes.Repeat([]byte("data_file.lower_bounds "), 50_000),
	}
	for name, in := range inputs {
		w := newDeflateWriter()
		compressed, err := w.Compress(in)
		if err != nil {
			t.Fatal(err)
		}
		compressed = bytes.Clone(compressed)
		w.Close()
		first, err := deflateReader{}.DecompressBounded(compressed, maxBlockBytes)
		if err != nil || !bytes.Equal(first, in) {
			t.Fatalf("%s: %d bytes back (%v), want %d", name, len(first), err, len(in))
		}
		second, err := deflateReader{}.DecompressBounded(compressed, maxBlockBytes)
		if err != nil || !bytes.Equal(second, in) {
			t.Fatalf("%s: the second decompression differs (%v)", name, err)
		}
		if len(in) > 0 && &first[0] == &second[0] {
			t.Errorf("%s: two blocks share one buffer", name)
		}
		// Decoded bounds keep the block alive: little spare capacity.
		if cap(first) > len(first)+len(first)/4 {
			t.Errorf("%s: %d bytes kept for a block of %d", name, cap(first), len(first))
		}
	}
}

// A block that expands past the limit, or is not deflate at all, fails.
func TestDeflateReaderRefuses(t *testing.T) {
	w := newDeflateWriter()
	compressed, err := w.Compress(bytes.Repeat([]byte{7}, 10_000))
	if err != nil {
		t.Fatal(err)
	}
	compressed = bytes.Clone(compressed)
	w.Close()
	if _, err := (deflateReader{}).DecompressBounded(compressed, 9_999); err == nil {
		t.Error("a block of 10,000 bytes passed a 9,999-byte limit")
	}
	if out, err := (deflateReader{}).DecompressBounded(compressed, 10_000); err != nil || len(out) != 10_000 {
		t.Errorf("a block of exactly the limit: %d bytes, %v", len(out), err)
	}
	if _, err := (deflateReader{}).DecompressBounded([]byte{0xff, 0xfe, 0xfd, 0x00}, maxBlockBytes); err == nil {
		t.Error("garbage decompressed")
	}
}

// A large block of garbage fails having allocated about a first guess,
// not a multiple of its size.
func TestDeflateReaderGarbageAllocatesLittle(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	garbage := make([]byte, 8<<20)
	for i := range garbage {
		garbage[i] = byte(rng.IntN(256))
	}
	// Warm the pool so its decompressor is not counted.
	if _, err := (deflateReader{}).DecompressBounded(garbage, maxBlockBytes); err == nil {
		t.Fatal("garbage decompressed")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := deflateReader{}.DecompressBounded(garbage, maxBlockBytes)
	runtime.ReadMemStats(&after)
	if err == nil {
		t.Fatal("garbage decompressed")
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 2<<20 {
		t.Errorf("8 MiB of garbage allocated %d bytes before failing", n)
	}
}
