package arrowschema

import (
	"encoding/json"

	"github.com/floedb/floe/iceberg"
)

// GeoArrow's extension keys (geoarrow/geoarrow extension-types.md): a
// geometry or geography column is Arrow binary holding WKB, tagged
// geoarrow.wkb, its CRS and (for geography) its edges in the metadata JSON.
// The tag rides on the field metadata, so consumers that know GeoArrow
// (pyarrow with geoarrow-pyarrow, GeoPandas, DuckDB) see geometries and
// others see plain binary.
const (
	ExtensionNameKey     = "ARROW:extension:name"
	ExtensionMetadataKey = "ARROW:extension:metadata"
	GeoArrowWKB          = "geoarrow.wkb"
)

// appendGeoArrowMetadata adds the geoarrow.wkb tag of geo type t. The CRS
// goes in as the string the table names (GeoArrow allows a string when
// the producer has no PROJJSON); a geography's edges are its algorithm's
// name, which GeoArrow spells as Iceberg does ("spherical", "vincenty",
// "thomas", "andoyer", "karney").
func appendGeoArrowMetadata(keys, vals []string, t iceberg.Type) ([]string, []string) {
	var meta struct {
		CRS   string `json:"crs"`
		Edges string `json:"edges,omitempty"`
	}
	switch t := t.(type) {
	case iceberg.GeometryType:
		meta.CRS = t.CRSName()
	case iceberg.GeographyType:
		meta.CRS, meta.Edges = t.CRSName(), t.Algorithm.String()
	}
	raw, _ := json.Marshal(meta)
	return append(keys, ExtensionNameKey, ExtensionMetadataKey), append(vals, GeoArrowWKB, string(raw))
}
