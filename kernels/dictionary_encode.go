package kernels

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// DictionaryEncode gives each of the n values of a binary (or utf8)
// array, value i being data[offsets[i]:offsets[i+1]], the code of its
// distinct value: codes[i] is that code, codes counted from 0 in the
// order the values first appear, and firsts[c] the first row holding
// value c. It returns the number of distinct values, or ok false (and
// codes and firsts partly written) as soon as there are more than
// maxDistinct: a caller that shares one object per distinct value gives
// up on a column of mostly distinct values early, not after hashing it
// all. offsets (n+1, non-decreasing, within data) are checked: bad ones
// are an error, never a read outside data.
//
// It is what a binding without Arrow's compute functions calls to build
// one object per distinct value (Python's to_pandas). Values of at most
// one byte (flags) index a table of the 257 possible values; others are
// hashed into an open-addressing table that grows with the distinct
// values, values of up to 32 bytes compared by their words, longer ones
// byte by byte with their code's first row. (64 Ki random rows, one
// core: 1.6 ns a return flag, 9 a ship mode, 7 a ship instruction,
// against 15, 10 and 12 with every value hashed and compared byte by
// byte.)
func DictionaryEncode(offsets []int64, data []byte, maxDistinct int, codes []int32, firsts []int64) (distinct int, ok bool, err error) {
	n := len(offsets) - 1
	if n < 0 || maxDistinct < 0 {
		return 0, false, fmt.Errorf("dictionary encode: %d offsets and a bound of %d (want n+1 offsets, a bound of at least 0)", len(offsets), maxDistinct)
	}
	if n > math.MaxInt32 {
		return 0, false, fmt.Errorf("dictionary encode: %d values, past the int32 codes' range", n)
	}
	if len(codes) < n || len(firsts) < min(n, maxDistinct) {
		return 0, false, fmt.Errorf("dictionary encode: %d codes and %d firsts for %d values", len(codes), len(firsts), n)
	}
	longest, err := checkBinaryOffsets(offsets, len(data))
	if err != nil {
		return 0, false, err
	}
	if longest <= 1 {
		return encodeBytes(offsets, data, maxDistinct, codes, firsts)
	}
	t := dictionaryTable{slots: make([]dictionarySlot, 64), shift: 64 - 6}
	for i := range n {
		v := data[offsets[i]:offsets[i+1]]
		var k wordKey
		var h uint64
		if len(v) <= 32 {
			// Short values (modes, instructions, most repeated strings)
			// are compared by their words, never byte by byte.
			// Four whole words masked to the length where 32 bytes are
			// readable, the masks looked up, with no branch on the
			// length: random ship instructions (four lengths)
			// mispredicted min and max's branches, 16 against 8 ns a
			// value.
			if at := offsets[i]; at+32 <= int64(len(data)) {
				p := data[at : at+32]
				m := &wordMasks[len(v)]
				k = wordKey{
					x: binary.LittleEndian.Uint64(p) & m[0],
					y: binary.LittleEndian.Uint64(p[8:]) & m[1],
					z: binary.LittleEndian.Uint64(p[16:]) & m[2],
					w: binary.LittleEndian.Uint64(p[24:]) & m[3],
				}
			} else {
				k = wordsCopied(v)
			}
			h = mix(k.x^k.z*mixK2^uint64(len(v)), k.y^k.w*mixK0)
		} else {
			h = hashBytes(v)
		}
		j := h >> t.shift
		for {
			s := t.slots[j]
			if s.code == 0 {
				if len(t.keys) == maxDistinct {
					return len(t.keys), false, nil
				}
				code := int32(len(t.keys))
				t.slots[j] = dictionarySlot{tag: uint32(h), code: code + 1}
				t.keys = append(t.keys, dictionaryKey{hash: h, words: k, n: len(v)})
				firsts[code] = int64(i)
				codes[i] = code
				if 2*len(t.keys) > len(t.slots) {
					t.grow()
				}
				break
			}
			if s.tag == uint32(h) {
				c := s.code - 1
				key := &t.keys[c]
				if key.n == len(v) && (len(v) <= 32 && key.words == k ||
					len(v) > 32 && bytes.Equal(data[offsets[firsts[c]]:offsets[firsts[c]+1]], v)) {
					codes[i] = c
					break
				}
			}
			j = (j + 1) & uint64(len(t.slots)-1)
		}
	}
	return len(t.keys), true, nil
}

