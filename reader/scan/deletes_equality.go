package scan

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"github.com/floedb/floe/kernels"
)

// equalityDeletes is one equality delete file's keys on fieldIDs (in that
// order), canonically encoded so null equals null. Rows are probed by the
// 64-bit hash of their key: first against a small blocked bitmap (two bits
// in one word per key), which rejects most rows (most rows of a scan are
// not deleted) with one memory access; then against the keys with that
// hash, compared by their encoding.
//
// A million keys make a bitmap larger than L2 and a table larger than
// L3, so a probe is a chain of cache misses. probe therefore works a batch
// in passes whose loads do not depend on each other (the bitmap for every
// row, then the first slot of every candidate), which lets the CPU keep
// many misses in flight instead of one per row.
type equalityDeletes struct {
	fieldIDs []int
	// filter is tested with the hash's top bits; slots (open addressing,
	// linear probing, keyed by the hash's low bits) hold each key's full
	// hash beside where its encoding lies in arena, so a probe that misses
	// costs one cache line and a hit two.
	filter     []uint64
	filterBits uint
	slots      []eqSlot
	slotMask   uint64
	arena      []byte
	// ends, hashes and firsts are the keys in file order, until index.
	ends   []uint32
	hashes []uint64
	firsts []int64
	// noFirsts: some key's first column is null or not a signed integer
	// (int, long, date, time, timestamp), so keys cannot be ranged by it.
	noFirsts bool
	// keys are every key's slot, from index on. When the first column
	// ranges them, they are in ascending order of it and keyFirsts holds
	// those values, key by key: a row group's statistics on the column
	// then narrow the set to the keys it can match (see narrow).
	keys      []eqSlot
	keyFirsts []int64
	wholeOnce sync.Once
}

// eqSlot is one key of the hash table: its hash and its encoding at
// arena[start:end]. Every encoding has at least one byte, so end == 0
// marks an empty slot.
type eqSlot struct {
	hash       uint64
	start, end uint32
}

// eqProbe is a task reader's scratch space for probes, reused per batch.
type eqProbe struct {
	hashes []uint64
	rows   []int32
	first  []eqSlot
	key    []byte
}

// keyHashSeed seeds the key hash; any fixed value works, since both sides
// of a probe hash with it.
const keyHashSeed = 0x9e3779b97f4a7c15

// add records every row of keys.
func (e *equalityDeletes) add(keys *kernels.Keys, hashBuf []uint64) []uint64 {
	hashBuf = keys.Hash(keyHashSeed, hashBuf)
	for i := 0; i < keys.Len(); i++ {
		e.arena = keys.Encode(e.arena, i)
		e.ends = append(e.ends, uint32(len(e.arena)))
	}
	e.hashes = append(e.hashes, hashBuf...)
	for i := 0; i < keys.Len() && !e.noFirsts; i++ {
		v, ok := keys.Int64(0, i)
		e.firsts = append(e.firsts, v)
		e.noFirsts = !ok
	}
	return hashBuf
}

// index readies the keys for probing once every key is in. The table of
// every key is built on first need only (see whole): when row groups
// narrow the set by the first column, a scan may never need it.
func (e *equalityDeletes) index() {
	e.keys = make([]eqSlot, len(e.hashes))
	start := uint32(0)
	for i, h := range e.hashes {
		e.keys[i] = eqSlot{hash: h, start: start, end: e.ends[i]}
		start = e.ends[i]
	}
	if !e.noFirsts && len(e.keys) > 0 {
		// Delete files are often written in key order; sort only if not.
		if !slices.IsSorted(e.firsts) {
			sortByFirst(e.keys, e.firsts)
		}
		e.keyFirsts = e.firsts
	}
	e.hashes, e.ends, e.firsts = nil, nil, nil
}

// sortByFirst orders keys and firsts, aligned, by firsts.
func sortByFirst(keys []eqSlot, firsts []int64) {
	type ranged struct {
		first int64
		slot  eqSlot
	}
	order := make([]ranged, len(keys))
	for i := range keys {
		order[i] = ranged{firsts[i], keys[i]}
	}
	slices.SortFunc(order, func(a, b ranged) int { return cmp.Compare(a.first, b.first) })
	for i, r := range order {
		firsts[i], keys[i] = r.first, r.slot
	}
}

// whole returns e with the table of every key built. Tasks share an
// equalityDeletes, so the build happens once, under wholeOnce.
func (e *equalityDeletes) whole() *equalityDeletes {
	e.wholeOnce.Do(func() {
		e.build(e.keys)
		if e.keyFirsts == nil {
			e.keys = nil // narrow never needs them
		}
	})
	return e
}

