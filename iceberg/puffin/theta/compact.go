package theta

import (
	"encoding/binary"
	"math"
	"slices"

	"github.com/floedb/floe/errkind"
)

// Compact is an immutable theta sketch: theta and the hashes below it,
// sorted. It is what a Puffin apache-datasketches-theta-v1 blob holds.
type Compact struct {
	theta  int64
	hashes []int64
	empty  bool
}

// newCompact applies Java's rule: no hash with theta 1.0 is the empty
// sketch, whatever the sketch saw.
func newCompact(theta int64, sorted []int64, empty bool) *Compact {
	if len(sorted) == 0 && theta == maxTheta {
		empty = true
	}
	return &Compact{theta: theta, hashes: sorted, empty: empty && len(sorted) == 0}
}

// Estimate is the estimated number of distinct values: Java's getEstimate.
func (c *Compact) Estimate() float64 { return estimate(c.theta, len(c.hashes)) }

// Retained is the number of hashes held.
func (c *Compact) Retained() int { return len(c.hashes) }

// Theta is theta as a long (2^63-1 is 1.0: nothing dropped).
func (c *Compact) Theta() int64 { return c.theta }

// IsEmpty reports whether the sketch saw nothing.
func (c *Compact) IsEmpty() bool { return c.empty }

// Serialised layout, serial version 3 (PreambleUtil): byte 0 preamble
// longs, 1 serial version, 2 family, 3–4 unused in compact form, 5 flags,
// 6–7 seed hash (little-endian); with 2 or more preamble longs, bytes
// 8–11 the count and 12–15 p (float 1.0); with 3, bytes 16–23 theta; then
// the hashes, little-endian.
const (
	serialVersion = 3
	familyCompact = 3

	flagBigEndian = 1
	flagReadOnly  = 2
	flagEmpty     = 4
	flagCompact   = 8
	flagOrdered   = 16
	flagSingle    = 32
)

// MarshalBinary serialises the sketch as Java's CompactSketch.toByteArray
// does for an ordered compact sketch: one preamble long when empty (no
// seed hash, as Java writes it) or holding one hash at theta 1.0, two
// in exact mode, three in estimation mode.
func (c *Compact) MarshalBinary() ([]byte, error) {
	n := len(c.hashes)
	single := n == 1 && c.theta == maxTheta
	preLongs := 1
	switch {
	case c.theta < maxTheta:
		preLongs = 3
	case c.empty:
		preLongs = 1
	case n > 1:
		preLongs = 2
	}
	flags := byte(flagReadOnly | flagCompact | flagOrdered)
	seed := defaultSeedHash
	if c.empty {
		flags |= flagEmpty
		seed = 0
	}
	if single {
		flags |= flagSingle
	}
	out := make([]byte, 8*(preLongs+n))
	out[0] = byte(preLongs)
	out[1] = serialVersion
	out[2] = familyCompact
	out[5] = flags
	binary.LittleEndian.PutUint16(out[6:], seed)
	if preLongs > 1 {
		binary.LittleEndian.PutUint32(out[8:], uint32(n))
		binary.LittleEndian.PutUint32(out[12:], math.Float32bits(1))
	}
	if preLongs > 2 {
		binary.LittleEndian.PutUint64(out[16:], uint64(c.theta))
	}
	at := 8 * preLongs
	for _, h := range c.hashes {
		binary.LittleEndian.PutUint64(out[at:], uint64(h))
		at += 8
	}
	return out, nil
}

func corrupt(format string, args ...any) error {
	return errkind.Errorf(errkind.Corrupt, "theta sketch: "+format, args...)
}

// Unmarshal reads a compact theta sketch of serial version 3 as Java
// writes it (ordered or not; an unordered one is sorted here). Update
// sketches' full hash tables and the compressed serial version 4 are
// refused as unsupported; a sketch hashed with another seed is refused as
// an invalid argument, since its hashes mean nothing next to ours.
func Unmarshal(b []byte) (*Compact, error) {
	if len(b) < 8 {
		return nil, corrupt("%d bytes is shorter than a preamble", len(b))
	}
	preLongs, ver, family, flags := int(b[0]&0x3f), b[1], b[2], b[5]
	switch {
	case ver != serialVersion:
		return nil, errkind.Errorf(errkind.Unsupported, "theta sketch: serial version %d (only %d is read)", ver, serialVersion)
	case family != familyCompact || flags&flagCompact == 0:
		return nil, errkind.Errorf(errkind.Unsupported, "theta sketch: family %d, flags %#x: only compact sketches are read", family, flags)
	case flags&flagBigEndian != 0:
		return nil, errkind.Errorf(errkind.Unsupported, "theta sketch: big-endian sketches are not read")
	case preLongs < 1 || preLongs > 3:
		return nil, corrupt("%d preamble longs", preLongs)
	case len(b) < 8*preLongs:
		return nil, corrupt("%d bytes is shorter than %d preamble longs", len(b), preLongs)
	}
	if flags&flagEmpty != 0 {
		return newCompact(maxTheta, nil, true), nil
	}
	if seed := binary.LittleEndian.Uint16(b[6:]); seed != defaultSeedHash {
		return nil, errkind.Errorf(errkind.InvalidArgument, "theta sketch: seed hash %#04x is not the default seed's %#04x", seed, defaultSeedHash)
	}
	theta := int64(maxTheta)
	n := 0
	switch {
	case preLongs == 1 && len(b) == 8:
		// an empty sketch without the empty flag (older writers)
	case preLongs == 1:
		n = 1
	default:
		n = int(binary.LittleEndian.Uint32(b[8:]))
		if preLongs == 3 {
			theta = int64(binary.LittleEndian.Uint64(b[16:]))
		}
	}
	if theta <= 0 {
		return nil, corrupt("theta %d is not positive", theta)
	}
	if n < 0 || n > (len(b)-8*preLongs)/8 {
		return nil, corrupt("%d hashes do not fit in %d bytes", n, len(b))
	}
	hashes := make([]int64, n)
	at := 8 * preLongs
	for i := range hashes {
		h := int64(binary.LittleEndian.Uint64(b[at:]))
		if h <= 0 || h >= theta {
			return nil, corrupt("hash %d is outside (0, theta %d)", h, theta)
		}
		hashes[i] = h
		at += 8
	}
	if flags&flagOrdered == 0 {
		slices.Sort(hashes)
	} else if !slices.IsSorted(hashes) {
		return nil, corrupt("an ordered sketch's hashes are out of order")
	}
	return newCompact(theta, hashes, false), nil
}
