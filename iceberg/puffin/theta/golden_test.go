package theta

import (
	"bytes"
	"encoding/base64"
	"testing"
)

// Compact sketches serialised by Java DataSketches 4.2.0
// (CompactSketch.toByteArray), as published in another project's tests
// of its own theta union: the longs {1, 2}, {2, 3} and their union.
const (
	javaLongs12  = "AgMDAAAazJMCAAAAAACAPxX5fcu9hqEFw5f8EoFwnR4="
	javaLongs23  = "AgMDAAAazJMCAAAAAACAP8OX/BKBcJ0eukCzwdoGaV0="
	javaUnion123 = "AgMDAAAazJMDAAAAAACAPxX5fcu9hqEFw5f8EoFwnR66QLPB2gZpXQ=="
)

func javaBytes(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Java's bytes read back with the right estimates; the same longs, hashed
// and serialised here, give the same bytes (so the hash, seed, shift and
// layout are Java's); the union of Java's two sketches re-serialises as
// Java's union did.
func TestJavaSerialisedSketches(t *testing.T) {
	for _, c := range []struct {
		java  string
		longs []int64
	}{{javaLongs12, []int64{1, 2}}, {javaLongs23, []int64{2, 3}}, {javaUnion123, []int64{1, 2, 3}}} {
		want := javaBytes(t, c.java)
		read, err := Unmarshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if read.Estimate() != float64(len(c.longs)) {
			t.Errorf("%s: estimate %v, want %d", c.java, read.Estimate(), len(c.longs))
		}
		if again, _ := read.MarshalBinary(); !bytes.Equal(again, want) {
			t.Errorf("%s re-serialised as %s", c.java, base64.StdEncoding.EncodeToString(again))
		}
		s := New()
		for _, v := range c.longs {
			s.UpdateHash(HashUint64(uint64(v)))
		}
		if ours, _ := s.Compact().MarshalBinary(); !bytes.Equal(ours, want) {
			t.Errorf("longs %v: %s, Java wrote %s", c.longs, base64.StdEncoding.EncodeToString(ours), c.java)
		}
	}
	a, _ := Unmarshal(javaBytes(t, javaLongs12))
	b, _ := Unmarshal(javaBytes(t, javaLongs23))
	u := NewUnion()
	u.Add(a)
	u.Add(b)
	if got, _ := u.Result().MarshalBinary(); !bytes.Equal(got, javaBytes(t, javaUnion123)) {
		t.Errorf("union of Java's sketches: %s, Java's union %s", base64.StdEncoding.EncodeToString(got), javaUnion123)
	}
}

// Older Java versions wrote a one-hash exact sketch with two preamble
// longs (as published in Druid's tests); it reads as one value, and is
// written back in the single-item form newer versions use.
func TestOlderSingleItemForm(t *testing.T) {
	old := javaBytes(t, "AgMDAAAazJMBAAAAAACAPzz9j7pWTMdR")
	c, err := Unmarshal(old)
	if err != nil || c.Estimate() != 1 {
		t.Fatalf("%v %v", c, err)
	}
	b, _ := c.MarshalBinary()
	if len(b) != 16 || b[0] != 1 || b[5] != 0x3a || !bytes.Equal(b[8:], old[16:]) {
		t.Fatalf("written back as % x", b)
	}
}
