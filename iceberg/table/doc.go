// Package table opens Iceberg tables (a metadata file, a table directory or
// a warehouse dataset name), selects snapshots, and plans scans: the list of
// data files a snapshot holds, each with the delete files that apply to it.
package table
