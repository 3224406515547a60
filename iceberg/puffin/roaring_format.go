package puffin

import (
	"encoding/binary"
	"fmt"
	"math/bits"
)

// The standard 32-bit Roaring serialisation (RoaringFormatSpec "General
// layout") is checked here in full before any byte reaches the roaring
// library, whose readers trust headers (a bitmap container's cardinality,
// for one, is taken on faith) and whose Validate is quadratic in runs.

const (
	roaringCookieNoRuns     = 12346
	roaringCookieRuns       = 12347
	roaringMaxContainers    = 1 << 16
	roaringArrayMaxCard     = 4096
	roaringBitmapBytes      = 8192
	roaringNoOffsetMinCount = 4
)

// emptyRoaring32 is how Java serialises an empty 32-bit bitmap: the no-runs
// cookie and a container count of zero.
var emptyRoaring32 = [8]byte{0x3a, 0x30, 0, 0, 0, 0, 0, 0}

// checkRoaring32 checks that b starts with one well-formed 32-bit bitmap and
// returns its serialised length and cardinality.
func checkRoaring32(b []byte) (length int, cardinality uint64, err error) {
	pos := 0
	need := func(n int, what string) error {
		if n > len(b)-pos {
			return fmt.Errorf("truncated %s: needs %d bytes at offset %d, %d left", what, n, pos, len(b)-pos)
		}
		return nil
	}
	if err := need(4, "cookie"); err != nil {
		return 0, 0, err
	}
	cookie := binary.LittleEndian.Uint32(b)
	pos = 4
	var count int
	var runFlags []byte
	switch {
	case cookie&0xFFFF == roaringCookieRuns:
		count = int(cookie>>16) + 1
		if err := need((count+7)/8, "run flags"); err != nil {
			return 0, 0, err
		}
		runFlags = b[pos : pos+(count+7)/8]
		pos += len(runFlags)
	case cookie == roaringCookieNoRuns:
		if err := need(4, "container count"); err != nil {
			return 0, 0, err
		}
		c := binary.LittleEndian.Uint32(b[pos:])
		if c > roaringMaxContainers {
			return 0, 0, fmt.Errorf("container count %d exceeds %d", c, roaringMaxContainers)
		}
		count = int(c)
		pos += 4
	default:
		return 0, 0, fmt.Errorf("unknown cookie 0x%08x", cookie)
	}
	if err := need(4*count, "container headers"); err != nil {
		return 0, 0, err
	}
	headers := b[pos : pos+4*count]
	pos += 4 * count
	if runFlags == nil || count >= roaringNoOffsetMinCount {
		// Offsets are redundant with the headers; readers skip them.
		if err := need(4*count, "container offsets"); err != nil {
			return 0, 0, err
		}
		pos += 4 * count
	}

	previousKey := -1
	for i := range count {
		key := int(binary.LittleEndian.Uint16(headers[4*i:]))
		card := int(binary.LittleEndian.Uint16(headers[4*i+2:])) + 1
		if key <= previousKey {
			return 0, 0, fmt.Errorf("container keys not increasing: %d after %d", key, previousKey)
		}
		previousKey = key
		var n int
		var err error
		switch {
		case runFlags != nil && runFlags[i/8]&(1<<(i%8)) != 0:
			n, err = checkRunContainer(b[pos:], card)
		case card <= roaringArrayMaxCard:
			n, err = checkArrayContainer(b[pos:], card)
		default:
			n, err = checkBitmapContainer(b[pos:], card)
		}
		if err != nil {
			return 0, 0, fmt.Errorf("container %d (key %d) at offset %d: %w", i, key, pos, err)
		}
		pos += n
		cardinality += uint64(card)
	}
	return pos, cardinality, nil
}

