package ops

import (
	"math/bits"

	"github.com/floedb/floe/kernels"
)

// keyLookup finds an upsert's input row by key. Its layout is chosen once
// from the input's keys:
//
//   - dense: one integer key whose values span at most denseSpan slots per
//     key (ids, sequence numbers): dense[v-lo] holds the row, so a lookup
//     is one load with no hash, and keys in order touch memory in order;
//   - word: any other one-column key of a class that fits 64 bits: slots
//     hold the canonical value itself beside the row, so a lookup costs
//     one cache line and no row comparison;
//   - hashed: the rest (strings, decimals, several columns): slots hold
//     the key's full hash beside the row, and Keys.Equal confirms.
//
// Upserting 1,000,000 keys (half of them new, ids in one range) into a
// 10,000,000-row table spent a third of its CPU inserting and finding keys
// when every layout was "hashed" with the hashes in an array of their own:
// three dependent cache misses per lookup (slot, hash, row). See
// benchmarks/results/latest-maintenance.txt for the upsert's time now.
type keyLookup struct {
	layout lookupLayout
	// dense: row+1 of key lo+i at dense[i] (0: none); keys lie in lo..hi.
	lo, hi int64
	dense  []int32
	// word and hashed: open addressing, linear probing.
	slots []lookupSlot
	mask  uint64
	shift uint
	// filter (word and hashed) has one bit set per key, at the top
	// filterBits bits of its hash: 16 bits per key, so a few MB for a
	// million keys, which stay in cache where the slots do not. A row of
	// the table whose key the input lacks (most of them, when the keys
	// reach every file) is turned away by one cached load instead of a
	// cache miss in the slots.
	filter     []uint64
	filterBits uint
}

type lookupLayout uint8

const (
	lookupHashed lookupLayout = iota
	lookupWord
	lookupDense
)

// lookupSlot is a key's word (word layout) or hash (hashed) and its row+1
// (0: an empty slot).
type lookupSlot struct {
	key uint64
	row int32
}

// denseSpan is how many dense slots (4 bytes each) a key may take: the
// word layout's table takes 32 to 64 bytes per key. An upsert of
// 1,000,000 ids, half of them every 20th id of a 10,000,000-row table,
// spans 10.5 slots per key: in the word layout finding the table's rows
// was a third of its CPU, one cache miss per row (benchmarks
// -maintenance, "keys spread"); the table's files hold their ids in
// order, so in the dense layout the rows walk the array in order.
const denseSpan = 16

// newKeyLookup sizes the lookup for n rows; words says the key is one
// column of a word class (integer says signed integers, ranging lo..hi).
func newKeyLookup(n int, words, integer bool, lo, hi int64) *keyLookup {
	l := &keyLookup{}
	switch {
	case words && integer && n > 0 && hi-lo >= 0 && uint64(hi-lo) < uint64(n)*denseSpan:
		l.layout, l.lo, l.hi = lookupDense, lo, hi
		l.dense = make([]int32, hi-lo+1)
		return l
	case words:
		l.layout = lookupWord
	}
	size := uint64(16)
	for size < uint64(n)*2 {
		size <<= 1
	}
	l.slots, l.mask = make([]lookupSlot, size), size-1
	l.shift = uint(64 - bits.TrailingZeros64(size))
	l.filterBits = 6
	for uint64(1)<<l.filterBits < uint64(n)*16 {
		l.filterBits++
	}
	l.filter = make([]uint64, uint64(1)<<l.filterBits/64)
	return l
}

// mixWord scatters a word (Fibonacci hashing: consecutive ids land far
// apart, so runs of keys do not pile into one probe chain); its top bits
// pick the slot and the filter bit.
func mixWord(w uint64) uint64 { return w * 0x9e3779b97f4a7c15 }

// mark sets hash h's filter bit; maybe tests it.
func (l *keyLookup) mark(h uint64) {
	b := h >> (64 - l.filterBits)
	l.filter[b>>6] |= 1 << (b & 63)
}

func (l *keyLookup) maybe(h uint64) bool {
	b := h >> (64 - l.filterBits)
	return l.filter[b>>6]&(1<<(b&63)) != 0
}

// insertWord adds row g with key word w (dense and word layouts), or
// returns the row already there with that key (-1 for none).
func (l *keyLookup) insertWord(w uint64, g int) int {
	if l.layout == lookupDense {
		i := int64(w) - l.lo
		if j := l.dense[i]; j != 0 {
			return int(j - 1)
		}
		l.dense[i] = int32(g + 1)
		return -1
	}
	m := mixWord(w)
	s := m >> l.shift
	for l.slots[s].row != 0 {
		if l.slots[s].key == w {
			return int(l.slots[s].row - 1)
		}
		s = (s + 1) & l.mask
	}
	l.slots[s] = lookupSlot{key: w, row: int32(g + 1)}
	l.mark(m)
	return -1
}

// findWord returns the row with key word w, or -1.
func (l *keyLookup) findWord(w uint64) int {
	if l.layout == lookupDense {
		// Compared before subtracting: a difference could overflow.
		if v := int64(w); v < l.lo || v > l.hi {
			return -1
		}
		return int(l.dense[int64(w)-l.lo]) - 1
	}
	m := mixWord(w)
	if !l.maybe(m) {
		return -1
	}
	s := m >> l.shift
	for l.slots[s].row != 0 {
		if l.slots[s].key == w {
			return int(l.slots[s].row - 1)
		}
		s = (s + 1) & l.mask
	}
	return -1
}

// insertHashed adds row g with hash h (hashed layout), or returns the row
// already there whose key equal reports equal (-1 for none).
func (l *keyLookup) insertHashed(h uint64, g int, equal func(j int) bool) int {
	s := h & l.mask
	for l.slots[s].row != 0 {
		if j := int(l.slots[s].row - 1); l.slots[s].key == h && equal(j) {
			return j
		}
		s = (s + 1) & l.mask
	}
	l.slots[s] = lookupSlot{key: h, row: int32(g + 1)}
	l.mark(h)
	return -1
}

// findHashed returns the row with hash h whose key equal reports equal,
// or -1.
func (l *keyLookup) findHashed(h uint64, equal func(j int) bool) int {
	if !l.maybe(h) {
		return -1
	}
	s := h & l.mask
	for l.slots[s].row != 0 {
		if j := int(l.slots[s].row - 1); l.slots[s].key == h && equal(j) {
			return j
		}
		s = (s + 1) & l.mask
	}
	return -1
}

// keyProbe is a reader's scratch space for probing batches.
type keyProbe struct {
	words  []uint64
	hashes []uint64
}

// matchRows calls hit(r, j) for each row r of k whose key is input row j.
func (in *upsertInput) matchRows(k *kernels.Keys, p *keyProbe, hit func(r, j int)) {
	if in.lookup.layout != lookupHashed {
		// Keys of another class match nothing (Keys.Equal); nulls
		// match nothing, the input having none.
		if !k.SameClass(0, in.keys[0], 0) {
			return
		}
		var ok bool
		if p.words, ok = k.Words(0, p.words); !ok {
			return
		}
		nulls := k.HasNulls(0)
		for r, w := range p.words {
			if nulls && k.Null(0, r) {
				continue
			}
			if j := in.lookup.findWord(w); j >= 0 {
				hit(r, j)
			}
		}
		return
	}
	p.hashes = k.Hash(upsertHashSeed, p.hashes)
	for r, h := range p.hashes {
		j := in.lookup.findHashed(h, func(j int) bool {
			b, rj := in.local(j)
			return in.keys[b].Equal(rj, k, r)
		})
		if j >= 0 {
			hit(r, j)
		}
	}
}
