package theta

import (
	"slices"

	"github.com/floedb/floe/errkind"
)

// DefaultLgK is log2 of the default nominal entries, 4096: Java's default,
// and what Iceberg's writers use (relative error about 1/sqrt(4096), 1.6%).
const DefaultLgK = 12

const (
	minLgK = 4
	maxLgK = 26
)

// Sketch is an updatable theta sketch (Java's QuickSelect UpdateSketch):
// the distinct hashes seen that lie below theta. It is not safe for
// concurrent use; sketches built apart merge with a Union.
type Sketch struct {
	lgK   int
	theta int64
	// table is an open-addressing set of hashes (0 marks a free slot:
	// a zero hash is never kept, as in Java); its size is a power of two
	// at least twice count, so probes stay short.
	table []int64
	count int
	// rebuildAt is the count above which theta is lowered: 15/16 of the
	// 2k slots of Java's largest table, so the hashes kept, and theta, are
	// those Java keeps for the same input.
	rebuildAt int
	empty     bool
}

// New returns an empty sketch of nominal size 2^DefaultLgK.
func New() *Sketch {
	s, _ := NewLgK(DefaultLgK)
	return s
}

// NewLgK returns an empty sketch of nominal size 2^lgK (4 ≤ lgK ≤ 26).
func NewLgK(lgK int) (*Sketch, error) {
	if lgK < minLgK || lgK > maxLgK {
		return nil, errkind.Errorf(errkind.InvalidArgument, "theta sketch: lg_k %d is outside [%d, %d]", lgK, minLgK, maxLgK)
	}
	return &Sketch{
		lgK:       lgK,
		theta:     maxTheta,
		table:     make([]int64, 32),
		rebuildAt: (15 << (lgK + 1)) / 16,
		empty:     true,
	}, nil
}

// Update adds a value given as its bytes. Empty and nil byte strings are
// ignored, as Java's update(byte[]) and update(ByteBuffer) ignore them.
func (s *Sketch) Update(data []byte) {
	if len(data) == 0 {
		return
	}
	s.UpdateHash(Hash(data))
}

// UpdateString adds a value given as a string's bytes; "" is ignored.
func (s *Sketch) UpdateString(v string) {
	if v == "" {
		return
	}
	s.UpdateHash(HashString(v))
}

// UpdateHash adds a hash made by Hash (or its typed forms).
func (s *Sketch) UpdateHash(h int64) {
	s.empty = false
	if h <= 0 || h >= s.theta {
		return
	}
	if !s.insert(h) {
		return
	}
	if s.count > s.rebuildAt {
		s.rebuild()
	}
}

// insert adds h to the table, growing it first when half full; it reports
// whether h was new.
func (s *Sketch) insert(h int64) bool {
	if 2*(s.count+1) > len(s.table) {
		s.grow()
	}
	mask := len(s.table) - 1
	i := int(uint64(h)*0x9E3779B97F4A7C15>>32) & mask
	for {
		switch s.table[i] {
		case 0:
			s.table[i] = h
			s.count++
			return true
		case h:
			return false
		}
		i = (i + 1) & mask
	}
}

func (s *Sketch) grow() {
	old := s.table
	s.table = make([]int64, 2*len(old))
	s.count = 0
	for _, h := range old {
		if h != 0 {
			s.insert(h)
		}
	}
}

// rebuild lowers theta to the (k+1)th smallest hash kept and keeps the k
// below it, as Java's quickSelectAndRebuild does.
func (s *Sketch) rebuild() {
	hashes := s.hashes()
	k := 1 << s.lgK
	s.theta = hashes[k]
	s.reset(hashes[:k])
}

func (s *Sketch) reset(keep []int64) {
	clear(s.table)
	s.count = 0
	for _, h := range keep {
		s.insert(h)
	}
}

// hashes are the hashes kept, sorted.
func (s *Sketch) hashes() []int64 {
	out := make([]int64, 0, s.count)
	for _, h := range s.table {
		if h != 0 {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return out
}

// Estimate is the estimated number of distinct values added.
func (s *Sketch) Estimate() float64 { return estimate(s.theta, s.count) }

// Retained is the number of hashes the sketch holds.
func (s *Sketch) Retained() int { return s.count }

// Compact returns the sketch's compact, ordered form, as Java's
// compact() does: every hash kept, sorted, with theta.
func (s *Sketch) Compact() *Compact {
	return newCompact(s.theta, s.hashes(), s.empty)
}
