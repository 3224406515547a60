package theta

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/floedb/floe/errkind"
)

func longs(s *Sketch, from, to int64) {
	for v := from; v < to; v++ {
		s.UpdateHash(HashUint64(uint64(v)))
	}
}

// The seed hash of 9001 is what every Java-written sketch carries in bytes
// 6–7 (cc 93 in the library's documented dumps).
func TestDefaultSeedHash(t *testing.T) {
	if defaultSeedHash != 0x93cc {
		t.Fatalf("seed hash of 9001 = %#04x, want 0x93cc", defaultSeedHash)
	}
}

// The typed hashes are the byte hash of Iceberg's little-endian forms.
func TestTypedHashesAreTheByteHash(t *testing.T) {
	var b8 [8]byte
	binary.LittleEndian.PutUint64(b8[:], 0x0102030405060708)
	if HashUint64(0x0102030405060708) != Hash(b8[:]) {
		t.Error("HashUint64 differs from Hash of the 8 bytes")
	}
	var b4 [4]byte
	binary.LittleEndian.PutUint32(b4[:], 77)
	if HashUint32(77) != Hash(b4[:]) {
		t.Error("HashUint32 differs from Hash of the 4 bytes")
	}
	if HashString("iceberg") != Hash([]byte("iceberg")) {
		t.Error("HashString differs from Hash of the bytes")
	}
	if Hash([]byte("x")) < 0 {
		t.Error("a hash is negative: the top bit was not shifted out")
	}
}

func TestExactBelowK(t *testing.T) {
	s := New()
	longs(s, 0, 4000)
	longs(s, 0, 4000) // duplicates change nothing
	s.Update(nil)
	s.UpdateString("")
	if got := s.Estimate(); got != 4000 {
		t.Fatalf("estimate %v, want exactly 4000", got)
	}
	c := s.Compact()
	if c.Theta() != math.MaxInt64 || c.Retained() != 4000 || c.Estimate() != 4000 {
		t.Fatalf("compact: theta %d, %d retained, estimate %v", c.Theta(), c.Retained(), c.Estimate())
	}
}

func TestEstimateOfAMillionDistinct(t *testing.T) {
	s := New()
	longs(s, 0, 1_000_000)
	c := s.Compact()
	if c.Theta() >= math.MaxInt64 {
		t.Fatal("theta stayed 1.0 past k")
	}
	// Java keeps between k and 15/16 of 2k hashes.
	if n := c.Retained(); n < 4096 || n > 7680 {
		t.Fatalf("%d hashes retained, want 4096..7680", n)
	}
	if got := c.Estimate(); math.Abs(got-1e6) > 0.05*1e6 {
		t.Fatalf("estimate %v of 1,000,000 distinct is off by more than 5%%", got)
	}
	if s.Estimate() != c.Estimate() {
		t.Fatalf("compact estimate %v differs from the sketch's %v", c.Estimate(), s.Estimate())
	}
}

func TestSerialisationRoundTrip(t *testing.T) {
	cases := map[string]func(*Sketch){
		"empty":      func(*Sketch) {},
		"single":     func(s *Sketch) { s.UpdateString("only") },
		"exact":      func(s *Sketch) { longs(s, 0, 100) },
		"estimation": func(s *Sketch) { longs(s, 0, 50_000) },
	}
	for name, fill := range cases {
		s := New()
		fill(s)
		c := s.Compact()
		b, err := c.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if back.Estimate() != c.Estimate() || back.Theta() != c.Theta() || back.IsEmpty() != c.IsEmpty() {
			t.Errorf("%s: read back estimate %v theta %d empty %v, wrote %v %d %v", name, back.Estimate(), back.Theta(), back.IsEmpty(), c.Estimate(), c.Theta(), c.IsEmpty())
		}
		again, _ := back.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Errorf("%s: re-serialised bytes differ", name)
		}
	}
}

// The bytes follow the format rules Java's CompactOperations and
// EmptyCompactSketch write.
func TestSerialisedLayout(t *testing.T) {
	empty, _ := New().Compact().MarshalBinary()
	if want := []byte{1, 3, 3, 0, 0, 0x1e, 0, 0}; !bytes.Equal(empty, want) {
		t.Errorf("empty sketch % x, want % x", empty, want)
	}

	s := New()
	s.UpdateString("only")
	single, _ := s.Compact().MarshalBinary()
	head := []byte{1, 3, 3, 0, 0, 0x3a, 0xcc, 0x93} // READ_ONLY|COMPACT|ORDERED|SINGLE_ITEM
	if len(single) != 16 || !bytes.Equal(single[:8], head) || int64(binary.LittleEndian.Uint64(single[8:])) != HashString("only") {
		t.Errorf("single-item sketch % x", single)
	}

	s = New()
	longs(s, 0, 3)
	exact, _ := s.Compact().MarshalBinary()
	head = []byte{2, 3, 3, 0, 0, 0x1a, 0xcc, 0x93}
	if len(exact) != 8*(2+3) || !bytes.Equal(exact[:8], head) || binary.LittleEndian.Uint32(exact[8:]) != 3 ||
		math.Float32frombits(binary.LittleEndian.Uint32(exact[12:])) != 1 {
		t.Errorf("exact sketch % x", exact)
	}
	for i := 0; i < 2; i++ {
		if binary.LittleEndian.Uint64(exact[16+8*i:]) >= binary.LittleEndian.Uint64(exact[24+8*i:]) {
			t.Error("hashes not in ascending order")
		}
	}

	s = New()
	longs(s, 0, 20_000)
	c := s.Compact()
	est, _ := c.MarshalBinary()
	if est[0] != 3 || est[5] != 0x1a || binary.LittleEndian.Uint32(est[8:]) != uint32(c.Retained()) ||
		int64(binary.LittleEndian.Uint64(est[16:])) != c.Theta() || len(est) != 8*(3+c.Retained()) {
		t.Errorf("estimation-mode preamble % x", est[:24])
	}
}

