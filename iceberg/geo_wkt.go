package iceberg

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/floedb/floe/errkind"
)

// WKT is the JSON single-value form of geometry and geography (spec
// Appendix D: "POINT (30 10)"). This file writes and reads the OGC simple
// features text: every kind, EMPTY, and Z, M and ZM coordinates.

// ErrInvalidWKT is wrapped by every WKT parsing error.
var ErrInvalidWKT = errkind.New(errkind.InvalidArgument, "invalid WKT")

// WKBToWKT is the WKT text of a WKB value.
func WKBToWKT(wkb []byte) (string, error) {
	g, err := ParseWKB(wkb)
	if err != nil {
		return "", err
	}
	return string(AppendWKT(nil, &g)), nil
}

// WKTToWKB is the little-endian ISO WKB of a WKT text.
func WKTToWKB(text string) ([]byte, error) {
	g, err := ParseWKT(text)
	if err != nil {
		return nil, err
	}
	return AppendWKB(nil, &g), nil
}

// AppendWKT appends g as WKT.
func AppendWKT(dst []byte, g *Geom) []byte {
	dst = append(dst, g.Kind.String()...)
	switch {
	case g.Z && g.M:
		dst = append(dst, " ZM"...)
	case g.Z:
		dst = append(dst, " Z"...)
	case g.M:
		dst = append(dst, " M"...)
	}
	dst = append(dst, ' ')
	return appendWKTBody(dst, g)
}

// appendWKTBody appends what follows the kind: EMPTY or the parenthesised
// coordinates or members.
func appendWKTBody(dst []byte, g *Geom) []byte {
	switch g.Kind {
	case GeomPoint, GeomLineString:
		if len(g.Coords) == 0 {
			return append(dst, "EMPTY"...)
		}
		return appendWKTCoords(dst, g.Coords, g.Dims())
	}
	if len(g.Parts) == 0 {
		return append(dst, "EMPTY"...)
	}
	dst = append(dst, '(')
	for i := range g.Parts {
		if i > 0 {
			dst = append(dst, ", "...)
		}
		p := &g.Parts[i]
		if g.Kind == GeomCollection {
			dst = AppendWKT(dst, p)
		} else {
			dst = appendWKTBody(dst, p)
		}
	}
	return append(dst, ')')
}

func appendWKTCoords(dst []byte, c []float64, dims int) []byte {
	dst = append(dst, '(')
	for i, v := range c {
		switch {
		case i == 0:
		case i%dims == 0:
			dst = append(dst, ", "...)
		default:
			dst = append(dst, ' ')
		}
		dst = appendWKTNumber(dst, v)
	}
	return append(dst, ')')
}

// appendWKTNumber writes the shortest text that reads back to v exactly,
// in positional notation unless the exponent makes that long.
func appendWKTNumber(dst []byte, v float64) []byte {
	if math.IsNaN(v) {
		return append(dst, "NaN"...)
	}
	if a := math.Abs(v); a != 0 && (a >= 1e21 || a < 1e-6) {
		return strconv.AppendFloat(dst, v, 'g', -1, 64)
	}
	return strconv.AppendFloat(dst, v, 'f', -1, 64)
}

type wktParser struct {
	s   string
	pos int
}

func (p *wktParser) fail(format string, args ...any) error {
	return fmt.Errorf("%w at offset %d: %s", ErrInvalidWKT, p.pos, fmt.Sprintf(format, args...))
}

func (p *wktParser) skipSpace() {
	for p.pos < len(p.s) && (p.s[p.pos] == ' ' || p.s[p.pos] == '\t' || p.s[p.pos] == '\n' || p.s[p.pos] == '\r') {
		p.pos++
	}
}

// word reads a run of letters, upper-cased; "" when none.
func (p *wktParser) word() string {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) && (p.s[p.pos]|0x20 >= 'a' && p.s[p.pos]|0x20 <= 'z') {
		p.pos++
	}
	return strings.ToUpper(p.s[start:p.pos])
}

// peekWord is word without consuming it.
func (p *wktParser) peekWord() string {
	save := p.pos
	w := p.word()
	p.pos = save
	return w
}

// punct consumes c if it is next.
func (p *wktParser) punct(c byte) bool {
	p.skipSpace()
	if p.pos < len(p.s) && p.s[p.pos] == c {
		p.pos++
		return true
	}
	return false
}

func (p *wktParser) expect(c byte) error {
	if !p.punct(c) {
		return p.fail("expected %q", c)
	}
	return nil
}

