package iceberg

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Type is an Iceberg type: a primitive, or a struct, list or map.
type Type interface {
	// String is the type's name in table metadata JSON ("long",
	// "decimal(10, 2)", "fixed[16]"); nested types give a readable form.
	String() string
	isType()
}

// PrimitiveType is any Iceberg type that is not nested.
type PrimitiveType interface {
	Type
	isPrimitive()
}

type (
	BooleanType       struct{}
	IntType           struct{}
	LongType          struct{}
	FloatType         struct{}
	DoubleType        struct{}
	DateType          struct{}
	TimeType          struct{} // microseconds since midnight
	TimestampType     struct{} // microseconds, no zone
	TimestamptzType   struct{} // microseconds, UTC
	TimestampNsType   struct{} // nanoseconds, no zone (v3)
	TimestamptzNsType struct{} // nanoseconds, UTC (v3)
	StringType        struct{}
	UUIDType          struct{}
	BinaryType        struct{}
	UnknownType       struct{} // v3: always null
	DecimalType       struct{ Precision, Scale int }
	FixedType         struct{ Length int }
)

func (BooleanType) String() string       { return "boolean" }
func (IntType) String() string           { return "int" }
func (LongType) String() string          { return "long" }
func (FloatType) String() string         { return "float" }
func (DoubleType) String() string        { return "double" }
func (DateType) String() string          { return "date" }
func (TimeType) String() string          { return "time" }
func (TimestampType) String() string     { return "timestamp" }
func (TimestamptzType) String() string   { return "timestamptz" }
func (TimestampNsType) String() string   { return "timestamp_ns" }
func (TimestamptzNsType) String() string { return "timestamptz_ns" }
func (StringType) String() string        { return "string" }
func (UUIDType) String() string          { return "uuid" }
func (BinaryType) String() string        { return "binary" }
func (UnknownType) String() string       { return "unknown" }
func (t DecimalType) String() string     { return fmt.Sprintf("decimal(%d, %d)", t.Precision, t.Scale) }
func (t FixedType) String() string       { return fmt.Sprintf("fixed[%d]", t.Length) }

func (BooleanType) isType()       {}
func (IntType) isType()           {}
func (LongType) isType()          {}
func (FloatType) isType()         {}
func (DoubleType) isType()        {}
func (DateType) isType()          {}
func (TimeType) isType()          {}
func (TimestampType) isType()     {}
func (TimestamptzType) isType()   {}
func (TimestampNsType) isType()   {}
func (TimestamptzNsType) isType() {}
func (StringType) isType()        {}
func (UUIDType) isType()          {}
func (BinaryType) isType()        {}
func (UnknownType) isType()       {}
func (DecimalType) isType()       {}
func (FixedType) isType()         {}

func (BooleanType) isPrimitive()       {}
func (IntType) isPrimitive()           {}
func (LongType) isPrimitive()          {}
func (FloatType) isPrimitive()         {}
func (DoubleType) isPrimitive()        {}
func (DateType) isPrimitive()          {}
func (TimeType) isPrimitive()          {}
func (TimestampType) isPrimitive()     {}
func (TimestamptzType) isPrimitive()   {}
func (TimestampNsType) isPrimitive()   {}
func (TimestamptzNsType) isPrimitive() {}
func (StringType) isPrimitive()        {}
func (UUIDType) isPrimitive()          {}
func (BinaryType) isPrimitive()        {}
func (UnknownType) isPrimitive()       {}
func (DecimalType) isPrimitive()       {}
func (FixedType) isPrimitive()         {}

// NestedField is a named, numbered field of a struct (and so of a schema).
type NestedField struct {
	ID       int
	Name     string
	Type     Type
	Required bool
	Doc      string
	// InitialDefault is the value readers use for rows written before the
	// field existed; WriteDefault is what writers use when a value is not
	// supplied. Both are in the canonical Go form of Value (nil = none).
	InitialDefault any
	WriteDefault   any
}

// StructType is a tuple of fields.
type StructType struct{ Fields []NestedField }

// ListType is a list whose element is a field of its own.
type ListType struct {
	ElementID       int
	Element         Type
	ElementRequired bool
}

// MapType is a map whose key and value are fields of their own. Keys are
// always required.
type MapType struct {
	KeyID         int
	Key           Type
	ValueID       int
	Value         Type
	ValueRequired bool
}

func (*StructType) isType() {}
func (*ListType) isType()   {}
func (*MapType) isType()    {}

func (t *StructType) String() string {
	parts := make([]string, len(t.Fields))
	for i, f := range t.Fields {
		parts[i] = f.String()
	}
	return "struct<" + strings.Join(parts, ", ") + ">"
}

func (t *ListType) String() string { return "list<" + t.Element.String() + ">" }
func (t *MapType) String() string {
	return "map<" + t.Key.String() + ", " + t.Value.String() + ">"
}

func (f NestedField) String() string {
	req := "optional"
	if f.Required {
		req = "required"
	}
	return fmt.Sprintf("%d: %s: %s %s", f.ID, f.Name, req, f.Type)
}

