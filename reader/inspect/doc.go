// Package inspect reads a table's metadata tables — Java's and
// pyiceberg's snapshots, history, metadata_log_entries, refs, manifests,
// entries, files, … — as Arrow record streams, with what an ordinary scan
// offers: column selection, a filter over the table's columns, a limit,
// and the snapshot or ref to look at where Java allows one.
//
// Each metadata table is a Kind with an Iceberg schema (its column names
// and types as Java and pyiceberg define them) and a source of rows in the
// canonical Go forms of package iceberg, streamed: a row is built,
// filtered (expr.TupleEvaluator) and appended to the batch being filled
// (arrowschema.AppendValue, the one conversion of values that arrive one
// at a time), so memory follows the batch and what its source holds, never
// the whole metadata table. A source of manifest entries reads manifests
// one at a time.
package inspect
