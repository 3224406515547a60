package iceberg

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/floedb/floe/errkind"
)

// Geometry and geography values are WKB (OGC simple features, ISO
// flavour: XY, XYZ, XYM, XYZM). This file reads and writes it; the
// geometry model below is only what WKT conversion and bounds need.

// GeomKind is a simple-features geometry type, numbered as WKB does.
type GeomKind uint8

const (
	GeomPoint GeomKind = 1 + iota
	GeomLineString
	GeomPolygon
	GeomMultiPoint
	GeomMultiLineString
	GeomMultiPolygon
	GeomCollection
)

var geomKindNames = [...]string{"", "POINT", "LINESTRING", "POLYGON", "MULTIPOINT", "MULTILINESTRING", "MULTIPOLYGON", "GEOMETRYCOLLECTION"}

func (k GeomKind) String() string {
	if int(k) < len(geomKindNames) && k > 0 {
		return geomKindNames[k]
	}
	return fmt.Sprintf("GeomKind(%d)", uint8(k))
}

// Geom is one geometry. Coords holds a point's or a line string's
// coordinates, flat, Dims() numbers each (an empty point has none); Parts
// holds a polygon's rings (line strings) or a collection's members.
type Geom struct {
	Kind   GeomKind
	Z, M   bool
	Coords []float64
	Parts  []Geom
}

// Dims is the number of numbers in each coordinate: 2 to 4.
func (g *Geom) Dims() int {
	n := 2
	if g.Z {
		n++
	}
	if g.M {
		n++
	}
	return n
}

// maxGeomDepth bounds collection nesting so hostile WKB or WKT cannot
// exhaust the stack.
const maxGeomDepth = 64

// ErrInvalidWKB is wrapped by every WKB decoding error.
var ErrInvalidWKB = errkind.New(errkind.InvalidArgument, "invalid WKB")

type wkbReader struct {
	b     []byte
	pos   int
	order binary.ByteOrder
}

func (r *wkbReader) fail(format string, args ...any) error {
	return fmt.Errorf("%w at byte %d: %s", ErrInvalidWKB, r.pos, fmt.Sprintf(format, args...))
}

func (r *wkbReader) u32() (uint32, error) {
	if len(r.b)-r.pos < 4 {
		return 0, r.fail("truncated")
	}
	v := r.order.Uint32(r.b[r.pos:])
	r.pos += 4
	return v, nil
}

func (r *wkbReader) f64() (float64, error) {
	if len(r.b)-r.pos < 8 {
		return 0, r.fail("truncated")
	}
	v := math.Float64frombits(r.order.Uint64(r.b[r.pos:]))
	r.pos += 8
	return v, nil
}

// count reads an element count and checks that the rest of the input can
// hold that many elements of at least minSize bytes, so a corrupt count
// cannot make the reader allocate without bound.
func (r *wkbReader) count(minSize int) (int, error) {
	n, err := r.u32()
	if err != nil {
		return 0, err
	}
	if uint64(n)*uint64(minSize) > uint64(len(r.b)-r.pos) {
		return 0, r.fail("count %d exceeds the remaining %d bytes", n, len(r.b)-r.pos)
	}
	return int(n), nil
}

// header reads a geometry's byte order and type code. Besides ISO codes
// (1000·dims + kind) it accepts the EWKB Z and M flags PostGIS writes,
// though not an embedded SRID.
func (r *wkbReader) header() (kind GeomKind, z, m bool, err error) {
	if r.pos >= len(r.b) {
		return 0, false, false, r.fail("truncated")
	}
	switch r.b[r.pos] {
	case 0:
		r.order = binary.BigEndian
	case 1:
		r.order = binary.LittleEndian
	default:
		return 0, false, false, r.fail("byte order %d is neither 0 nor 1", r.b[r.pos])
	}
	r.pos++
	code, err := r.u32()
	if err != nil {
		return 0, false, false, err
	}
	if code&0x20000000 != 0 {
		return 0, false, false, r.fail("EWKB with an embedded SRID is not ISO WKB")
	}
	z, m = code&0x80000000 != 0, code&0x40000000 != 0
	code &^= 0xC0000000
	switch code / 1000 {
	case 1:
		z = true
	case 2:
		m = true
	case 3:
		z, m = true, true
	case 0:
	default:
		return 0, false, false, r.fail("geometry type code %d", code)
	}
	kind = GeomKind(code % 1000)
	if kind < GeomPoint || kind > GeomCollection {
		return 0, false, false, r.fail("geometry type code %d", code)
	}
	return kind, z, m, nil
}