// Field returns the struct's field with the given id, if it is a direct child.
func (t *StructType) Field(id int) (NestedField, bool) {
	for _, f := range t.Fields {
		if f.ID == id {
			return f, true
		}
	}
	return NestedField{}, false
}

// IsNested reports whether t is a struct, list or map.
func IsNested(t Type) bool {
	switch t.(type) {
	case *StructType, *ListType, *MapType:
		return true
	}
	return false
}

var (
	decimalPattern = regexp.MustCompile(`^decimal\(\s*(\d+)\s*,\s*(\d+)\s*\)$`)
	fixedPattern   = regexp.MustCompile(`^fixed\[\s*(\d+)\s*\]$`)
)

// ParsePrimitiveType parses a primitive type name as table metadata spells it.
func ParsePrimitiveType(name string) (PrimitiveType, error) {
	switch name {
	case "boolean":
		return BooleanType{}, nil
	case "int":
		return IntType{}, nil
	case "long":
		return LongType{}, nil
	case "float":
		return FloatType{}, nil
	case "double":
		return DoubleType{}, nil
	case "date":
		return DateType{}, nil
	case "time":
		return TimeType{}, nil
	case "timestamp":
		return TimestampType{}, nil
	case "timestamptz":
		return TimestamptzType{}, nil
	case "timestamp_ns":
		return TimestampNsType{}, nil
	case "timestamptz_ns":
		return TimestamptzNsType{}, nil
	case "string":
		return StringType{}, nil
	case "uuid":
		return UUIDType{}, nil
	case "binary":
		return BinaryType{}, nil
	case "unknown":
		return UnknownType{}, nil
	case "variant":
		return VariantType{}, nil
	}
	if t, ok, err := parseGeoType(name); ok {
		return t, err
	}
	if m := decimalPattern.FindStringSubmatch(name); m != nil {
		p, _ := strconv.Atoi(m[1])
		s, _ := strconv.Atoi(m[2])
		if p < 1 || p > 38 || s > p {
			return nil, fmt.Errorf("invalid decimal type %q: precision must be 1..38 and scale at most the precision", name)
		}
		return DecimalType{Precision: p, Scale: s}, nil
	}
	if m := fixedPattern.FindStringSubmatch(name); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("invalid fixed type %q", name)
		}
		return FixedType{Length: n}, nil
	}
	return nil, fmt.Errorf("unknown iceberg type %q", name)
}

// jsonType is the union of the nested type objects' JSON fields.
type jsonType struct {
	Type string `json:"type"`
	// struct
	Fields []jsonField `json:"fields,omitempty"`
	// list
	ElementID       *int            `json:"element-id,omitempty"`
	Element         json.RawMessage `json:"element,omitempty"`
	ElementRequired *bool           `json:"element-required,omitempty"`
	// map
	KeyID         *int            `json:"key-id,omitempty"`
	Key           json.RawMessage `json:"key,omitempty"`
	ValueID       *int            `json:"value-id,omitempty"`
	Value         json.RawMessage `json:"value,omitempty"`
	ValueRequired *bool           `json:"value-required,omitempty"`
}

type jsonField struct {
	ID             *int            `json:"id"`
	Name           *string         `json:"name"`
	Required       bool            `json:"required"`
	Type           json.RawMessage `json:"type"`
	Doc            string          `json:"doc,omitempty"`
	InitialDefault json.RawMessage `json:"initial-default,omitempty"`
	WriteDefault   json.RawMessage `json:"write-default,omitempty"`
}

// MaxTypeDepth bounds nesting so hostile metadata cannot exhaust the stack.
const MaxTypeDepth = 256

// ParseTypeJSON parses a type as table metadata JSON encodes it: a string for
// a primitive, an object for struct, list and map.
func ParseTypeJSON(raw json.RawMessage) (Type, error) { return parseTypeJSON(raw, 0) }

