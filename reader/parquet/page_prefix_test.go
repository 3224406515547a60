package parquet

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// prefixPatterns keep rows only in a window's first part, as a clustered
// filter does, so selected reads decompress pages in part; "head then
// more" keeps rows in the next window too (the page completed later).
var prefixPatterns = map[string]selectionPattern{
	"head": func(rng *rand.Rand, keep []byte, n int) int {
		clear(keep)
		kept := 0
		for i := range n * 3 / 10 {
			if rng.IntN(3) > 0 {
				keep[i>>3] |= 1 << (i & 7)
				kept++
			}
		}
		return kept
	},
	"middle run": func(rng *rand.Rand, keep []byte, n int) int {
		clear(keep)
		start := rng.IntN(n / 2)
		end := start + 1 + rng.IntN(n/4)
		for i := start; i < end; i++ {
			keep[i>>3] |= 1 << (i & 7)
		}
		return end - start
	},
	"head or dense": func(rng *rand.Rand, keep []byte, n int) int {
		if rng.IntN(2) == 0 {
			return fillRandom(rng, keep, n, 0.5)
		}
		clear(keep)
		keep[0] = 1
		return 1
	},
}

// TestSelectedReadsDecompressPagesInPart reads zstd files whose row
// groups are one PLAIN page a column (as DuckDB writes them), keeping
// rows only near each window's start: the selected reads must equal the
// filtered whole reads, value for value, and must have decompressed pages
// in part — also where a later window of the row group needs rows past
// the part (the page completed), with batches smaller than pages.
func TestSelectedReadsDecompressPagesInPart(t *testing.T) {
	specs := []colSpec{
		optional("i32", enc(parquet.Int(32), &parquet.Plain), genInt32),
		required("i64_req", enc(parquet.Int(64), &parquet.Plain), func(r *rand.Rand, i int) any { return int64(i) * 7 }),
		optional("f64", enc(parquet.Leaf(parquet.DoubleType), &parquet.Plain), func(r *rand.Rand, _ int) any { return r.Float64() }),
		optional("dec", enc(parquet.Decimal(2, 15, parquet.Int64Type), &parquet.Plain), func(r *rand.Rand, _ int) any { return r.Int64N(1e12) }),
		optional("str", enc(parquet.String(), &parquet.Plain), func(r *rand.Rand, i int) any { return strings.Repeat(words[i%len(words)], 1+r.IntN(40)) }),
		required("str_req", enc(parquet.String(), &parquet.Plain), func(r *rand.Rand, i int) any { return fmt.Sprint("row ", i) }),
		optional("fixed", enc(parquet.Leaf(parquet.FixedLenByteArrayType(5)), &parquet.Plain), func(r *rand.Rand, _ int) any {
			return []byte{byte(r.Uint32()), 1, 2, 3, byte(r.Uint32())}
		}),
		optional("dict", enc(parquet.String(), &parquet.RLEDictionary), func(r *rand.Rand, i int) any { return words[r.IntN(len(words))] }),
	}
	data := writeSpecs(t, specs, 9000, 3, parquet.DataPageVersion(1), parquet.Compression(&parquet.Zstd),
		parquet.PageBufferSize(64<<20), parquet.MaxRowsPerRowGroup(4000))
	total := 0
	for name, pattern := range prefixPatterns {
		for _, batchSize := range []int{0, 1000} {
			t.Run(fmt.Sprintf("%s/%d", name, batchSize), func(t *testing.T) {
				n := compareSelectedReads(t, data, pattern, batchSize)
				if name != "head or dense" && n == 0 {
					t.Errorf("no page was decompressed in part")
				}
				total += n
			})
		}
	}
	t.Logf("%d pages decompressed in part", total)
}

func TestSelectedPrefix(t *testing.T) {
	keep := make([]byte, 4)
	for _, c := range []struct {
		set  []int
		n    int
		want int
	}{
		{nil, 32, 0},
		{[]int{0, 5}, 32, 6},
		{[]int{27}, 32, 28},   // 4 rows left: a share of 1/8 is 4
		{[]int{28}, 32, 0},    // ends within the last eighth: all
		{[]int{3, 30}, 31, 0}, // bit 30 is past n... kept within n
		{[]int{2}, 3, 0},
		{[]int{0}, 3, 1},
	} {
		clear(keep)
		for _, i := range c.set {
			keep[i>>3] |= 1 << (i & 7)
		}
		if got := selectedPrefix(keep, c.n); got != c.want {
			t.Errorf("bits %v of %d: %d, want %d", c.set, c.n, got, c.want)
		}
	}
}
