package iceberg

import (
	"encoding/json"
	"fmt"
)

// SortField orders rows by a transform of a source column.
type SortField struct {
	SourceID  int
	Transform Transform
	Direction string // "asc" or "desc"
	NullOrder string // "nulls-first" or "nulls-last"
}

// SortOrder is a numbered list of sort fields; order 0 is "unsorted".
type SortOrder struct {
	OrderID int
	Fields  []SortField
}

type jsonSortField struct {
	SourceID  int    `json:"source-id"`
	Transform string `json:"transform"`
	Direction string `json:"direction"`
	NullOrder string `json:"null-order"`
}

type jsonSortOrder struct {
	OrderID int             `json:"order-id"`
	Fields  []jsonSortField `json:"fields"`
}

// UnmarshalJSON reads a sort order object of table metadata.
func (o *SortOrder) UnmarshalJSON(b []byte) error {
	var js jsonSortOrder
	if err := json.Unmarshal(b, &js); err != nil {
		return fmt.Errorf("bad sort order: %w", err)
	}
	out := SortOrder{OrderID: js.OrderID, Fields: make([]SortField, len(js.Fields))}
	for i, f := range js.Fields {
		t, err := ParseTransform(f.Transform)
		if err != nil {
			return fmt.Errorf("sort order %d: %w", js.OrderID, err)
		}
		if f.Direction != "asc" && f.Direction != "desc" {
			return fmt.Errorf("sort order %d: direction must be asc or desc, not %q", js.OrderID, f.Direction)
		}
		if f.NullOrder != "nulls-first" && f.NullOrder != "nulls-last" {
			return fmt.Errorf("sort order %d: null-order must be nulls-first or nulls-last, not %q", js.OrderID, f.NullOrder)
		}
		out.Fields[i] = SortField{SourceID: f.SourceID, Transform: t, Direction: f.Direction, NullOrder: f.NullOrder}
	}
	*o = out
	return nil
}

// MarshalJSON writes the sort order as table metadata stores it.
func (o SortOrder) MarshalJSON() ([]byte, error) {
	js := jsonSortOrder{OrderID: o.OrderID, Fields: make([]jsonSortField, len(o.Fields))}
	for i, f := range o.Fields {
		js.Fields[i] = jsonSortField{SourceID: f.SourceID, Transform: f.Transform.String(), Direction: f.Direction, NullOrder: f.NullOrder}
	}
	return json.Marshal(js)
}
