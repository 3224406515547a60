package table

import (
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/iceberg/manifest"
)

// MetricsEvaluator decides from a file's column metrics (value, null and
// NaN counts, lower and upper bounds, by field id) whether the file may
// hold a row a filter accepts, and whether every row does. A column the
// metrics do not mention might hold anything: a file written before the
// column existed, or by a writer that kept no metrics for it. Bounds may be
// truncated (strings, binary) and may be in a column's type before a
// promotion. Rows are judged as the reader's filters judge them (see
// package bounds, which holds the rules; this file only decodes metrics).
//
// An evaluator is safe for concurrent use.
type MetricsEvaluator struct {
	ev *bounds.Evaluator
}

// NewMetricsEvaluator compiles a filter bound to the table schema.
func NewMetricsEvaluator(filter expr.Expr) (*MetricsEvaluator, error) {
	ev, err := bounds.New(filter)
	if err != nil {
		return nil, err
	}
	return &MetricsEvaluator{ev: ev}, nil
}

// MightMatch reports whether f may hold a row the filter accepts; false
// means it certainly holds none.
func (m *MetricsEvaluator) MightMatch(f *manifest.DataFile) bool {
	if f.RecordCount < 0 {
		return true // a count the writer did not know: its metrics neither
	}
	return m.ev.MightMatch(metricsSource{f})
}

// AllMatch reports whether f's metrics prove that every row of f passes
// the filter.
func (m *MetricsEvaluator) AllMatch(f *manifest.DataFile) bool {
	if f.RecordCount <= 0 {
		return false // nothing to gain from an empty or unknown file
	}
	return m.ev.AllMatch(strictMetricsSource{f})
}

// metricsSource reads one data file's metrics as summaries for "might a
// row match". String and binary bounds may be truncated; equal ones are
// not taken to pin one value there, in case a writer truncated without
// rounding up.
type metricsSource struct{ f *manifest.DataFile }

func (m metricsSource) Rows() int64 { return m.f.RecordCount }

func (m metricsSource) Summary(l *bounds.Leaf) bounds.Summary {
	return summaryOf(m.f, l, l.Domain != bounds.DomainBytes)
}

// strictMetricsSource reads them for "do all rows match". There equal
// string and binary bounds are taken to pin the value, as Iceberg's Java
// strict evaluator takes them: the spec rounds a truncated upper bound
// up, so it never equals the lower one. This is what lets a delete by
// s = 'x' drop a file all of whose rows hold 'x'.
type strictMetricsSource struct{ f *manifest.DataFile }

func (m strictMetricsSource) Rows() int64 { return m.f.RecordCount }

func (m strictMetricsSource) Summary(l *bounds.Leaf) bounds.Summary { return summaryOf(m.f, l, true) }

// summaryOf reads the leaf's column from the compact metrics in one walk,
// building no map: planning asks this of every file a filter reaches.
func summaryOf(f *manifest.DataFile, l *bounds.Leaf, exact bool) bounds.Summary {
	c := f.Metrics.Column(l.FieldID)
	s := bounds.Summary{
		Values: c.ValueCount, HasValues: c.HasValueCount,
		Nulls: c.NullCount, HasNulls: c.HasNullCount,
		NaNs: c.NaNCount, HasNaNs: c.HasNaNCount,
		Exact: exact,
	}
	if c.HasLower {
		s.Lower, s.HasLower = bounds.DecodeBinary(l.Type, c.Lower)
	}
	if c.HasUpper {
		s.Upper, s.HasUpper = bounds.DecodeBinary(l.Type, c.Upper)
	}
	return s
}
