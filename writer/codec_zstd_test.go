package writer

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// TestZstdCodec: what zstdCodec encodes decodes to its input (klauspost's
// decoder and the codec's own), at every level, into reused buffers; and
// input without matches but with a skewed byte distribution (bit-packed
// indexes into a 3-value dictionary, entropy 6.3 bits a byte) is
// entropy-coded rather than stored raw.
func TestZstdCodec(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	skewed := make([]byte, 150_000)
	for i := range skewed {
		for k := range 4 {
			skewed[i] |= byte(r.IntN(3)) << (2 * k)
		}
	}
	random := make([]byte, 100_000)
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	text := bytes.Repeat([]byte("furiously regular deposits sleep "), 3000)
	for _, level := range []int{0, 1, 3, 7, 19} {
		o := Options{Codec: "zstd", CompressionLevel: level}
		codec, err := o.codec()
		if err != nil {
			t.Fatal(err)
		}
		var buf []byte
		for name, src := range map[string][]byte{"skewed": skewed, "random": random, "text": text, "empty": nil} {
			enc, err := codec.Encode(buf, src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := dec.DecodeAll(enc, nil)
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("level %d, %s: decoded %d bytes of %d: %v", level, name, len(got), len(src), err)
			}
			if got, err := codec.Decode(nil, enc); err != nil || !bytes.Equal(got, src) {
				t.Fatalf("level %d, %s: the codec decodes %d bytes of %d: %v", level, name, len(got), len(src), err)
			}
			if name == "skewed" && len(enc) > len(src)*85/100 {
				t.Errorf("level %d: skewed input %d bytes → %d: literals left raw", level, len(src), len(enc))
			}
			buf = enc
		}
	}
}

// TestZstdDefaultLevel: an unset level writes at defaultZstdLevel (the
// fastest, measured faster and no larger on the writer's pages), and an
// explicit zstd level keeps its meaning.
func TestZstdDefaultLevel(t *testing.T) {
	for level, want := range map[int]zstd.EncoderLevel{0: zstd.SpeedFastest, 1: zstd.SpeedFastest, 3: zstd.SpeedDefault, 7: zstd.SpeedBetterCompression} {
		codec, err := Options{Codec: "zstd", CompressionLevel: level}.codec()
		if err != nil {
			t.Fatal(err)
		}
		if got := codec.(*zstdCodec).level; got != want {
			t.Errorf("compression level %d: encoder level %v, want %v", level, got, want)
		}
	}
}