func (p *wktParser) number() (float64, error) {
	p.skipSpace()
	start := p.pos
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		if c == ' ' || c == ',' || c == ')' || c == '(' || c == '\t' || c == '\n' || c == '\r' {
			break
		}
		p.pos++
	}
	text := p.s[start:p.pos]
	if text == "" {
		return 0, p.fail("expected a number")
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return 0, p.fail("%q is not a number", text)
	}
	if math.IsInf(v, 0) {
		return 0, p.fail("coordinate %q is infinite", text)
	}
	return v, nil
}

// ParseWKT reads one WKT geometry. Keywords are matched in any case. A
// coordinate's count of numbers sets Z (3) or ZM (4) when no dimension
// keyword is given.
func ParseWKT(s string) (Geom, error) {
	p := &wktParser{s: s}
	g, err := p.geom(0)
	if err != nil {
		return Geom{}, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return Geom{}, p.fail("text after the geometry")
	}
	return g, nil
}

func (p *wktParser) geom(depth int) (Geom, error) {
	if depth > maxGeomDepth {
		return Geom{}, p.fail("nested deeper than %d", maxGeomDepth)
	}
	name := p.word()
	var g Geom
	for k := GeomPoint; k <= GeomCollection; k++ {
		if name == k.String() {
			g.Kind = k
		}
	}
	if g.Kind == 0 {
		return Geom{}, p.fail("unknown geometry type %q", name)
	}
	dimsKnown := true
	switch p.peekWord() {
	case "Z":
		p.word()
		g.Z = true
	case "M":
		p.word()
		g.M = true
	case "ZM":
		p.word()
		g.Z, g.M = true, true
	default:
		dimsKnown = false
	}
	err := p.body(&g, &dimsKnown, depth)
	return g, err
}

// body reads EMPTY or the parenthesised content of g. dimsKnown tells
// whether g.Z and g.M are settled; the first coordinate settles them.
func (p *wktParser) body(g *Geom, dimsKnown *bool, depth int) error {
	if p.peekWord() == "EMPTY" {
		p.word()
		return nil
	}
	if err := p.expect('('); err != nil {
		return err
	}
	switch g.Kind {
	case GeomPoint, GeomLineString:
		for {
			if err := p.coord(g, dimsKnown); err != nil {
				return err
			}
			if g.Kind == GeomPoint || !p.punct(',') {
				break
			}
		}
	case GeomCollection:
		for {
			m, err := p.geom(depth + 1)
			if err != nil {
				return err
			}
			g.Parts = append(g.Parts, m)
			if !p.punct(',') {
				break
			}
		}
	default:
		member := map[GeomKind]GeomKind{GeomPolygon: GeomLineString, GeomMultiPoint: GeomPoint,
			GeomMultiLineString: GeomLineString, GeomMultiPolygon: GeomPolygon}[g.Kind]
		for {
			m := Geom{Kind: member, Z: g.Z, M: g.M}
			var err error
			if g.Kind == GeomMultiPoint && !p.punct('(') && p.peekWord() != "EMPTY" {
				// MULTIPOINT (1 2, 3 4): points without their parentheses.
				err = p.coord(&m, dimsKnown)
			} else if g.Kind == GeomMultiPoint && p.peekWord() != "EMPTY" {
				if err = p.coord(&m, dimsKnown); err == nil {
					err = p.expect(')')
				}
			} else {
				err = p.body(&m, dimsKnown, depth+1)
			}
			if err != nil {
				return err
			}
			// The first coordinate may have settled the dimensions.
			g.Z, g.M = m.Z, m.M
			g.Parts = append(g.Parts, m)
			if !p.punct(',') {
				break
			}
		}
		for i := range g.Parts {
			if g.Parts[i].Z != g.Z || g.Parts[i].M != g.M {
				return p.fail("members of a %s have different dimensions", g.Kind)
			}
		}
	}
	return p.expect(')')
}

// coord reads one coordinate into g.Coords.
func (p *wktParser) coord(g *Geom, dimsKnown *bool) error {
	var c [4]float64
	n := 0
	for n < 4 {
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] == ',' || p.s[p.pos] == ')' {
			break
		}
		v, err := p.number()
		if err != nil {
			return err
		}
		c[n] = v
		n++
	}
	if !*dimsKnown {
		switch n {
		case 3:
			g.Z = true
		case 4:
			g.Z, g.M = true, true
		}
		*dimsKnown = true
	}
	if n != g.Dims() {
		return p.fail("a coordinate of %d numbers where %d are expected", n, g.Dims())
	}
	g.Coords = append(g.Coords, c[:n]...)
	return nil
}
