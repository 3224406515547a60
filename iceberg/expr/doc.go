// Package expr owns Iceberg row-filter expressions: the unbound model
// (And, Or, Not, AlwaysTrue, AlwaysFalse and predicates on column names),
// its two input forms (pyiceberg's row_filter text and the REST catalog's
// JSON expressions) and binding to a schema, which resolves column names to
// field ids and converts literals to the columns' canonical Go values.
//
// For planning it also projects bound filters through partition transforms
// (inclusive: a partition the projection rejects holds no matching row;
// strict: a partition it accepts holds only matching rows), evaluates
// filters over partition tuples, and computes the residual a file's
// partition leaves for its rows to decide. Evaluators compiled from a bound
// filter walk it through one Visitor (Visit); the bounds evaluator of
// metrics and statistics is package bounds.
package expr
