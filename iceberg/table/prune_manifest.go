package table

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/expr/bounds"
	"github.com/floedb/floe/iceberg/manifest"
)

// ManifestEvaluator decides from a manifest's partition field summaries
// (has nulls, has NaNs, lower and upper bounds of each partition field over
// the manifest's files) whether the manifest may list a file in a partition
// a partition filter accepts. The filter is bound to the partition struct
// of the manifest's spec, as expr.ProjectInclusive gives it.
//
// An evaluator is safe for concurrent use.
type ManifestEvaluator struct {
	ev *bounds.Evaluator
	// position of each partition field id among the summaries
	position map[int]int
	fields   int
}

// NewManifestEvaluator compiles a partition filter for manifests whose
// partition struct is partType.
func NewManifestEvaluator(partFilter expr.Expr, partType *iceberg.StructType) (*ManifestEvaluator, error) {
	if partType == nil {
		return nil, fmt.Errorf("manifest evaluator: no partition type")
	}
	ev, err := bounds.New(partFilter)
	if err != nil {
		return nil, err
	}
	m := &ManifestEvaluator{ev: ev, position: map[int]int{}, fields: len(partType.Fields)}
	for i, f := range partType.Fields {
		m.position[f.ID] = i
	}
	for _, l := range ev.Leaves() {
		if _, ok := m.position[l.FieldID]; !ok {
			return nil, fmt.Errorf("manifest evaluator: field %d is not a partition field of %s", l.FieldID, partType)
		}
	}
	return m, nil
}

// MightMatch reports whether mf may list a file the filter accepts; false
// means it certainly lists none. A manifest without summaries (or with
// summaries that do not fit the spec) might list anything, but a filter
// that folded to false still matches nothing.
func (m *ManifestEvaluator) MightMatch(mf *manifest.ManifestFile) bool {
	return m.ev.MightMatch(summarySource{m, mf})
}

// summarySource reads a manifest's partition field summaries as summaries.
type summarySource struct {
	m  *ManifestEvaluator
	mf *manifest.ManifestFile
}

func (summarySource) Rows() int64 { return -1 }

func (in summarySource) Summary(l *bounds.Leaf) bounds.Summary {
	var s bounds.Summary
	if len(in.mf.Partitions) != in.m.fields || in.m.fields == 0 {
		return s
	}
	fs := &in.mf.Partitions[in.m.position[l.FieldID]]
	s.HasNulls = !fs.ContainsNull // a count of zero, or unknown
	s.HasNaNs = fs.ContainsNaN != nil && !*fs.ContainsNaN
	if fs.LowerBound != nil {
		s.Lower, s.HasLower = bounds.DecodeBinary(l.Type, fs.LowerBound)
	}
	if fs.UpperBound != nil {
		s.Upper, s.HasUpper = bounds.DecodeBinary(l.Type, fs.UpperBound)
	}
	// Bounds cover the values that are neither null nor NaN: a summary
	// without them has only nulls and NaNs. A bound that is there but does
	// not decode says nothing, and is not its absence.
	s.BoundsComplete = s.HasLower == (fs.LowerBound != nil) && s.HasUpper == (fs.UpperBound != nil)
	s.Exact = l.Domain != bounds.DomainBytes
	return s
}
