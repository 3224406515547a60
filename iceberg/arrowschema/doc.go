// Package arrowschema is the one mapping between Iceberg and Arrow types
// that readers and writers share: Iceberg types as the Arrow types floe
// returns (ArrowType, ArrowField, ArrowSchema, with PARQUET:field_id
// metadata), variants as Arrow's arrow.parquet.variant extension, and
// geometry and geography as binary tagged geoarrow.wkb with their CRS
// (geo_arrow.go). It knows the format's types and Arrow, nothing of files.
package arrowschema
