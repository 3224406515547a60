// Package iceberg is the vocabulary of the Iceberg table format that every
// other part of floe speaks: types, schemas, field lookups by id and name,
// single values (JSON and binary encodings), partition specs and their
// transforms, sort orders and name mappings.
//
// The table format's larger pieces live in sub-packages: metadata (table
// metadata JSON and snapshot selection), manifest (Avro manifest lists and
// manifests), fileio (storage and location remapping) and table (opening a
// table and planning a scan). Nothing here knows Parquet pages, Arrow buffers
// or cgo.
package iceberg
