// Package testtable builds real Iceberg tables on local disk for tests: a
// few Parquet data files written with parquet-go (field ids, several row
// groups per file, small pages so the page index matters), manifests whose
// entries carry column metrics (value, null and NaN counts, lower and
// upper bounds), an optional partition spec with partition tuples computed
// by the iceberg package's transforms, a manifest list and a v2 metadata
// JSON file.
//
// Tests that check filters and pruning build a table from rows they know
// (Build), then compare what a scan returns with what they expect from
// those rows. Schema and RandomRows give a ready-made table of every common
// primitive type with nulls, NaNs, signed zeros, infinities, long and
// non-ASCII strings and pre-1970 dates, generated from a seed.
//
// Nothing here is used outside tests.
package testtable
