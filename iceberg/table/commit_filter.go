package table

import (
	"fmt"

	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// fileMatch is how a row filter relates to the rows of one file.
type fileMatch uint8

const (
	matchNone fileMatch = iota // no row passes
	matchAll                   // every row passes
	matchSome                  // some may pass, some may not
)

// fileFilter decides, from partition tuples and column metrics, whether
// all, none or some of a file's rows pass a filter: what a delete or
// overwrite by filter needs, since it can drop whole files only.
type fileFilter struct {
	t      *Table
	filter *PruningFilter
	specs  map[int]*specFilter
}

type specFilter struct {
	inclusive *expr.TupleEvaluator
	residuals *expr.ResidualEvaluator
	// unpartitioned specs decide nothing from partitions.
	unpartitioned bool
}

func newFileFilter(t *Table, filter expr.Expr) (*fileFilter, error) {
	pf, err := t.BindPruningFilter(filter, t.Metadata.CurrentSchema(), false)
	if err != nil {
		return nil, err
	}
	return &fileFilter{t: t, filter: pf, specs: map[int]*specFilter{}}, nil
}

func (f *fileFilter) spec(id int) (*specFilter, error) {
	if sf, ok := f.specs[id]; ok {
		return sf, nil
	}
	spec := f.t.Metadata.SpecByID(id)
	if spec == nil {
		return nil, fmt.Errorf("partition spec %d is not in the table", id)
	}
	partType, err := f.t.PartitionType(spec)
	if err != nil {
		return nil, err
	}
	projected, err := expr.ProjectInclusive(f.filter.Bound, spec, partType)
	if err != nil {
		return nil, err
	}
	sf := &specFilter{unpartitioned: spec.IsUnpartitioned()}
	if sf.inclusive, err = expr.NewTupleEvaluator(projected, partType); err != nil {
		return nil, err
	}
	if sf.residuals, err = expr.NewResidualEvaluator(f.filter.Bound, spec, partType); err != nil {
		return nil, err
	}
	f.specs[id] = sf
	return sf, nil
}

// dataFile classifies a data file's rows.
func (f *fileFilter) dataFile(df *manifest.DataFile) (fileMatch, error) {
	sf, err := f.spec(df.SpecID)
	if err != nil {
		return matchSome, err
	}
	if !sf.inclusive.Eval(df.Partition) || !f.filter.Metrics.MightMatch(df) {
		return matchNone, nil
	}
	residual := sf.residuals.Residual(df.Partition)
	switch residual.(type) {
	case expr.AlwaysTrue:
		return matchAll, nil
	case expr.AlwaysFalse:
		return matchNone, nil
	}
	if df.RecordCount > 0 && f.filter.allRowsMatch(residual, df) {
		return matchAll, nil
	}
	return matchSome, nil
}

// wholePartition reports whether every row of the file's partition passes
// the filter: delete files there have nothing left to apply to once the
// partition's data files are gone.
func (f *fileFilter) wholePartition(df *manifest.DataFile) (bool, error) {
	sf, err := f.spec(df.SpecID)
	if err != nil {
		return false, err
	}
	_, all := sf.residuals.Residual(df.Partition).(expr.AlwaysTrue)
	return all, nil
}

// mightMatch reports whether a file may hold a row the filter accepts.
func (f *fileFilter) mightMatch(df *manifest.DataFile) (bool, error) {
	sf, err := f.spec(df.SpecID)
	if err != nil {
		return true, err
	}
	if !sf.inclusive.Eval(df.Partition) {
		return false, nil
	}
	return df.Content != manifest.ContentData || f.filter.Metrics.MightMatch(df), nil
}

// allRowsMatch reports whether a file's metrics prove every row passes a
// bound filter (negations pushed down). Nulls fail every comparison and
// NaNs every comparison but != and not in, as in the reader's filters, so
// a column must be known to hold neither.
func allRowsMatch(filter expr.Expr, df *manifest.DataFile) bool {
	root, err := compileBound(expr.RewriteNot(filter))
	if err != nil {
		return false
	}
	return mightMatch(root, df, metricsAllMatch)
}

func metricsAllMatch(p *boundPredicate, f *manifest.DataFile) bool {
	c := countsOf(f, p.id)
	switch p.op {
	case expr.OpIsNull:
		return c.nullsOnly()
	case expr.OpNotNull:
		return c.noNulls()
	case expr.OpIsNaN:
		return c.nansOnly()
	case expr.OpNotNaN:
		return c.noNulls() && (p.kind != kindFloat || c.noNaNs())
	}
	if !c.noNulls() || p.kind == kindUnsupported || p.literals() == 0 {
		return false
	}
	if p.kind == kindFloat && !c.noNaNs() {
		return false
	}
	lowerRaw, upperRaw := f.LowerBounds[p.id], f.UpperBounds[p.id]
	if lowerRaw == nil || upperRaw == nil {
		return false
	}
	if p.op == expr.OpStartsWith {
		return p.allStartWithPrefix(lowerRaw, upperRaw)
	}
	lo, okLo := p.decodeBound(lowerRaw)
	hi, okHi := p.decodeBound(upperRaw)
	if !okLo || !okHi {
		return false
	}
	outside := func(i int) bool { return p.compare(lo, i) > 0 || p.compare(hi, i) < 0 }
	switch p.op {
	case expr.OpLt:
		return p.compare(hi, 0) < 0
	case expr.OpLtEq:
		return p.compare(hi, 0) <= 0
	case expr.OpGt:
		return p.compare(lo, 0) > 0
	case expr.OpGtEq:
		return p.compare(lo, 0) >= 0
	case expr.OpEq, expr.OpIn:
		// Equal bounds pin every value, truncated strings aside: a
		// truncated upper bound is rounded up, so it never equals the lower.
		if p.compare(lo, 0) != 0 && p.op == expr.OpEq {
			return false
		}
		for i := range p.literals() {
			if p.compare(lo, i) == 0 && p.compare(hi, i) == 0 {
				return true
			}
		}
		return false
	case expr.OpNotEq, expr.OpNotIn:
		for i := range p.literals() {
			if !outside(i) {
				return false
			}
		}
		return true
	}
	return false
}

// describePartition renders a file's partition for messages.
func describePartition(t *Table, df *manifest.DataFile) string {
	spec := t.Metadata.SpecByID(df.SpecID)
	if spec == nil || len(spec.Fields) == 0 {
		return "the unpartitioned table"
	}
	pt, err := t.PartitionType(spec)
	if err != nil {
		return fmt.Sprint(df.Partition)
	}
	return fmt.Sprintf("partition %s (spec %d)", spec.PartitionPath(pt, df.Partition), spec.ID)
}
