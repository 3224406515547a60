package expr

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/floedb/floe/errkind"
)

// ParseJSON reads the REST catalog's JSON expression form (the Predicate
// schema of rest-catalog-open-api.yaml): {"type":"and","left":…,"right":…},
// {"type":"not","child":…}, {"type":"lt","term":"x","value":5},
// {"type":"in","term":"x","values":[…]}, {"type":"is-null","term":"x"},
// true/false bare or as {"type":"true"}. Both the legacy term/value fields
// and the newer child/left/right with {"type":"reference","name":…} and
// {"type":"literal","value":…} wrappers are accepted. Transforms, id
// references and function applications are rejected.
func ParseJSON(data []byte) (Expr, error) {
	return parseJSONExpr(data, 0)
}

func parseJSONExpr(raw json.RawMessage, depth int) (Expr, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("expression nests deeper than %d levels", maxDepth)
	}
	raw = bytes.TrimSpace(raw)
	switch string(raw) {
	case "true":
		return AlwaysTrue{}, nil
	case "false":
		return AlwaysFalse{}, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("expression must be a JSON object or boolean, got %s", abbreviate(raw))
	}
	var typ string
	if err := json.Unmarshal(obj["type"], &typ); err != nil {
		return nil, fmt.Errorf("expression needs a string \"type\", got %s", abbreviate(raw))
	}
	switch typ {
	case "true":
		return AlwaysTrue{}, nil
	case "false":
		return AlwaysFalse{}, nil
	case "and", "or":
		left, err := requiredChild(obj, "left", typ, depth)
		if err != nil {
			return nil, err
		}
		right, err := requiredChild(obj, "right", typ, depth)
		if err != nil {
			return nil, err
		}
		if typ == "and" {
			return &And{Left: left, Right: right}, nil
		}
		return &Or{Left: left, Right: right}, nil
	case "not":
		child, err := requiredChild(obj, "child", typ, depth)
		if err != nil {
			return nil, err
		}
		return &Not{Child: child}, nil
	}
	op, ok := opFromJSONName(typ)
	if !ok {
		return nil, fmt.Errorf("unknown expression type %q", typ)
	}
	return parseJSONPredicate(op, obj)
}

func requiredChild(obj map[string]json.RawMessage, key, typ string, depth int) (Expr, error) {
	raw, ok := obj[key]
	if !ok {
		return nil, fmt.Errorf("%q expression needs %q", typ, key)
	}
	return parseJSONExpr(raw, depth+1)
}

func parseJSONPredicate(op Op, obj map[string]json.RawMessage) (Expr, error) {
	termKey := "term"
	if _, ok := obj[termKey]; !ok {
		termKey = "child"
		if !op.IsUnary() && !op.IsSet() {
			termKey = "left"
		}
	}
	termRaw, ok := obj[termKey]
	if !ok {
		return nil, fmt.Errorf("%q predicate needs \"term\"", op.JSONName())
	}
	column, err := parseJSONTerm(termRaw)
	if err != nil {
		return nil, fmt.Errorf("%q predicate: %w", op.JSONName(), err)
	}
	var values []any
	switch {
	case op.IsUnary():
	case op.IsSet():
		raw, ok := obj["values"]
		if !ok {
			return nil, fmt.Errorf("%q predicate needs \"values\"", op.JSONName())
		}
		if values, err = parseJSONLiterals(raw); err != nil {
			return nil, fmt.Errorf("%q predicate on %s: %w", op.JSONName(), column, err)
		}
	default:
		key := "value"
		if _, ok := obj[key]; !ok {
			key = "right"
		}
		raw, ok := obj[key]
		if !ok {
			return nil, fmt.Errorf("%q predicate needs \"value\"", op.JSONName())
		}
		v, err := parseJSONLiteral(raw)
		if err != nil {
			return nil, fmt.Errorf("%q predicate on %s: %w", op.JSONName(), column, err)
		}
		values = []any{v}
	}
	pred, err := NewPredicate(op, column, values...)
	if err != nil {
		return nil, err
	}
	return pred, nil
}

func parseJSONTerm(raw json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		if name == "" {
			return "", fmt.Errorf("empty column name")
		}
		return name, nil
	}
	var ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil || ref.Type != "reference" || ref.Name == "" {
		return "", errkind.Errorf(errkind.Unsupported, "term must be a column name or {\"type\":\"reference\",\"name\":…}; got %s (transforms, id references and functions are not supported)", abbreviate(raw))
	}
	return ref.Name, nil
}

