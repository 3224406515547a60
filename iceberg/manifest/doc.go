// Package manifest owns Iceberg's Avro metadata files below the snapshot:
// manifest lists (one entry per manifest of a snapshot) and manifests (one
// entry per data or delete file), in format versions 1 to 3.
//
// Reading resolves every field by its Iceberg field id, never by position
// or Avro name, so files from any writer (old Java, Hive, Impala, files
// round-tripped through avro-tools that lost the Iceberg header) read the
// same way. Values null in a file are inherited as the spec says: snapshot
// ids and sequence numbers from the manifest list entry, v3 first row ids
// from the manifest's first_row_id. Partition tuples come back in the
// canonical Go forms of package iceberg, ordered like the spec's fields.
//
// Writing produces the files Java writes: the same Avro schemas, record
// names and field ids, and the Iceberg key/value header metadata.
//
// The Avro library github.com/twmb/avro parses and validates schemas,
// supplies the block codecs and writes the container files; records are
// decoded by plans compiled per writer schema (plan.go) and encoded by
// hand (avroenc.go), because its reflection-based path was several times
// slower on manifests.
package manifest