// encodeBytes is DictionaryEncode for values of at most one byte: the
// value (its byte, or 256 when empty) indexes the codes directly.
func encodeBytes(offsets []int64, data []byte, maxDistinct int, codes []int32, firsts []int64) (int, bool, error) {
	var table [257]int32 // code+1 of each value; 0 not seen yet
	distinct := 0
	for i := range len(offsets) - 1 {
		v := 256
		if offsets[i+1] > offsets[i] {
			v = int(data[offsets[i]])
		}
		c := table[v] - 1
		if c < 0 {
			if distinct == maxDistinct {
				return distinct, false, nil
			}
			c = int32(distinct)
			table[v] = c + 1
			firsts[c] = int64(i)
			distinct++
		}
		codes[i] = c
	}
	return distinct, true, nil
}

// wordKey is a value of at most 32 bytes as four little-endian words,
// the bytes past its end zero. With the length, equal keys are equal
// values.
type wordKey struct{ x, y, z, w uint64 }

// wordsCopied is a wordKey of v near the end of data, where a whole
// word would read past it.
func wordsCopied(v []byte) wordKey {
	var buf [32]byte
	copy(buf[:], v)
	return wordKey{
		x: binary.LittleEndian.Uint64(buf[:]), y: binary.LittleEndian.Uint64(buf[8:]),
		z: binary.LittleEndian.Uint64(buf[16:]), w: binary.LittleEndian.Uint64(buf[24:]),
	}
}

// wordMasks[n] keeps the n bytes of a value in its four words.
var wordMasks = func() (m [33][4]uint64) {
	for n := range m {
		for w := range 4 {
			if k := min(max(n-8*w, 0), 8); k == 8 {
				m[n][w] = ^uint64(0)
			} else {
				m[n][w] = 1<<(8*k) - 1
			}
		}
	}
	return m
}()

// dictionaryTable maps a value's hash to its code. slots, at most half
// full and indexed by the hash's high bits (the best mixed), hold the
// hash's low bits and code+1 (0 is empty) in 8 bytes, so a probe reads
// one slot; keys[c] is code c's hash, length and, up to 32 bytes, words.
type dictionaryTable struct {
	slots []dictionarySlot
	shift uint
	keys  []dictionaryKey
}

type dictionarySlot struct {
	tag  uint32 // the hash's low bits (its high bits chose the slot)
	code int32
}

type dictionaryKey struct {
	hash  uint64
	words wordKey
	n     int
}

func (t *dictionaryTable) grow() {
	old := t.slots
	t.slots = make([]dictionarySlot, 2*len(old))
	t.shift--
	mask := uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.code == 0 {
			continue
		}
		j := t.keys[s.code-1].hash >> t.shift
		for t.slots[j].code != 0 {
			j = (j + 1) & mask
		}
		t.slots[j] = s
	}
}

// checkBinaryOffsets reports offsets that go backwards or leave data,
// and returns the longest value.
func checkBinaryOffsets(offsets []int64, size int) (int64, error) {
	prev, longest := int64(0), int64(0)
	for i, o := range offsets {
		if o < prev || o > int64(size) {
			return 0, fmt.Errorf("dictionary encode: offset %d is %d (after %d; data holds %d bytes)", i, o, prev, size)
		}
		if i > 0 {
			longest = max(longest, o-prev)
		}
		prev = o
	}
	return longest, nil
}
