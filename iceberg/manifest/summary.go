package manifest

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
)

// partitionStats accumulates the manifest-list field summary of one
// partition field over every entry of a manifest, as Java's
// PartitionSummary does (DELETED entries included).
type partitionStats struct {
	t            iceberg.Type
	containsNull bool
	containsNaN  bool
	min, max     any
}

func (s *partitionStats) update(v any) {
	switch {
	case v == nil:
		s.containsNull = true
	case isNaN(v):
		s.containsNaN = true
	case s.min == nil:
		s.min, s.max = v, v
	default:
		if iceberg.Compare(s.t, v, s.min) < 0 {
			s.min = v
		}
		if iceberg.Compare(s.t, v, s.max) > 0 {
			s.max = v
		}
	}
}

func (s *partitionStats) summary() (FieldSummary, error) {
	nan := s.containsNaN
	fs := FieldSummary{ContainsNull: s.containsNull, ContainsNaN: &nan}
	if s.min == nil {
		return fs, nil
	}
	var err error
	if fs.LowerBound, err = iceberg.ValueToBytes(s.t, s.min); err != nil {
		return fs, fmt.Errorf("partition lower bound: %w", err)
	}
	if fs.UpperBound, err = iceberg.ValueToBytes(s.t, s.max); err != nil {
		return fs, fmt.Errorf("partition upper bound: %w", err)
	}
	return fs, nil
}
