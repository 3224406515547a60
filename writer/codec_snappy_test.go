package writer

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/klauspost/compress/snappy"
)

// TestSnappyCodecDecodes: what snappyCodec encodes, into a reused buffer
// of any size, decodes to its input with klauspost's Snappy decoder (and
// the codec's own), from incompressible to highly repetitive input.
func TestSnappyCodecDecodes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var c snappyCodec
	buf := make([]byte, 0, 10)
	for _, size := range []int{0, 1, 100, 4096, 1 << 20, 3<<20 + 17} {
		for _, alphabet := range []int{1, 4, 256} {
			src := make([]byte, size)
			for i := range src {
				src[i] = byte(r.IntN(alphabet))
			}
			enc, err := c.Encode(buf, src)
			if err != nil {
				t.Fatal(err)
			}
			got, err := snappy.Decode(nil, enc)
			if err != nil || !bytes.Equal(got, src) {
				t.Fatalf("%d bytes of %d symbols: decoded %d bytes, %v", size, alphabet, len(got), err)
			}
			if got, err := c.Decode(nil, enc); err != nil || !bytes.Equal(got, src) {
				t.Fatalf("%d bytes of %d symbols: the codec decodes %d bytes, %v", size, alphabet, len(got), err)
			}
			if alphabet == 1 && size >= 4096 && len(enc) > size/10 {
				t.Errorf("%d equal bytes compressed to %d", size, len(enc))
			}
			buf = enc[:0]
		}
	}
}
