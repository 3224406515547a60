// Package prune turns a Parquet file's own structures into the rows a
// filter can match: row-group statistics (with the legacy min/max and the
// bounds writers are known to get wrong: knownBadFloatBounds), dictionaries
// of fully dictionary-encoded chunks, split-block bloom filters for = and
// in, and column/offset indexes that narrow a row group to page-aligned
// row ranges (RowGroup). Values are compared in their physical form,
// decoded once per literal (prune_values.go), never per row.
//
// It knows Parquet (package parquet) and bound expressions (iceberg/expr),
// nothing of tables, manifests, storage or scans: the caller maps field
// ids to schema nodes and hands over the filter bound to the file.
package prune
