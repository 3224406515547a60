package iceberg

import (
	"encoding/json"
	"fmt"

	"github.com/floedb/floe/errkind"
)

// PartitionFieldIDStart is where partition field ids begin: v1 metadata may
// omit them, and they are then numbered from here in spec order.
const PartitionFieldIDStart = 1000

// PartitionField derives one partition value from a source column.
type PartitionField struct {
	SourceID  int
	FieldID   int
	Name      string
	Transform Transform
}

// PartitionSpec is a numbered list of partition fields.
type PartitionSpec struct {
	ID     int
	Fields []PartitionField
}

// IsUnpartitioned reports whether the spec derives no partition values (or
// only void ones, which are always null).
func (s *PartitionSpec) IsUnpartitioned() bool {
	for _, f := range s.Fields {
		if _, void := f.Transform.(VoidTransform); !void {
			return false
		}
	}
	return true
}

// PartitionType is the struct type of the spec's partition tuples under a
// schema. A source column the schema no longer has gives an unknown-typed
// field for void transforms and an error otherwise.
func (s *PartitionSpec) PartitionType(schema *Schema) (*StructType, error) {
	st := &StructType{Fields: make([]NestedField, 0, len(s.Fields))}
	for _, pf := range s.Fields {
		src, ok := schema.FindField(pf.SourceID)
		var rt Type
		switch {
		case ok:
			var err error
			if rt, err = pf.Transform.ResultType(src.Type); err != nil {
				return nil, fmt.Errorf("partition field %q: %w", pf.Name, err)
			}
		case isVoid(pf.Transform):
			rt = UnknownType{}
		default:
			return nil, fmt.Errorf("partition field %q: source column %d is not in schema %d", pf.Name, pf.SourceID, schema.ID)
		}
		st.Fields = append(st.Fields, NestedField{ID: pf.FieldID, Name: pf.Name, Type: rt})
	}
	return st, nil
}

func isVoid(t Transform) bool { _, ok := t.(VoidTransform); return ok }

type jsonPartitionField struct {
	SourceID  *int   `json:"source-id,omitempty"`
	SourceIDs []int  `json:"source-ids,omitempty"`
	FieldID   *int   `json:"field-id,omitempty"`
	Name      string `json:"name"`
	Transform string `json:"transform"`
}

type jsonPartitionSpec struct {
	SpecID int                  `json:"spec-id"`
	Fields []jsonPartitionField `json:"fields"`
}

// ParsePartitionFields reads the fields of a spec; fields without an id (v1)
// are numbered from PartitionFieldIDStart in order.
func ParsePartitionFields(raw json.RawMessage) ([]PartitionField, error) {
	var jfs []jsonPartitionField
	if err := json.Unmarshal(raw, &jfs); err != nil {
		return nil, fmt.Errorf("bad partition fields: %w", err)
	}
	return partitionFieldsFromJSON(jfs)
}

func partitionFieldsFromJSON(jfs []jsonPartitionField) ([]PartitionField, error) {
	out := make([]PartitionField, len(jfs))
	for i, jf := range jfs {
		t, err := ParseTransform(jf.Transform)
		if err != nil {
			return nil, fmt.Errorf("partition field %q: %w", jf.Name, err)
		}
		f := PartitionField{Name: jf.Name, Transform: t, FieldID: PartitionFieldIDStart + i}
		switch {
		case jf.SourceID != nil:
			f.SourceID = *jf.SourceID
		case len(jf.SourceIDs) == 1:
			f.SourceID = jf.SourceIDs[0]
		case len(jf.SourceIDs) > 1:
			return nil, errkind.Errorf(errkind.Unsupported, "partition field %q: multi-argument transforms are not supported", jf.Name)
		default:
			return nil, fmt.Errorf("partition field %q has no source-id", jf.Name)
		}
		if jf.FieldID != nil {
			f.FieldID = *jf.FieldID
		}
		out[i] = f
	}
	return out, nil
}

func partitionFieldsToJSON(fs []PartitionField) []jsonPartitionField {
	out := make([]jsonPartitionField, len(fs))
	for i, f := range fs {
		src, id := f.SourceID, f.FieldID
		out[i] = jsonPartitionField{SourceID: &src, FieldID: &id, Name: f.Name, Transform: f.Transform.String()}
	}
	return out
}

// UnmarshalJSON reads a partition spec object of table metadata.
func (s *PartitionSpec) UnmarshalJSON(b []byte) error {
	var js struct {
		SpecID int             `json:"spec-id"`
		Fields json.RawMessage `json:"fields"`
	}
	if err := json.Unmarshal(b, &js); err != nil {
		return fmt.Errorf("bad partition spec: %w", err)
	}
	fields := []PartitionField{}
	if len(js.Fields) > 0 && string(js.Fields) != "null" {
		var err error
		if fields, err = ParsePartitionFields(js.Fields); err != nil {
			return err
		}
	}
	*s = PartitionSpec{ID: js.SpecID, Fields: fields}
	return nil
}

// MarshalJSON writes the spec as table metadata stores it.
func (s PartitionSpec) MarshalJSON() ([]byte, error) {
	return json.Marshal(jsonPartitionSpec{SpecID: s.ID, Fields: partitionFieldsToJSON(s.Fields)})
}

// MarshalPartitionFields writes just the fields array (the legacy v1
// "partition-spec" form and the manifest header's "partition-spec").
func MarshalPartitionFields(fs []PartitionField) ([]byte, error) {
	return json.Marshal(partitionFieldsToJSON(fs))
}