// build makes the bitmap (16 bits per key) and the hash table (at most
// half full) of keys, reusing e's memory where it is large enough.
func (e *equalityDeletes) build(keys []eqSlot) {
	n := len(keys)
	e.filterBits = 6
	for uint64(1)<<e.filterBits < uint64(n)*16 {
		e.filterBits++
	}
	e.filter = reuse(e.filter, int((uint64(1)<<e.filterBits)/64))
	size := uint64(16)
	for size < uint64(n)*2 {
		size <<= 1
	}
	e.slotMask = size - 1
	e.slots = reuse(e.slots, int(size))
	for _, k := range keys {
		word, bits := e.filterWord(k.hash)
		e.filter[word] |= bits
		s := k.hash & e.slotMask
		for e.slots[s].end != 0 {
			s = (s + 1) & e.slotMask
		}
		e.slots[s] = k
	}
}

// reuse returns a cleared slice of n elements, in buf's memory when it
// fits.
func reuse[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	buf = buf[:n]
	clear(buf)
	return buf
}

// narrow returns the keys whose first column lies in [lo, hi]: e.whole()
// when that is most of them (a smaller table would not stay in cache
// anyway), else a table of just those keys built in scratch's memory, or
// nil when there are none. Rows whose first column is null or outside
// [lo, hi] match no key either way.
func (e *equalityDeletes) narrow(lo, hi int64, scratch *equalityDeletes) *equalityDeletes {
	if e.keyFirsts == nil {
		return e.whole()
	}
	a, _ := slices.BinarySearch(e.keyFirsts, lo)
	b := len(e.keyFirsts)
	if hi < math.MaxInt64 {
		b, _ = slices.BinarySearch(e.keyFirsts, hi+1)
	}
	switch n := b - a; {
	case n == 0:
		return nil
	case n > len(e.keyFirsts)/4:
		return e.whole()
	}
	scratch.fieldIDs, scratch.arena = e.fieldIDs, e.arena
	scratch.build(e.keys[a:b])
	return scratch
}

// filterWord picks a key's bitmap word by the hash's top bits and two bits
// within it by the next twelve: two bits per key cut false positives to a
// third of what one does, at the same single access.
func (e *equalityDeletes) filterWord(h uint64) (word uint64, bits uint64) {
	word = h >> (64 - (e.filterBits - 6))
	bits = 1<<((h>>20)&63) | 1<<((h>>26)&63)
	return word, bits
}

// candidates appends to rows the rows set in keep whose hash passes the
// bitmap. The loop has no branch on what it loads, so the loads overlap.
func (e *equalityDeletes) candidates(hashes []uint64, keep []byte, rows []int32) []int32 {
	rows = slices.Grow(rows[:0], len(hashes))[:len(hashes)]
	n := 0
	for i, h := range hashes {
		word, bits := e.filterWord(h)
		miss := e.filter[word]&bits ^ bits
		hit := ((miss | -miss) >> 63) ^ 1
		rows[n] = int32(i)
		n += int(hit & uint64(keep[i>>3]>>(i&7)))
	}
	return rows[:n]
}

// probe clears in keep the rows of keys (hashed in p.hashes) whose key
// was deleted and returns how many it cleared.
func (e *equalityDeletes) probe(keys *kernels.Keys, keep []byte, p *eqProbe) int {
	p.rows = e.candidates(p.hashes, keep, p.rows)
	if len(p.rows) == 0 {
		return 0
	}
	// Each candidate's first slot, fetched in one pass; most probes end
	// there.
	p.first = slices.Grow(p.first[:0], len(p.rows))[:len(p.rows)]
	for j, i := range p.rows {
		p.first[j] = e.slots[p.hashes[i]&e.slotMask]
	}
	cleared := 0
	for j, i := range p.rows {
		h := p.hashes[i]
		p.key = keys.Encode(p.key[:0], int(i))
		if e.matches(h, p.key, p.first[j], (h&e.slotMask+1)&e.slotMask) {
			keep[i>>3] &^= 1 << (i & 7)
			cleared++
		}
	}
	return cleared
}

// matches reports whether key (hash h) is in the table, given its first
// slot's contents and the index of the slot after it.
func (e *equalityDeletes) matches(h uint64, key []byte, s eqSlot, next uint64) bool {
	for s.end != 0 {
		if s.hash == h && string(e.arena[s.start:s.end]) == string(key) {
			return true
		}
		s = e.slots[next]
		next = (next + 1) & e.slotMask
	}
	return false
}
