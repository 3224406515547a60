package table

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
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
	root *boundNode
	// position of each partition field id among the summaries
	position map[int]int
	types    []iceberg.Type
}

// NewManifestEvaluator compiles a partition filter for manifests whose
// partition struct is partType.
func NewManifestEvaluator(partFilter expr.Expr, partType *iceberg.StructType) (*ManifestEvaluator, error) {
	if partType == nil {
		return nil, fmt.Errorf("manifest evaluator: no partition type")
	}
	root, err := compileBound(expr.RewriteNot(partFilter))
	if err != nil {
		return nil, err
	}
	m := &ManifestEvaluator{root: root, position: map[int]int{}}
	for i, f := range partType.Fields {
		m.position[f.ID] = i
		m.types = append(m.types, f.Type)
	}
	var bad error
	var check func(n *boundNode)
	check = func(n *boundNode) {
		switch n.kind {
		case boundAnd, boundOr:
			check(n.left)
			check(n.right)
		case boundLeaf:
			if _, ok := m.position[n.pred.id]; !ok && bad == nil {
				bad = fmt.Errorf("manifest evaluator: field %d is not a partition field of %s", n.pred.id, partType)
			}
		}
	}
	check(root)
	if bad != nil {
		return nil, bad
	}
	return m, nil
}

type summaryInput struct {
	m  *ManifestEvaluator
	mf *manifest.ManifestFile
}

// MightMatch reports whether mf may list a file the filter accepts; false
// means it certainly lists none. A manifest without summaries (or with
// summaries that do not fit the spec) might list anything.
func (m *ManifestEvaluator) MightMatch(mf *manifest.ManifestFile) bool {
	if len(mf.Partitions) != len(m.types) || len(m.types) == 0 {
		// Nothing is known of any partition field, but a filter that folded
		// to false still matches nothing.
		return mightMatch(m.root, summaryInput{m, mf}, unknownMayMatch)
	}
	return mightMatch(m.root, summaryInput{m, mf}, summaryMayMatch)
}

func unknownMayMatch(*boundPredicate, summaryInput) bool { return true }

func summaryMayMatch(p *boundPredicate, in summaryInput) bool {
	s := &in.mf.Partitions[in.m.position[p.id]]
	// Bounds cover the values that are neither null nor NaN: a summary
	// without them has only nulls and NaNs.
	lower, upper := s.LowerBound, s.UpperBound
	noBounds := lower == nil && upper == nil
	nanKnown := s.ContainsNaN != nil
	switch p.op {
	case expr.OpIsNull:
		return s.ContainsNull
	case expr.OpNotNull:
		// Only nulls when there are no bounds and, for floats, surely no NaN.
		return !(s.ContainsNull && noBounds && (p.kind != kindFloat || nanKnown && !*s.ContainsNaN))
	case expr.OpIsNaN:
		return !nanKnown || *s.ContainsNaN
	case expr.OpNotNaN:
		return !(nanKnown && *s.ContainsNaN && !s.ContainsNull && noBounds)
	case expr.OpNotEq, expr.OpNotIn:
		// Null partitions fail these (their rows are null); NaN ones pass.
		if p.kind == kindFloat && (!nanKnown || *s.ContainsNaN) {
			return true
		}
		return !noBounds && !p.uniqueValueExcluded(lower, upper)
	case expr.OpStartsWith:
		return !noBounds && p.prefixMayMatch(lower, upper)
	case expr.OpNotStartsWith:
		return !noBounds && !p.allStartWithPrefix(lower, upper)
	}
	// Comparisons and in: only values within the bounds can pass.
	if noBounds {
		return false
	}
	return p.rangeMayMatch(lower, upper)
}
