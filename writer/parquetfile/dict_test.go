package parquetfile

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/parquet-go/parquet-go/format"
)

// The dictionary gives each distinct value one index, in first-seen
// order, through its table's growth, and its page holds the values PLAIN
// in that order: checked against a Go map on values with many repeats and
// colliding hashes (multiples of a power of two).
func TestDictionaryMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, typ := range []format.Type{format.Int32, format.Int64, format.ByteArray, format.FixedLenByteArray} {
		t.Run(typ.String(), func(t *testing.T) {
			var d dictionary
			d.init(&Column{Type: typ, Length: 8, Dictionary: true})
			seen := map[string]int32{}
			var order []string
			for i := range 50_000 {
				n := r.Int64N(int64(1 + i/4))
				if r.IntN(3) == 0 {
					n <<= 20
				}
				var key string
				var got int32
				switch typ {
				case format.Int32:
					key = fmt.Sprint(int32(n))
					got = d.int(int64(int32(n)))
				case format.Int64:
					key = fmt.Sprint(n)
					got = d.int(n)
				case format.ByteArray:
					key = fmt.Sprint(n)[:r.IntN(len(fmt.Sprint(n))+1)]
					got = d.bytes([]byte(key))
				default:
					b := binary.BigEndian.AppendUint64(nil, uint64(n))
					key = string(b)
					got = d.bytes(b)
				}
				want, ok := seen[key]
				if !ok {
					want = int32(len(order))
					seen[key] = want
					order = append(order, key)
				}
				if got != want {
					t.Fatalf("value %q: index %d, want %d", key, got, want)
				}
			}
			if d.len() != len(order) {
				t.Fatalf("%d entries, want %d", d.len(), len(order))
			}
			var plain []byte
			for _, k := range order {
				switch typ {
				case format.Int32:
					var v int32
					fmt.Sscan(k, &v)
					plain = binary.LittleEndian.AppendUint32(plain, uint32(v))
				case format.Int64:
					var v int64
					fmt.Sscan(k, &v)
					plain = binary.LittleEndian.AppendUint64(plain, uint64(v))
				case format.ByteArray:
					plain = binary.LittleEndian.AppendUint32(plain, uint32(len(k)))
					plain = append(plain, k...)
				default:
					plain = append(plain, k...)
				}
			}
			if string(d.plain) != string(plain) {
				t.Fatal("the dictionary page does not hold the values in first-seen order")
			}
			d.reset()
			first := int32(-1)
			if typ == format.Int32 || typ == format.Int64 {
				first = d.int(int64(len(order)))
			} else {
				first = d.bytes([]byte(order[len(order)-1]))
			}
			if first != 0 || d.len() != 1 {
				t.Fatalf("after reset: index %d, %d entries", first, d.len())
			}
		})
	}
}

func TestTruncateBounds(t *testing.T) {
	col := &Column{Type: format.ByteArray, Order: OrderUnsigned}
	for _, c := range []struct{ lo, hi, wantLo, wantHi string }{
		{"abc", "abd", "abc", "abd"},
		{"abcdef", "abcdef", "abcd", "abce"},
		{"abcdef", "ab\xff\xff\xff", "abcd", "ac"},
		{"a", "\xff\xff\xff\xff\xff", "a", "\xff\xff\xff\xff\xff"},
	} {
		lo, hi := truncateBounds(col, []byte(c.lo), []byte(c.hi), 4)
		if string(lo) != c.wantLo || string(hi) != c.wantHi {
			t.Errorf("truncate(%q, %q) = %q, %q; want %q, %q", c.lo, c.hi, lo, hi, c.wantLo, c.wantHi)
		}
	}
	fixed := &Column{Type: format.FixedLenByteArray, Length: 6, Order: OrderUnsigned}
	if lo, hi := truncateBounds(fixed, []byte("abcdef"), []byte("abcdeg"), 4); string(lo) != "abcdef" || string(hi) != "abcdeg" {
		t.Errorf("fixed bounds were cut: %q %q", lo, hi)
	}
}

// Signed big-endian comparison (decimals in FIXED) agrees with the
// integers the bytes hold, across the sign boundary.
func TestCompareSignedBigEndian(t *testing.T) {
	col := &Column{Type: format.FixedLenByteArray, Length: 3, Order: OrderSigned}
	enc := func(v int32) []byte { b := binary.BigEndian.AppendUint32(nil, uint32(v)); return b[1:] }
	r := rand.New(rand.NewPCG(5, 6))
	for range 10_000 {
		a, b := r.Int32N(1<<23)-1<<22, r.Int32N(1<<23)-1<<22
		want := cmp.Compare(a, b)
		if got := compare(col, enc(a), enc(b)); got != want {
			t.Fatalf("compare(%d, %d) = %d, want %d", a, b, got, want)
		}
	}
}
