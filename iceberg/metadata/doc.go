// Package metadata owns Iceberg table metadata JSON (format versions 1 to 3):
// parsing it, including the legacy v1 form with a single schema and
// partition spec, checking it, writing it back, and choosing a snapshot by
// id, branch or tag, or time, and the edits commits make to a copy of it
// (builder.go: adding snapshots, moving branches, logs, expiry).
//
// Opening a table (version hints, catalogs, gzip) is not done here; callers
// hand Parse the bytes of one metadata file.
package metadata
