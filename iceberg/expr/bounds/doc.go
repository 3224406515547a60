// Package bounds decides from what is known of a set of values — lower and
// upper bounds, null, NaN and value counts — whether a bound filter can
// match one of them (inclusive: "might match") or matches all of them
// (strict: "all match"). Manifest column metrics, partition field
// summaries, Parquet statistics, column indexes and dictionary entries are
// all such summaries: callers only decode their raw bounds into Values and
// fill a Summary; the rules, which follow the reader's row filters (a null
// fails every comparison, "!=" and "not like" included; a NaN passes only
// "is nan", "!=" and "not in"; -0 equals +0), live here once.
//
// It is its own package rather than files of package expr because it has
// its own vocabulary (domains, unboxed values, summaries) that the
// expression model does not need, and because its callers (iceberg/table,
// the Parquet pruner) import it for that vocabulary alone.
package bounds
