package kernels

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// binaryBuffers lays values out as an Arrow binary array's offsets and data.
func binaryBuffers(values []string) ([]int64, []byte) {
	offsets := make([]int64, 1, len(values)+1)
	var data []byte
	for _, v := range values {
		data = append(data, v...)
		offsets = append(offsets, int64(len(data)))
	}
	return offsets, data
}

// TestDictionaryEncodeMatchesAMap checks codes, firsts and counts against
// a Go map over random columns: few distinct values or many, short and
// long (past the 32 bytes compared as words), empty ones, values that
// differ in one byte or only in length, enough distinct values to grow
// the table several times, and (every fourth round) columns of values of
// at most one byte, any byte.
func TestDictionaryEncodeMatchesAMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 32))
	for round := range 200 {
		alphabet := 1 + rng.IntN(3000)
		words := make([]string, alphabet)
		flags := round%4 == 0
		for k := range words {
			w := []byte(strings.Repeat("x", rng.IntN(40)))
			for b := range w {
				w[b] = byte('a' + rng.IntN(3))
			}
			if flags {
				w = []byte{byte(rng.IntN(256))}[:rng.IntN(2)]
			}
			words[k] = string(w)
		}
		values := make([]string, rng.IntN(5000))
		for i := range values {
			values[i] = words[rng.IntN(alphabet)]
		}
		offsets, data := binaryBuffers(values)
		codes := make([]int32, len(values))
		firsts := make([]int64, len(values))
		distinct, ok, err := DictionaryEncode(offsets, data, len(values), codes, firsts)
		if err != nil || !ok {
			t.Fatalf("round %d: ok %v err %v", round, ok, err)
		}
		want := map[string]int32{}
		for i, v := range values {
			c, seen := want[v]
			if !seen {
				c = int32(len(want))
				want[v] = c
				if firsts[c] != int64(i) {
					t.Fatalf("round %d: value %q first at row %d, firsts says %d", round, v, i, firsts[c])
				}
			}
			if codes[i] != c {
				t.Fatalf("round %d row %d (%q): code %d, want %d", round, i, v, codes[i], c)
			}
		}
		if distinct != len(want) {
			t.Fatalf("round %d: %d distinct, want %d", round, distinct, len(want))
		}
		// The same column with a bound one below its distinct count stops.
		if distinct > 0 {
			if got, ok, err := DictionaryEncode(offsets, data, distinct-1, codes, firsts); err != nil || ok || got != distinct-1 {
				t.Fatalf("round %d: bound %d gave %d, ok %v, err %v", round, distinct-1, got, ok, err)
			}
		}
	}
}

func TestDictionaryEncodeRefusesBadOffsets(t *testing.T) {
	data := []byte("abcdef")
	codes, firsts := make([]int32, 4), make([]int64, 4)
	for _, offsets := range [][]int64{{0, 3, 2}, {0, 7}, {-1, 2}, {}} {
		if _, _, err := DictionaryEncode(offsets, data, 4, codes, firsts); err == nil {
			t.Errorf("offsets %v: no error", offsets)
		}
	}
	if _, _, err := DictionaryEncode([]int64{0, 2, 4}, data, 4, codes[:1], firsts); err == nil {
		t.Error("too few codes: no error")
	}
	if _, _, err := DictionaryEncode([]int64{0, 2, 4}, data, -1, codes, firsts); err == nil {
		t.Error("a negative bound: no error")
	}
	// Offsets need not start at 0: a slice of a larger array.
	if n, ok, err := DictionaryEncode([]int64{2, 4, 6, 6}, data, 4, codes, firsts); err != nil || !ok || n != 3 {
		t.Errorf("sliced offsets: %d distinct, ok %v, err %v", n, ok, err)
	}
}

func FuzzDictionaryEncode(f *testing.F) {
	f.Add([]byte("aa\x00bb\x00aa\x00\x00c"), 3)
	f.Fuzz(func(t *testing.T, raw []byte, maxDistinct int) {
		values := strings.Split(string(raw), "\x00")
		offsets, data := binaryBuffers(values)
		codes, firsts := make([]int32, len(values)), make([]int64, len(values))
		maxDistinct = max(0, min(maxDistinct, len(values)))
		n, ok, err := DictionaryEncode(offsets, data, maxDistinct, codes, firsts)
		if err != nil {
			t.Fatal(err)
		}
		// The codes a map gives, in the order values first appear.
		want := map[string]int32{}
		for _, v := range values {
			if _, seen := want[v]; !seen {
				want[v] = int32(len(want))
			}
		}
		if !ok {
			if len(want) <= maxDistinct || n != maxDistinct {
				t.Fatalf("gave up at %d with %d distinct values and a bound of %d", n, len(want), maxDistinct)
			}
			return
		}
		if n != len(want) {
			t.Fatalf("%d distinct, want %d", n, len(want))
		}
		for i, v := range values {
			if codes[i] != want[v] || values[firsts[codes[i]]] != v {
				t.Fatalf("row %d %q: code %d (want %d), first row %d", i, v, codes[i], want[v], firsts[codes[i]])
			}
		}
	})
}

// BenchmarkDictionaryEncode: a 64 Ki-row batch of TPC-H's return flags
// (one byte, 3 values), ship instructions (up to 17 bytes, 4 values) and
// comments (about 30 bytes, mostly distinct: given up at half the rows).
func BenchmarkDictionaryEncode(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	pools := map[string][]string{
		"flags":        {"A", "N", "R"},
		"instructions": {"DELIVER IN PERSON", "COLLECT COD", "NONE", "TAKE BACK RETURN"},
		"modes":        {"REG AIR", "AIR", "RAIL", "SHIP", "TRUCK", "MAIL", "FOB"},
	}
	var comments []string
	for range 1 << 16 {
		comments = append(comments, strings.Repeat(string(rune('a'+rng.IntN(26))), 10)+"-"+strings.Repeat(string(rune('a'+rng.IntN(26))), 10)+"-"+string(rune('a'+rng.IntN(26))))
	}
	pools["comments"] = comments
	for _, name := range []string{"flags", "modes", "instructions", "comments"} {
		pool := pools[name]
		values := make([]string, 1<<16)
		for i := range values {
			values[i] = pool[rng.IntN(len(pool))]
		}
		offsets, data := binaryBuffers(values)
		codes, firsts := make([]int32, len(values)), make([]int64, len(values))
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				_, _, _ = DictionaryEncode(offsets, data, len(values)/2, codes, firsts)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(values)), "ns/value")
		})
	}
}
