package action

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
)

// Null orders of a sort field; "" takes the default, nulls first
// ascending and nulls last descending (iceberg.DefaultNullOrder), as Java
// does.
const (
	NullsFirst = "nulls-first"
	NullsLast  = "nulls-last"
)

// ReplaceSortOrder replaces the table's default sort order (Java's
// ReplaceSortOrder, pyiceberg's update_sort_order): the fields given, in
// order, each a transform of a source column (a dotted name), ascending or
// descending. No field at all is the unsorted order, order 0. Build adds
// the order (its id one above the highest, at least 1) and makes it the
// default, or makes an equal existing order the default again, or does
// nothing when the default is that order already. The zero value is
// ready to use.
type ReplaceSortOrder struct {
	fields          []sortFieldOp
	caseInsensitive bool
	err             error
}

type sortFieldOp struct {
	source    string
	transform iceberg.Transform
	direction string
	nullOrder string
}

func (*ReplaceSortOrder) Name() string { return "update-sort-order" }

// Asc sorts by transform (nil: identity) of source, ascending; nullOrder
// NullsFirst, NullsLast or "" (nulls first).
func (r *ReplaceSortOrder) Asc(source string, transform iceberg.Transform, nullOrder string) *ReplaceSortOrder {
	return r.add(source, transform, "asc", nullOrder)
}

// Desc sorts by transform (nil: identity) of source, descending;
// nullOrder NullsFirst, NullsLast or "" (nulls last).
func (r *ReplaceSortOrder) Desc(source string, transform iceberg.Transform, nullOrder string) *ReplaceSortOrder {
	return r.add(source, transform, "desc", nullOrder)
}

// CaseSensitive sets whether source column names match case exactly
// (the default) or ignoring case, for every field.
func (r *ReplaceSortOrder) CaseSensitive(sensitive bool) *ReplaceSortOrder {
	r.caseInsensitive = !sensitive
	return r
}

func (r *ReplaceSortOrder) add(source string, t iceberg.Transform, direction, nullOrder string) *ReplaceSortOrder {
	switch nullOrder {
	case "":
		nullOrder = iceberg.DefaultNullOrder(direction)
	case NullsFirst, NullsLast:
	default:
		if r.err == nil {
			r.err = invalid("sort field %q: null order must be %s or %s, not %q", source, NullsFirst, NullsLast, nullOrder)
		}
		return r
	}
	if t == nil {
		t = iceberg.IdentityTransform{}
	}
	r.fields = append(r.fields, sortFieldOp{source: source, transform: t, direction: direction, nullOrder: nullOrder})
	return r
}

func (r *ReplaceSortOrder) Build(md *metadata.Metadata) ([]metadata.Update, error) {
	if r.err != nil {
		return nil, r.err
	}
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, invalid("the table has no current schema")
	}
	order := iceberg.SortOrder{Fields: make([]iceberg.SortField, len(r.fields))}
	for i, f := range r.fields {
		what := fmt.Sprintf("sort field %s(%s)", f.transform, f.source)
		src, err := sourceColumn(schema, f.source, !r.caseInsensitive, what)
		if err != nil {
			return nil, err
		}
		if _, primitive := src.Type.(iceberg.PrimitiveType); !primitive {
			return nil, invalid("%s: column %q is a %s, not a primitive", what, f.source, src.Type)
		}
		if err := checkSourceType(src, f.source, f.transform, what); err != nil {
			return nil, err
		}
		order.Fields[i] = iceberg.SortField{SourceID: src.ID, Transform: f.transform, Direction: f.direction, NullOrder: f.nullOrder}
	}
	if len(order.Fields) > 0 {
		order.OrderID = 1
	}
	for _, o := range md.SortOrders {
		if sameSortOrder(o.Fields, order.Fields) {
			if o.OrderID == md.DefaultSortOrderID {
				return nil, nil
			}
			return []metadata.Update{metadata.SetDefaultSortOrder{SortOrderID: o.OrderID}}, nil
		}
		if len(order.Fields) > 0 {
			order.OrderID = max(order.OrderID, o.OrderID+1)
		}
	}
	return []metadata.Update{metadata.AddSortOrder{SortOrder: order}, metadata.SetDefaultSortOrder{SortOrderID: -1}}, nil
}

// sameSortOrder: the same fields in order, each with the same source,
// transform, direction and null order (Java's sameOrder).
func sameSortOrder(a, b []iceberg.SortField) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].SourceID != b[i].SourceID || a[i].Transform.String() != b[i].Transform.String() ||
			a[i].Direction != b[i].Direction || a[i].NullOrder != b[i].NullOrder {
			return false
		}
	}
	return true
}