func parseTypeJSON(raw json.RawMessage, depth int) (Type, error) {
	if depth > MaxTypeDepth {
		return nil, fmt.Errorf("type nesting deeper than %d", MaxTypeDepth)
	}
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing type")
	}
	if raw[0] == '"' {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return nil, fmt.Errorf("bad type name: %w", err)
		}
		return ParsePrimitiveType(name)
	}
	var jt jsonType
	if err := json.Unmarshal(raw, &jt); err != nil {
		return nil, fmt.Errorf("bad type object: %w", err)
	}
	switch jt.Type {
	case "struct":
		return parseStructFields(jt.Fields, depth)
	case "list":
		if jt.ElementID == nil || jt.Element == nil {
			return nil, fmt.Errorf("list type needs element-id and element")
		}
		elem, err := parseTypeJSON(jt.Element, depth+1)
		if err != nil {
			return nil, fmt.Errorf("list element: %w", err)
		}
		return &ListType{ElementID: *jt.ElementID, Element: elem, ElementRequired: jt.ElementRequired != nil && *jt.ElementRequired}, nil
	case "map":
		if jt.KeyID == nil || jt.ValueID == nil || jt.Key == nil || jt.Value == nil {
			return nil, fmt.Errorf("map type needs key-id, key, value-id and value")
		}
		key, err := parseTypeJSON(jt.Key, depth+1)
		if err != nil {
			return nil, fmt.Errorf("map key: %w", err)
		}
		val, err := parseTypeJSON(jt.Value, depth+1)
		if err != nil {
			return nil, fmt.Errorf("map value: %w", err)
		}
		return &MapType{KeyID: *jt.KeyID, Key: key, ValueID: *jt.ValueID, Value: val, ValueRequired: jt.ValueRequired != nil && *jt.ValueRequired}, nil
	case "variant":
		// The spec writes variant as a string; accept the object form a
		// writer might produce, as the type has no parameters.
		return VariantType{}, nil
	case "geometry", "geography":
		return nil, fmt.Errorf("iceberg type %q is written as a string such as \"%s(OGC:CRS84)\", not as an object", jt.Type, jt.Type)
	}
	return nil, fmt.Errorf("unknown nested type %q", jt.Type)
}

func parseStructFields(fields []jsonField, depth int) (*StructType, error) {
	st := &StructType{Fields: make([]NestedField, 0, len(fields))}
	for i, jf := range fields {
		if jf.ID == nil || jf.Name == nil {
			return nil, fmt.Errorf("struct field %d needs an id and a name", i)
		}
		t, err := parseTypeJSON(jf.Type, depth+1)
		if err != nil {
			return nil, fmt.Errorf("field %q (id %d): %w", *jf.Name, *jf.ID, err)
		}
		f := NestedField{ID: *jf.ID, Name: *jf.Name, Type: t, Required: jf.Required, Doc: jf.Doc}
		if f.InitialDefault, err = parseDefault(t, jf.InitialDefault); err != nil {
			return nil, fmt.Errorf("field %q (id %d) initial-default: %w", f.Name, f.ID, err)
		}
		if f.WriteDefault, err = parseDefault(t, jf.WriteDefault); err != nil {
			return nil, fmt.Errorf("field %q (id %d) write-default: %w", f.Name, f.ID, err)
		}
		st.Fields = append(st.Fields, f)
	}
	return st, nil
}

func parseDefault(t Type, raw json.RawMessage) (any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if IsGeo(t) {
		return nil, fmt.Errorf("a %s column must default to null", t)
	}
	return ValueFromJSON(t, raw)
}

// TypeToJSON gives the JSON form of a type as table metadata writes it.
func TypeToJSON(t Type) (json.RawMessage, error) {
	switch t := t.(type) {
	case *StructType:
		fields := make([]jsonField, len(t.Fields))
		for i, f := range t.Fields {
			jf, err := fieldToJSON(f)
			if err != nil {
				return nil, err
			}
			fields[i] = jf
		}
		return json.Marshal(struct {
			Type   string      `json:"type"`
			Fields []jsonField `json:"fields"`
		}{"struct", fields})
	case *ListType:
		elem, err := TypeToJSON(t.Element)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Type            string          `json:"type"`
			ElementID       int             `json:"element-id"`
			Element         json.RawMessage `json:"element"`
			ElementRequired bool            `json:"element-required"`
		}{"list", t.ElementID, elem, t.ElementRequired})
	case *MapType:
		key, err := TypeToJSON(t.Key)
		if err != nil {
			return nil, err
		}
		val, err := TypeToJSON(t.Value)
		if err != nil {
			return nil, err
		}
		return json.Marshal(struct {
			Type          string          `json:"type"`
			KeyID         int             `json:"key-id"`
			Key           json.RawMessage `json:"key"`
			ValueID       int             `json:"value-id"`
			Value         json.RawMessage `json:"value"`
			ValueRequired bool            `json:"value-required"`
		}{"map", t.KeyID, key, t.ValueID, val, t.ValueRequired})
	case nil:
		return nil, fmt.Errorf("nil type")
	default:
		return json.Marshal(t.String())
	}
}

func fieldToJSON(f NestedField) (jsonField, error) {
	id, name := f.ID, f.Name
	t, err := TypeToJSON(f.Type)
	if err != nil {
		return jsonField{}, err
	}
	jf := jsonField{ID: &id, Name: &name, Required: f.Required, Type: t, Doc: f.Doc}
	if f.InitialDefault != nil {
		if jf.InitialDefault, err = ValueToJSON(f.Type, f.InitialDefault); err != nil {
			return jsonField{}, fmt.Errorf("field %q initial-default: %w", f.Name, err)
		}
	}
	if f.WriteDefault != nil {
		if jf.WriteDefault, err = ValueToJSON(f.Type, f.WriteDefault); err != nil {
			return jsonField{}, fmt.Errorf("field %q write-default: %w", f.Name, err)
		}
	}
	return jf, nil
}
