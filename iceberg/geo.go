package iceberg

import (
	"fmt"
	"regexp"
	"strings"
)

// DefaultCRS is the CRS of a geometry or geography type that names none:
// longitude, latitude on the WGS84 datum.
const DefaultCRS = "OGC:CRS84"

// EdgeAlgorithm is how a geography's edges are interpolated between
// vertices. The zero value is the spec's default, spherical.
type EdgeAlgorithm uint8

const (
	EdgeSpherical EdgeAlgorithm = iota
	EdgeVincenty
	EdgeThomas
	EdgeAndoyer
	EdgeKarney
)

var edgeAlgorithmNames = [...]string{"spherical", "vincenty", "thomas", "andoyer", "karney"}

func (a EdgeAlgorithm) String() string {
	if int(a) < len(edgeAlgorithmNames) {
		return edgeAlgorithmNames[a]
	}
	return fmt.Sprintf("EdgeAlgorithm(%d)", uint8(a))
}

// ParseEdgeAlgorithm reads an algorithm name, in any case (as Java does).
func ParseEdgeAlgorithm(s string) (EdgeAlgorithm, error) {
	for i, n := range edgeAlgorithmNames {
		if strings.EqualFold(s, n) {
			return EdgeAlgorithm(i), nil
		}
	}
	return 0, fmt.Errorf("invalid edge interpolation algorithm %q (one of %s)", s, strings.Join(edgeAlgorithmNames[:], ", "))
}

// GeometryType is v3's geometry(C): OGC simple features as WKB, planar
// edges, in the CRS C. CRS "" is the default, DefaultCRS; parsing keeps that
// form, so two spellings of the same type compare equal with ==.
type GeometryType struct{ CRS string }

// GeographyType is v3's geography(C, A): WKB on a geographic CRS C (""
// meaning DefaultCRS), edges interpolated by algorithm A.
type GeographyType struct {
	CRS       string
	Algorithm EdgeAlgorithm
}

// CRSName is the type's CRS with the default spelled out.
func (t GeometryType) CRSName() string { return crsName(t.CRS) }

// CRSName is the type's CRS with the default spelled out.
func (t GeographyType) CRSName() string { return crsName(t.CRS) }

func crsName(crs string) string {
	if crs == "" {
		return DefaultCRS
	}
	return crs
}

// String is the canonical form of the spec's schema table (and of Java):
// parameters always written, defaults included.
func (t GeometryType) String() string { return "geometry(" + t.CRSName() + ")" }
func (t GeographyType) String() string {
	return "geography(" + t.CRSName() + ", " + t.Algorithm.String() + ")"
}

func (GeometryType) isType()       {}
func (GeographyType) isType()      {}
func (GeometryType) isPrimitive()  {}
func (GeographyType) isPrimitive() {}

// IsGeo reports whether t is geometry or geography.
func IsGeo(t Type) bool {
	switch t.(type) {
	case GeometryType, GeographyType:
		return true
	}
	return false
}

// The spec asks readers to accept whitespace around parameters and
// separators; the keyword itself is matched in any case, as Java does.
var (
	geometryPattern  = regexp.MustCompile(`(?i)^geometry\s*(?:\(\s*([^(),]*?)\s*\))?$`)
	geographyPattern = regexp.MustCompile(`(?i)^geography\s*(?:\(\s*([^(),]*?)\s*(?:,\s*([^(),]*?)\s*)?\))?$`)
)

// parseGeoType parses geometry, geometry(C), geography, geography(C) and
// geography(C, A); ok is false when name is neither keyword.
func parseGeoType(name string) (t PrimitiveType, ok bool, err error) {
	if m := geometryPattern.FindStringSubmatch(name); m != nil {
		crs, err := geoCRS(name, m[1], strings.Contains(name, "("))
		return GeometryType{CRS: crs}, true, err
	}
	if m := geographyPattern.FindStringSubmatch(name); m != nil {
		crs, err := geoCRS(name, m[1], strings.Contains(name, "("))
		if err != nil {
			return nil, true, err
		}
		g := GeographyType{CRS: crs}
		if strings.Contains(name, ",") {
			if g.Algorithm, err = ParseEdgeAlgorithm(m[2]); err != nil {
				return nil, true, fmt.Errorf("type %q: %w", name, err)
			}
		}
		return g, true, nil
	}
	lower := strings.ToLower(name)
	if strings.HasPrefix(lower, "geometry") || strings.HasPrefix(lower, "geography") {
		return nil, true, fmt.Errorf("invalid geospatial type %q: expected geometry(C) or geography(C, A)", name)
	}
	return nil, false, nil
}

// geoCRS checks a CRS parameter: written parentheses need a CRS, and the
// default in any case becomes "".
func geoCRS(name, crs string, parenthesised bool) (string, error) {
	if parenthesised && crs == "" {
		return "", fmt.Errorf("invalid geospatial type %q: empty CRS", name)
	}
	if strings.EqualFold(crs, DefaultCRS) {
		return "", nil
	}
	return crs, nil
}
