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
package fileio