func TestUnmarshalRefusals(t *testing.T) {
	s := New()
	longs(s, 0, 10)
	good, _ := s.Compact().MarshalBinary()
	mut := func(f func(b []byte) []byte) []byte { return f(bytes.Clone(good)) }
	cases := map[string]struct {
		b    []byte
		kind errkind.Kind
	}{
		"short":         {good[:5], errkind.Corrupt},
		"truncated":     {good[:len(good)-8], errkind.Corrupt},
		"serial 4":      {mut(func(b []byte) []byte { b[1] = 4; return b }), errkind.Unsupported},
		"update family": {mut(func(b []byte) []byte { b[2] = 2; b[5] &^= flagCompact; return b }), errkind.Unsupported},
		"other seed":    {mut(func(b []byte) []byte { b[6] = 1; return b }), errkind.InvalidArgument},
		"disordered":    {mut(func(b []byte) []byte { copy(b[16:24], good[24:32]); copy(b[24:32], good[16:24]); return b }), errkind.Corrupt},
		"zero hash":     {mut(func(b []byte) []byte { clear(b[16:24]); return b }), errkind.Corrupt},
	}
	for name, c := range cases {
		if _, err := Unmarshal(c.b); !errors.Is(err, c.kind) {
			t.Errorf("%s: %v, want %v", name, err, c.kind)
		}
	}
	// an unordered compact sketch is read and sorted
	unordered := mut(func(b []byte) []byte {
		b[5] &^= flagOrdered
		copy(b[16:24], good[24:32])
		copy(b[24:32], good[16:24])
		return b
	})
	back, err := Unmarshal(unordered)
	if err != nil || back.Estimate() != 10 {
		t.Fatalf("unordered: %v, %v", back, err)
	}
	if again, _ := back.MarshalBinary(); !bytes.Equal(again, good) {
		t.Error("unordered sketch not sorted on reading")
	}
}

func TestUnion(t *testing.T) {
	// exact parts overlap: the union counts each value once
	a, b := New(), New()
	longs(a, 0, 2000)
	longs(b, 1000, 3000)
	u := NewUnion()
	u.Add(a.Compact())
	u.Add(b.Compact())
	u.Add(New().Compact())
	if got := u.Result().Estimate(); got != 3000 {
		t.Fatalf("union of exact overlapping sketches: %v, want 3000", got)
	}

	// estimation-mode parts: theta is the smallest, the result trimmed to k
	parts := []*Sketch{New(), New(), New()}
	whole := New()
	for i := int64(0); i < 600_000; i++ {
		h := HashUint64(uint64(i))
		parts[i%3].UpdateHash(h)
		whole.UpdateHash(h)
	}
	u = NewUnion()
	minTheta := int64(math.MaxInt64)
	for _, p := range parts {
		c := p.Compact()
		minTheta = min(minTheta, c.Theta())
		u.Add(c)
	}
	r := u.Result()
	if r.Retained() != 4096 || r.Theta() > minTheta {
		t.Fatalf("union result: %d hashes, theta %d (parts' smallest %d)", r.Retained(), r.Theta(), minTheta)
	}
	if got := r.Estimate(); math.Abs(got-600_000) > 0.05*600_000 {
		t.Fatalf("union estimate %v of 600,000", got)
	}
	// the union of a sketch with itself is the sketch trimmed to k
	self := NewUnion()
	self.Add(whole.Compact())
	self.Add(whole.Compact())
	wantHashes := whole.Compact().hashes[:4096]
	got := self.Result()
	if got.Retained() != 4096 || got.Theta() != whole.Compact().hashes[4096] || got.hashes[4095] != wantHashes[4095] {
		t.Fatalf("self-union: %d hashes, theta %d", got.Retained(), got.Theta())
	}
	// and a union's result reads back as a sketch
	bs, _ := r.MarshalBinary()
	if back, err := Unmarshal(bs); err != nil || back.Estimate() != r.Estimate() {
		t.Fatalf("union result round trip: %v", err)
	}
}

// Java's QuickSelect sketch rebuilds when its 2k-slot table passes 15/16
// full: 7680 distinct hashes stay exact, the 7681st lowers theta to the
// 4097th smallest and keeps the 4096 below it.
func TestRebuildPointIsJavas(t *testing.T) {
	s := New()
	longs(s, 0, 7680)
	if s.Retained() != 7680 || s.Estimate() != 7680 {
		t.Fatalf("7680 distinct: %d retained, estimate %v", s.Retained(), s.Estimate())
	}
	all := s.Compact().hashes
	h := HashUint64(7680)
	s.UpdateHash(h)
	all = append(all, h)
	slices.Sort(all)
	c := s.Compact()
	if c.Retained() != 4096 || c.Theta() != all[4096] || c.hashes[4095] != all[4095] {
		t.Fatalf("after the 7681st: %d retained, theta %d, want 4096 and %d", c.Retained(), c.Theta(), all[4096])
	}
}