func parseJSONLiterals(raw json.RawMessage) ([]any, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var typed struct {
			Type   string            `json:"type"`
			Values []json.RawMessage `json:"values"`
		}
		if err := json.Unmarshal(raw, &typed); err != nil || typed.Type != "literals" {
			return nil, fmt.Errorf("values must be an array, got %s", abbreviate(raw))
		}
		items = typed.Values
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("values is empty")
	}
	out := make([]any, len(items))
	for i, item := range items {
		v, err := parseJSONLiteral(item)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// parseJSONLiteral reads a bare value or {"type":"literal","value":…}.
// Typed literals' data-type is ignored: binding applies the column's type.
func parseJSONLiteral(raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '{' {
		var typed struct {
			Type  string          `json:"type"`
			Value json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(raw, &typed); err != nil || typed.Type != "literal" || typed.Value == nil {
			return nil, fmt.Errorf("literal must be a value or {\"type\":\"literal\",\"value\":…}, got %s", abbreviate(raw))
		}
		raw = bytes.TrimSpace(typed.Value)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("missing literal")
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, fmt.Errorf("bad string literal %s", abbreviate(raw))
		}
		return s, nil
	case 't', 'f':
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("bad literal %s", abbreviate(raw))
		}
		return b, nil
	case 'n':
		return nil, fmt.Errorf("null literal never matches; use is-null")
	}
	var num json.Number
	if err := json.Unmarshal(raw, &num); err != nil {
		return nil, fmt.Errorf("literal must be a string, number or boolean, got %s", abbreviate(raw))
	}
	v, err := numberLiteral(num.String())
	if err != nil {
		return nil, fmt.Errorf("bad number literal %s", abbreviate(raw))
	}
	return v, nil
}

func abbreviate(b []byte) string {
	if len(b) > 60 {
		return string(b[:60]) + "…"
	}
	return string(b)
}

// MarshalJSON writes an expression in the REST catalog's JSON form, using
// the term/value fields every catalog version reads and bare booleans for
// the constants. Bound predicates are written with the column as the filter
// named it and their typed literals in Iceberg's JSON single-value form (see
// json_bound.go), which ParseJSON and Bind read back to an equal predicate.
func MarshalJSON(e Expr) ([]byte, error) {
	var buf bytes.Buffer
	if err := writeJSON(&buf, e); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func writeJSON(buf *bytes.Buffer, e Expr) error {
	switch e := e.(type) {
	case AlwaysTrue:
		buf.WriteString("true")
	case AlwaysFalse:
		buf.WriteString("false")
	case *And:
		return writeJSONBinary(buf, "and", e.Left, e.Right)
	case *Or:
		return writeJSONBinary(buf, "or", e.Left, e.Right)
	case *Not:
		buf.WriteString(`{"type":"not","child":`)
		if err := writeJSON(buf, e.Child); err != nil {
			return err
		}
		buf.WriteByte('}')
	case *Predicate:
		return writeJSONPredicate(buf, e)
	case *BoundPredicate:
		return writeJSONBoundPredicate(buf, e)
	default:
		return fmt.Errorf("cannot write %T as a JSON expression (bound expressions have no JSON form)", e)
	}
	return nil
}

func writeJSONBinary(buf *bytes.Buffer, typ string, left, right Expr) error {
	buf.WriteString(`{"type":"` + typ + `","left":`)
	if err := writeJSON(buf, left); err != nil {
		return err
	}
	buf.WriteString(`,"right":`)
	if err := writeJSON(buf, right); err != nil {
		return err
	}
	buf.WriteByte('}')
	return nil
}

func writeJSONPredicate(buf *bytes.Buffer, p *Predicate) error {
	if p.Op >= opCount {
		return fmt.Errorf("invalid operator %d", p.Op)
	}
	term, _ := json.Marshal(p.Column)
	buf.WriteString(`{"type":"` + p.Op.JSONName() + `","term":`)
	buf.Write(term)
	switch {
	case p.Op.IsUnary():
	case p.Op.IsSet():
		buf.WriteString(`,"values":[`)
		for i, v := range p.Values {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeJSONLiteral(buf, v); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
	default:
		if len(p.Values) != 1 {
			return fmt.Errorf("%s predicate on %s has %d values", p.Op, p.Column, len(p.Values))
		}
		buf.WriteString(`,"value":`)
		if err := writeJSONLiteral(buf, p.Values[0]); err != nil {
			return err
		}
	}
	buf.WriteByte('}')
	return nil
}

func writeJSONLiteral(buf *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case string:
		b, _ := json.Marshal(x)
		buf.Write(b)
	case int64:
		buf.WriteString(strconv.FormatInt(x, 10))
	case Number:
		if x.text == "" {
			return fmt.Errorf("empty number literal")
		}
		buf.WriteString(x.text)
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return fmt.Errorf("literal %v has no JSON form", x)
		}
		buf.WriteString(floatLiteral(x))
	case bool:
		buf.WriteString(strconv.FormatBool(x))
	case typedLiteral:
		return writeJSONTypedLiteral(buf, x.typ, x.value)
	default:
		return fmt.Errorf("literal %v (%T) has no JSON form", v, v)
	}
	return nil
}
