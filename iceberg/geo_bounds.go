package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Bounds of geometry and geography columns (spec "Bounds for Geometry and
// Geography" and Appendix D "Bound serialization"): the lower and upper
// bounds are points, the corners of a box holding every value, encoded as
// little-endian doubles x:y, x:y:z, x:y:z:m, or x:y:NaN:m when only z is
// missing.

// GeoPoint is one geo bound. Z and M are meaningful only when HasZ, HasM.
type GeoPoint struct {
	X, Y, Z, M float64
	HasZ, HasM bool
}

// AppendGeoBound appends p in the bound serialization.
func AppendGeoBound(dst []byte, p GeoPoint) []byte {
	put := func(v float64) { dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v)) }
	put(p.X)
	put(p.Y)
	switch {
	case p.HasM && p.HasZ:
		put(p.Z)
		put(p.M)
	case p.HasM:
		put(math.NaN())
		put(p.M)
	case p.HasZ:
		put(p.Z)
	}
	return dst
}

// ParseGeoBound reads a bound written by AppendGeoBound (or any writer
// following the spec): 16, 24 or 32 bytes.
func ParseGeoBound(b []byte) (GeoPoint, error) {
	f := func(i int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:])) }
	switch len(b) {
	case 16:
		return GeoPoint{X: f(0), Y: f(1)}, nil
	case 24:
		return GeoPoint{X: f(0), Y: f(1), Z: f(2), HasZ: true}, nil
	case 32:
		p := GeoPoint{X: f(0), Y: f(1), Z: f(2), M: f(3), HasZ: true, HasM: true}
		if math.IsNaN(p.Z) {
			p.Z, p.HasZ = 0, false
		}
		return p, nil
	}
	return GeoPoint{}, fmt.Errorf("a geospatial bound cannot be %d bytes long (16, 24 or 32)", len(b))
}

// GeoBox accumulates the bounding box of WKB values, per dimension (x, y,
// z, m), skipping NaN coordinates as the spec says. The zero value is empty.
type GeoBox struct {
	Min, Max [4]float64
	Has      [4]bool
	// Edges is set once a value with edges (anything but points) was
	// added: for a geography its vertices' box need not hold its edges.
	Edges bool
}

func (b *GeoBox) add(dim int, v float64) {
	if math.IsNaN(v) {
		return
	}
	if !b.Has[dim] {
		b.Min[dim], b.Max[dim], b.Has[dim] = v, v, true
		return
	}
	b.Min[dim], b.Max[dim] = min(b.Min[dim], v), max(b.Max[dim], v)
}

// AddWKB extends the box by every coordinate of one WKB value, without
// building the geometry.
func (b *GeoBox) AddWKB(wkb []byte) error {
	r := &wkbReader{b: wkb}
	if err := r.scan(0, b); err != nil {
		return err
	}
	if r.pos != len(wkb) {
		return r.fail("%d bytes after the geometry", len(wkb)-r.pos)
	}
	return nil
}

// Merge extends the box by another.
func (b *GeoBox) Merge(o *GeoBox) {
	for d := range 4 {
		if o.Has[d] {
			b.add(d, o.Min[d])
			b.add(d, o.Max[d])
		}
	}
	b.Edges = b.Edges || o.Edges
}

// Bounds is the box as lower and upper bound points; ok is false when x or
// y has no value, where the spec says no box is produced.
func (b *GeoBox) Bounds() (lower, upper GeoPoint, ok bool) {
	if !b.Has[0] || !b.Has[1] {
		return GeoPoint{}, GeoPoint{}, false
	}
	lower = GeoPoint{X: b.Min[0], Y: b.Min[1], Z: b.Min[2], M: b.Min[3], HasZ: b.Has[2], HasM: b.Has[3]}
	upper = GeoPoint{X: b.Max[0], Y: b.Max[1], Z: b.Max[2], M: b.Max[3], HasZ: b.Has[2], HasM: b.Has[3]}
	return lower, upper, true
}

func (r *wkbReader) scan(depth int, box *GeoBox) error {
	if depth > maxGeomDepth {
		return r.fail("nested deeper than %d", maxGeomDepth)
	}
	kind, z, m, err := r.header()
	if err != nil {
		return err
	}
	dims := 2
	zAt, mAt := -1, -1
	if z {
		zAt = dims
		dims++
	}
	if m {
		mAt = dims
		dims++
	}
	points := func(n int) error {
		if uint64(n)*uint64(dims)*8 > uint64(len(r.b)-r.pos) {
			return r.fail("truncated")
		}
		for range n {
			for d := range dims {
				v, _ := r.f64()
				switch d {
				case 0, 1:
					box.add(d, v)
				case zAt:
					box.add(2, v)
				case mAt:
					box.add(3, v)
				}
			}
		}
		return nil
	}
	switch kind {
	case GeomPoint:
		return points(1)
	case GeomLineString:
		box.Edges = true
		n, err := r.count(8 * dims)
		if err != nil {
			return err
		}
		return points(n)
	case GeomPolygon:
		box.Edges = true
		n, err := r.count(4)
		if err != nil {
			return err
		}
		for range n {
			k, err := r.count(8 * dims)
			if err != nil {
				return err
			}
			if err := points(k); err != nil {
				return err
			}
		}
		return nil
	}
	n, err := r.count(5)
	if err != nil {
		return err
	}
	for range n {
		if err := r.scan(depth+1, box); err != nil {
			return err
		}
	}
	return nil
}
