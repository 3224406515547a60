// Package fileio is the storage floe reads tables from and commits them
// through: one FileIO interface, a local-filesystem implementation, a Router
// that picks the implementation by a location's scheme, and location
// remapping for tables whose metadata names paths on another system (an HDFS
// cluster, a relative path written by another tool).
//
// The interface is shaped for object stores as much as for files: ranged reads
// of a file whose size is known, a put-if-absent that is the commit primitive
// (link() locally, If-None-Match: * on S3), whole-file replaces, streaming
// writes that only become visible when closed, and flat listing.
//
// # Azure
//
// Azure (azure*.go) serves abfs://, abfss://, wasb:// and wasbs:// through
// the Azure SDK for Go's azblob (v1.8.3, azcore v1.24.0), every request to
// the account's blob endpoint. What it costs: libfloe.so grows by 1.7 MB
// (52.36 MB → 54.09 MB, +3.3 %, measured on the commit that added it); the
// SDK's package initialisers take about 0.15 ms and 45 KB at load; an
// Azure client is made on the first abfs:// or wasb:// operation, sends
// nothing and fetches no credential to be made (no Entra ID, no metadata
// service), so the first Open costs its own request plus a new connection
// (2–4 ms against Azurite on loopback, 2 ms warm). Tables elsewhere pay
// nothing but the binary size.
//
// # Google Cloud Storage
//
// GCS (gcs*.go) serves gs:// through cloud.google.com/go/storage (v1.71.0)
// over its JSON API. What it costs is mostly binary: the library links its
// gRPC client, OpenTelemetry and Cloud Monitoring whether or not they are
// used, and libfloe.so grows by 55 MB (54.09 MB → 109.03 MB, measured on
// the commit that added it: twice the size). Their package initialisers
// take 3.6–4.6 ms and 1.8 MB at load (GODEBUG=inittrace=1 on the CLI, 2
// cores, of 10–16 ms for every package). A client is made on the first
// gs:// operation; with no token, emulator or anonymous setting it looks
// for application default credentials then (and may ask the metadata
// server). A client of our own over the JSON API would save the 55 MB but
// not the library's upkeep of auth, retries and uploads; we pay the size.
package fileio
