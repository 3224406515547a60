package expr

import (
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// ErrGeoPredicate is the error of a comparison on a geometry or geography
// column. WKB values have no order to compare by; bounding-box predicates
// (and pruning by the geo bounds in manifests) are not implemented yet.
var ErrGeoPredicate = errkind.New(errkind.InvalidArgument, "only is null and is not null apply to geometry and geography columns")

// checkGeoPredicate refuses every predicate on a geo column but the null
// checks, which need no value.
func checkGeoPredicate(p *Predicate, field iceberg.NestedField) error {
	if !iceberg.IsGeo(field.Type) || p.Op == OpIsNull || p.Op == OpNotNull {
		return nil
	}
	return fmt.Errorf("%s %s: column is a %s: %w", p.Column, p.Op, field.Type, ErrGeoPredicate)
}
