// Package puffin owns Iceberg's Puffin file format (puffin-spec.md): reading
// and writing the footer and blobs, with the lz4 and zstd codecs, and the
// deletion-vector-v1 blob that v3 tables use for row-level deletes, encoded
// byte for byte as the Java reference implementation writes it.
//
// Deletion vectors are *roaring64.Bitmap values of row positions. The reader
// path never needs a footer: a manifest entry's content_offset and
// content_size_in_bytes locate the blob directly (ReadDeletionVector).
package puffin
