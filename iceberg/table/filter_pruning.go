package table

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// PruningFilter is a filter bound to one of the table's schemas for
// pruning by the table's metadata: planning, delete and overwrite by
// filter, and filters added to a running scan all judge files through it.
//
// Fields the table's name mapping leaves out read as constants in files
// without field ids, whatever the manifests' metrics say of them (see
// expr.FoldConstants): their predicates are not judged by metrics, and
// their "is null" is not folded by a required flag. Which files lack ids
// is known only from a footer, so this holds for every file.
type PruningFilter struct {
	// Bound is the filter, negations pushed down to the predicates.
	Bound expr.Expr
	// Metrics tells whether a file may hold a matching row.
	Metrics *MetricsEvaluator
	// untrusted reports the fields whose metrics are not to be trusted;
	// nil when there are none, the common case.
	untrusted func(fieldID int) bool
}

// BindPruningFilter binds filter to schema, one of t's. An error from
// binding wraps the binder's.
func (t *Table) BindPruningFilter(filter expr.Expr, schema *iceberg.Schema, caseInsensitive bool) (*PruningFilter, error) {
	unmapped, err := t.UnmappedFields(schema)
	if err != nil {
		return nil, err
	}
	var untrusted func(int) bool
	if len(unmapped) > 0 {
		untrusted = func(id int) bool { return unmapped[id] }
	}
	bound, err := expr.BindNullable(filter, schema, caseInsensitive, untrusted)
	if err != nil {
		return nil, fmt.Errorf("filter: %w", err)
	}
	pf := &PruningFilter{Bound: expr.RewriteNot(bound), untrusted: untrusted}
	if pf.Metrics, err = NewMetricsEvaluator(pf.forget(pf.Bound, true)); err != nil {
		return nil, err
	}
	return pf, nil
}

// forget replaces the predicates on untrusted fields by assume (see
// expr.ForgetFields).
func (pf *PruningFilter) forget(e expr.Expr, assume bool) expr.Expr {
	if pf.untrusted == nil {
		return e
	}
	return expr.ForgetFields(e, pf.untrusted, assume)
}

// allRowsMatch reports whether the metrics of df show that every row
// passes residual, a residual of Bound.
func (pf *PruningFilter) allRowsMatch(residual expr.Expr, df *manifest.DataFile) bool {
	return allRowsMatch(pf.forget(expr.RewriteNot(residual), false), df)
}

// UnmappedFields are the fields of schema that the table's name mapping
// leaves out (none without a mapping, or with one that contradicts the
// schema, since the schema's names are read by then).
func (t *Table) UnmappedFields(schema *iceberg.Schema) (map[int]bool, error) {
	m, err := t.Metadata.NameMapping()
	if err != nil {
		return nil, err
	}
	return iceberg.UnmappedFieldIDs(iceberg.EffectiveNameMapping(m, schema.Fields), schema.Fields), nil
}