func checkRunContainer(b []byte, card int) (int, error) {
	if len(b) < 2 {
		return 0, fmt.Errorf("truncated run count")
	}
	runs := int(binary.LittleEndian.Uint16(b))
	n := 2 + 4*runs
	if n > len(b) {
		return 0, fmt.Errorf("truncated: %d runs need %d bytes, %d left", runs, n, len(b))
	}
	total := 0
	nextFree := 0 // the smallest value a run may start at
	for r := range runs {
		start := int(binary.LittleEndian.Uint16(b[2+4*r:]))
		last := start + int(binary.LittleEndian.Uint16(b[4+4*r:]))
		if start < nextFree {
			return 0, fmt.Errorf("run %d starting at %d overlaps, touches or precedes the previous run", r, start)
		}
		if last > 0xFFFF {
			return 0, fmt.Errorf("run %d [%d, %d] passes 65535", r, start, last)
		}
		total += last - start + 1
		nextFree = last + 2
	}
	if total != card {
		return 0, fmt.Errorf("runs hold %d values, header says %d", total, card)
	}
	return n, nil
}

func checkArrayContainer(b []byte, card int) (int, error) {
	n := 2 * card
	if n > len(b) {
		return 0, fmt.Errorf("truncated: %d values need %d bytes, %d left", card, n, len(b))
	}
	previous := -1
	for i := range card {
		v := int(binary.LittleEndian.Uint16(b[2*i:]))
		if v <= previous {
			return 0, fmt.Errorf("array values not increasing: %d after %d", v, previous)
		}
		previous = v
	}
	return n, nil
}

func checkBitmapContainer(b []byte, card int) (int, error) {
	if roaringBitmapBytes > len(b) {
		return 0, fmt.Errorf("truncated bitmap: needs %d bytes, %d left", roaringBitmapBytes, len(b))
	}
	set := 0
	for i := 0; i < roaringBitmapBytes; i += 8 {
		set += bits.OnesCount64(binary.LittleEndian.Uint64(b[i:]))
	}
	if set != card {
		return 0, fmt.Errorf("bitmap holds %d values, header says %d", set, card)
	}
	return roaringBitmapBytes, nil
}

// portableBucket is one 32-bit bitmap of a portable 64-bit serialisation.
type portableBucket struct {
	key  uint32
	data []byte
}

// splitPortable checks a whole portable 64-bit serialisation (a uint64
// bucket count, then per bucket a uint32 key and a 32-bit bitmap; keys
// strictly increasing, no position with its top bit set) and returns its
// buckets and cardinality. It must account for every byte of b.
func splitPortable(b []byte) ([]portableBucket, uint64, error) {
	if len(b) < 8 {
		return nil, 0, fmt.Errorf("bitmap of %d bytes has no bucket count", len(b))
	}
	count := binary.LittleEndian.Uint64(b)
	// Each bucket takes at least a key and an empty bitmap: 12 bytes.
	if count > uint64(len(b)-8)/12 {
		return nil, 0, fmt.Errorf("bucket count %d cannot fit in %d bytes", count, len(b))
	}
	buckets := make([]portableBucket, 0, count)
	pos := 8
	var cardinality uint64
	for i := range count {
		if len(b)-pos < 4 {
			return nil, 0, fmt.Errorf("bucket %d: truncated key", i)
		}
		key := binary.LittleEndian.Uint32(b[pos:])
		if key > maxKey {
			return nil, 0, fmt.Errorf("bucket %d: key %#x makes positions negative", i, key)
		}
		if i > 0 && key <= buckets[i-1].key {
			return nil, 0, fmt.Errorf("bucket %d: key %d does not follow key %d in increasing order", i, key, buckets[i-1].key)
		}
		pos += 4
		n, card, err := checkRoaring32(b[pos:])
		if err != nil {
			return nil, 0, fmt.Errorf("bucket %d (key %d) at offset %d: %w", i, key, pos, err)
		}
		buckets = append(buckets, portableBucket{key: key, data: b[pos : pos+n]})
		pos += n
		cardinality += card
	}
	if pos != len(b) {
		return nil, 0, fmt.Errorf("%d bytes left after the last bucket", len(b)-pos)
	}
	return buckets, cardinality, nil
}
