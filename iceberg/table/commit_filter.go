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
// bound filter.
func allRowsMatch(filter expr.Expr, df *manifest.DataFile) bool {
	m, err := NewMetricsEvaluator(filter)
	return err == nil && m.AllMatch(df)
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
