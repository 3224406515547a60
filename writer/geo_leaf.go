package writer

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer/parquetfile"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

// Geometry and geography columns are BYTE_ARRAY holding WKB, annotated
// with Parquet's GEOMETRY and GEOGRAPHY logical types (the spec's Parquet
// mapping), which parquet-go writes with the CRS and edge algorithm.

// geoLeaf is the Parquet leaf of a geo type.
func geoLeaf(t iceberg.Type) parquet.Node {
	if g, ok := t.(iceberg.GeographyType); ok {
		// Both enumerations follow the spec's order: spherical, vincenty,
		// thomas, andoyer, karney.
		return parquet.Geography(g.CRSName(), format.EdgeInterpolationAlgorithm(g.Algorithm))
	}
	return parquet.Geometry(t.(iceberg.GeometryType).CRSName())
}

// encodeGeo is encodeLeaf for geo columns: each value must be WKB, and its
// coordinates widen the file's bounding box. The box is kept for every
// value; whether it becomes bounds is geoBounds' call.
func encodeGeo(v *parquetfile.Values, b *valueBuffers, idx []int32, d *leafData, leaf *leafColumn, st *leafStats) error {
	if st.geo == nil {
		st.geo = &iceberg.GeoBox{}
	}
	out := b.bytes[:0]
	for _, i := range idx {
		if i < 0 {
			continue
		}
		x := d.bytesAt(int(i))
		if err := st.geo.AddWKB(x); err != nil {
			return fmt.Errorf("column %q (id %d): %w", leaf.field.Name, leaf.field.ID, err)
		}
		out = append(out, x)
	}
	b.bytes, v.Bytes = out, out
	return nil
}

// geoBounds gives the lower and upper bounds of a geo column in the
// spec's bound serialization, if it has any. A geometry's box is that of
// its coordinates, as edges are straight. A geography's edges are curves
// that can leave the box of their vertices (and cross the antimeridian,
// where the spec lets xmin exceed xmax); floe does not compute those, so a
// geography file gets bounds only when it holds points alone, inside the
// canonical ranges the spec requires of geography bounds.
func geoBounds(t iceberg.Type, box *iceberg.GeoBox) (lower, upper []byte, ok bool) {
	if box == nil {
		return nil, nil, false
	}
	lo, hi, ok := box.Bounds()
	if !ok {
		return nil, nil, false
	}
	if _, geography := t.(iceberg.GeographyType); geography {
		if box.Edges || lo.X < -180 || hi.X > 180 || lo.Y < -90 || hi.Y > 90 {
			return nil, nil, false
		}
	}
	return iceberg.AppendGeoBound(nil, lo), iceberg.AppendGeoBound(nil, hi), true
}