// ParseWKB decodes one WKB geometry; trailing bytes are an error.
func ParseWKB(b []byte) (Geom, error) {
	r := &wkbReader{b: b}
	g, err := r.geom(0)
	if err != nil {
		return Geom{}, err
	}
	if r.pos != len(b) {
		return Geom{}, r.fail("%d bytes after the geometry", len(b)-r.pos)
	}
	return g, nil
}

func (r *wkbReader) geom(depth int) (Geom, error) {
	if depth > maxGeomDepth {
		return Geom{}, r.fail("nested deeper than %d", maxGeomDepth)
	}
	kind, z, m, err := r.header()
	if err != nil {
		return Geom{}, err
	}
	g := Geom{Kind: kind, Z: z, M: m}
	dims := g.Dims()
	switch kind {
	case GeomPoint:
		c, err := r.coords(1, dims)
		if err != nil {
			return Geom{}, err
		}
		// An empty point is written with every coordinate NaN.
		empty := true
		for _, v := range c {
			empty = empty && math.IsNaN(v)
		}
		if !empty {
			g.Coords = c
		}
	case GeomLineString:
		n, err := r.count(8 * dims)
		if err != nil {
			return Geom{}, err
		}
		if g.Coords, err = r.coords(n, dims); err != nil {
			return Geom{}, err
		}
	case GeomPolygon:
		n, err := r.count(4)
		if err != nil {
			return Geom{}, err
		}
		g.Parts = make([]Geom, n)
		for i := range g.Parts {
			k, err := r.count(8 * dims)
			if err != nil {
				return Geom{}, err
			}
			ring := Geom{Kind: GeomLineString, Z: z, M: m}
			if ring.Coords, err = r.coords(k, dims); err != nil {
				return Geom{}, err
			}
			g.Parts[i] = ring
		}
	default:
		n, err := r.count(5)
		if err != nil {
			return Geom{}, err
		}
		order := r.order
		g.Parts = make([]Geom, n)
		for i := range g.Parts {
			p, err := r.geom(depth + 1)
			if err != nil {
				return Geom{}, err
			}
			if err := checkMember(g, p); err != nil {
				return Geom{}, r.fail("%v", err)
			}
			g.Parts[i] = p
		}
		r.order = order
	}
	return g, nil
}

// checkMember checks that p may be a member of collection g: multi-types
// hold their single kind with the collection's dimensions.
func checkMember(g, p Geom) error {
	var want GeomKind
	switch g.Kind {
	case GeomMultiPoint:
		want = GeomPoint
	case GeomMultiLineString:
		want = GeomLineString
	case GeomMultiPolygon:
		want = GeomPolygon
	default:
		return nil
	}
	if p.Kind != want {
		return fmt.Errorf("a %s holds a %s", g.Kind, p.Kind)
	}
	if p.Z != g.Z || p.M != g.M {
		return fmt.Errorf("a %s member has other dimensions than the collection", g.Kind)
	}
	return nil
}

func (r *wkbReader) coords(n, dims int) ([]float64, error) {
	if n == 0 {
		return nil, nil
	}
	if uint64(n)*uint64(dims)*8 > uint64(len(r.b)-r.pos) {
		return nil, r.fail("truncated")
	}
	out := make([]float64, n*dims)
	for i := range out {
		out[i], _ = r.f64()
		// WKT has no spelling for an infinite coordinate (its reader
		// refuses one), so WKB must not carry one either: a geometry is
		// either readable in both forms or refused by both.
		if math.IsInf(out[i], 0) {
			return nil, r.fail("coordinate %v is infinite", out[i])
		}
	}
	return out, nil
}

// AppendWKB appends g as little-endian ISO WKB.
func AppendWKB(dst []byte, g *Geom) []byte {
	dst = append(dst, 1)
	code := uint32(g.Kind)
	switch {
	case g.Z && g.M:
		code += 3000
	case g.Z:
		code += 1000
	case g.M:
		code += 2000
	}
	dst = binary.LittleEndian.AppendUint32(dst, code)
	dims := g.Dims()
	appendCoords := func(dst []byte, c []float64) []byte {
		for _, v := range c {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
		}
		return dst
	}
	switch g.Kind {
	case GeomPoint:
		if len(g.Coords) == 0 {
			for range dims {
				dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(math.NaN()))
			}
			return dst
		}
		return appendCoords(dst, g.Coords)
	case GeomLineString:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Coords)/dims))
		return appendCoords(dst, g.Coords)
	case GeomPolygon:
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Parts)))
		for i := range g.Parts {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Parts[i].Coords)/dims))
			dst = appendCoords(dst, g.Parts[i].Coords)
		}
		return dst
	}
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(g.Parts)))
	for i := range g.Parts {
		dst = AppendWKB(dst, &g.Parts[i])
	}
	return dst
}
