package table

import (
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// MetricsEvaluator decides from a file's column metrics (value, null and
// NaN counts, lower and upper bounds, by field id) whether the file may
// hold a row a filter accepts. A column the metrics do not mention might
// hold anything: a file written before the column existed, or by a writer
// that kept no metrics for it. Bounds may be truncated (strings, binary)
// and may be in a column's type before a promotion. Rows are judged as the
// reader's filters judge them: a null fails every comparison (even "!=",
// "not in" and "not like"), a NaN fails all but "!=" and "not in".
//
// An evaluator is safe for concurrent use.
type MetricsEvaluator struct {
	root *boundNode
}

// NewMetricsEvaluator compiles a filter bound to the table schema.
func NewMetricsEvaluator(filter expr.Expr) (*MetricsEvaluator, error) {
	root, err := compileBound(expr.RewriteNot(filter))
	if err != nil {
		return nil, err
	}
	return &MetricsEvaluator{root: root}, nil
}

// MightMatch reports whether f may hold a row the filter accepts; false
// means it certainly holds none.
func (m *MetricsEvaluator) MightMatch(f *manifest.DataFile) bool {
	switch {
	case f.RecordCount == 0:
		return false
	case f.RecordCount < 0:
		return true // a count the writer did not know
	}
	return mightMatch(m.root, f, metricsMayMatch)
}

// columnCounts are one column's counts; a count the metrics lack is
// unknown.
type columnCounts struct {
	values, nulls, nans          int64
	hasValues, hasNulls, hasNaNs bool
}

func countsOf(f *manifest.DataFile, id int) columnCounts {
	var c columnCounts
	c.values, c.hasValues = f.ValueCounts[id]
	c.nulls, c.hasNulls = f.NullValueCounts[id]
	c.nans, c.hasNaNs = f.NaNValueCounts[id]
	return c
}

func (c columnCounts) nullsOnly() bool { return c.hasValues && c.hasNulls && c.values == c.nulls }
func (c columnCounts) noNulls() bool   { return c.hasNulls && c.nulls == 0 }
func (c columnCounts) nansOnly() bool  { return c.hasValues && c.hasNaNs && c.values == c.nans }
func (c columnCounts) noNaNs() bool    { return c.hasNaNs && c.nans == 0 }

func metricsMayMatch(p *boundPredicate, f *manifest.DataFile) bool {
	c := countsOf(f, p.id)
	lower, upper := f.LowerBounds[p.id], f.UpperBounds[p.id]
	switch p.op {
	case expr.OpIsNull:
		return !c.noNulls()
	case expr.OpNotNull:
		return !c.nullsOnly()
	case expr.OpIsNaN:
		return !c.nullsOnly() && !c.noNaNs()
	case expr.OpNotNaN:
		return !c.nansOnly()
	case expr.OpNotEq, expr.OpNotIn:
		// Nulls fail these too, so only the non-null values count; a NaN
		// passes them, so a float column must be known to hold none.
		if c.nullsOnly() {
			return false
		}
		if p.kind == kindFloat && !c.noNaNs() {
			return true
		}
		return !p.uniqueValueExcluded(lower, upper)
	case expr.OpStartsWith:
		return !c.nullsOnly() && p.prefixMayMatch(lower, upper)
	case expr.OpNotStartsWith:
		return !c.nullsOnly() && !p.allStartWithPrefix(lower, upper)
	}
	// Comparisons and in: nulls and NaNs never pass them.
	if c.nullsOnly() || c.nansOnly() {
		return false
	}
	return p.rangeMayMatch(lower, upper)
}
