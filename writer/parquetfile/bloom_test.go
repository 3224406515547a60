package parquetfile

import (
	"encoding/binary"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/floedb/floe/reader/parquet"
	"github.com/parquet-go/parquet-go/format"
)

// A chunk's filter, through all three of the builder's paths (a small
// exact set, a set just past its limit, a maxBytes filter folded down),
// read back by floe's reader: every value added is found, absent values
// are found at about the probability asked, and the bitset is sized for
// the distinct values within the cap.
func TestBloomBuilderReadByReader(t *testing.T) {
	for _, c := range []struct {
		distinct, repeats, maxBytes int
		fpp                         float64
	}{
		{100, 3, DefaultBloomMaxBytes, 0.01},
		{bloomSetLimit + 1000, 1, DefaultBloomMaxBytes, 0.01},
		{300_000, 2, DefaultBloomMaxBytes, 0.01},
		{300_000, 1, 64 << 10, 0.01}, // capped: more false positives, never a miss
		{50_000, 1, DefaultBloomMaxBytes, 0.001},
	} {
		b := newBloomBuilder(c.fpp, c.maxBytes)
		for range c.repeats {
			vals := make([]int64, c.distinct)
			for i := range vals {
				vals[i] = int64(2 * i)
			}
			b.addValues(format.Int64, &Values{I64: vals})
		}
		enc, err := b.encode()
		if err != nil {
			t.Fatal(err)
		}
		h, n, err := parquet.ParseBloomFilterHeader(enc)
		if err != nil || !h.Usable() || n+int(h.NumBytes) != len(enc) {
			t.Fatalf("%+v: header %+v (%d bytes) of %d, %v", c, h, n, len(enc), err)
		}
		filter := &parquet.SplitBlockBloom{Blocks: enc[n:]}
		hash := func(v int64) uint64 { return xxhash.Sum64(binary.LittleEndian.AppendUint64(nil, uint64(v))) }
		for i := range c.distinct {
			if !filter.MayContain(hash(int64(2 * i))) {
				t.Fatalf("%+v: value %d added but not found", c, 2*i)
			}
		}
		fp := 0
		const probes = 100_000
		for i := range probes {
			if filter.MayContain(hash(int64(2*i + 1))) {
				fp++
			}
		}
		rate := float64(fp) / probes
		want := bloomBytes(c.distinct, c.fpp, c.maxBytes)
		t.Logf("%+v: %d bytes (sized %d), false positives %.4f", c, h.NumBytes, want, rate)
		if int(h.NumBytes) != want && int(h.NumBytes) != 2*want && int(h.NumBytes) != want/2 {
			t.Errorf("%+v: %d bytes, want about %d", c, h.NumBytes, want)
		}
		if int(h.NumBytes) > c.maxBytes {
			t.Errorf("%+v: %d bytes beyond the cap", c, h.NumBytes)
		}
		if capped := want == c.maxBytes && c.distinct > bloomCapacity(c.fpp, c.maxBytes); !capped && rate > 2*c.fpp {
			t.Errorf("%+v: false positive rate %.4f, asked %v", c, rate, c.fpp)
		}
	}
}

func TestBloomBytes(t *testing.T) {
	for _, c := range []struct {
		ndv  int
		fpp  float64
		max  int
		want int
	}{
		{0, 0.01, 1 << 20, 32},
		{1, 0.01, 1 << 20, 32},
		{1_000_000, 0.01, 1 << 20, 1 << 20},
		{10_000, 0.01, 1 << 20, 16384}, // 9.7 bits a value: 12.1 KB, rounded up
		{10_000, 0.01, 3000, 2048},     // the largest power of two under the cap
	} {
		if got := bloomBytes(c.ndv, c.fpp, c.max); got != c.want {
			t.Errorf("bloomBytes(%d, %v, %d) = %d, want %d", c.ndv, c.fpp, c.max, got, c.want)
		}
	}
}
