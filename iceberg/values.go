package iceberg

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Values are held in one canonical Go form per Iceberg type, so every part
// of floe (defaults, partition tuples, bounds, filter literals) agrees:
//
//	boolean → bool            int → int32           long → int64
//	float → float32           double → float64      decimal → Decimal
//	date → int32 (days since 1970-01-01)
//	time → int64 (µs since midnight)
//	timestamp, timestamptz → int64 (µs since epoch, UTC)
//	timestamp_ns, timestamptz_ns → int64 (ns since epoch, UTC)
//	string → string           uuid → [16]byte       fixed, binary → []byte
//	geometry, geography → []byte (WKB; their JSON form is WKT)
//	struct → []any (by field position)              list → []any
//	map → MapValue
//
// A nil any is null.

// MapValue is a map's keys and values, in order.
type MapValue struct {
	Keys   []any
	Values []any
}

var epoch = time.Unix(0, 0).UTC()

// FormatDate formats days since the epoch as YYYY-MM-DD.
func FormatDate(days int32) string {
	return epoch.AddDate(0, 0, int(days)).Format("2006-01-02")
}

// FormatTime formats microseconds since midnight as HH:MM:SS.ffffff.
func FormatTime(micros int64) string {
	return time.UnixMicro(micros).UTC().Format("15:04:05.000000")
}

// FormatTimestamp formats an epoch offset (µs, or ns when nanos) the way
// Iceberg's JSON single-value form does; withZone appends "+00:00".
func FormatTimestamp(v int64, nanos, withZone bool) string {
	var t time.Time
	layout := "2006-01-02T15:04:05.000000"
	if nanos {
		t = time.Unix(0, v).UTC()
		layout = "2006-01-02T15:04:05.000000000"
	} else {
		t = time.UnixMicro(v).UTC()
	}
	s := t.Format(layout)
	if withZone {
		s += "+00:00"
	}
	return s
}

// ParseDate parses YYYY-MM-DD into days since the epoch.
func ParseDate(s string) (int32, error) {
	t, err := time.Parse("2006-01-02", strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("invalid date %q", s)
	}
	// Unix seconds, not t.Sub(epoch): a Duration saturates ±292 years from
	// the epoch, which put 0001-01-01 and 9999-12-31 on the wrong day.
	return int32(t.Unix() / 86400), nil // t is midnight UTC: exact, also before 1970
}

// ParseTime parses HH:MM[:SS[.f…]] into microseconds since midnight.
func ParseTime(s string) (int64, error) {
	for _, layout := range []string{"15:04:05.999999999", "15:04:05", "15:04"} {
		if t, err := time.Parse(layout, strings.TrimSpace(s)); err == nil {
			return int64(t.Hour())*3_600_000_000 + int64(t.Minute())*60_000_000 + int64(t.Second())*1_000_000 + int64(t.Nanosecond()/1000), nil
		}
	}
	return 0, fmt.Errorf("invalid time %q", s)
}

// ParseTimestamp parses an ISO-8601 timestamp, with or without zone offset
// ("2024-01-01T10:00:00.123456", "…+00:00", "…Z", a space instead of "T",
// or a bare date), into µs or ns since the epoch. A timestamp without a zone
// is taken as UTC, as Iceberg does.
func ParseTimestamp(s string, nanos bool) (int64, error) {
	str := strings.TrimSpace(s)
	str = strings.Replace(str, " ", "T", 1)
	var t time.Time
	var err error
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999Z07:00", "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04", "2006-01-02"} {
		if t, err = time.Parse(layout, str); err == nil {
			break
		}
	}
	if err != nil {
		return 0, fmt.Errorf("invalid timestamp %q", s)
	}
	t = t.UTC()
	if nanos {
		if t.Year() < 1678 || t.Year() > 2261 {
			return 0, fmt.Errorf("timestamp %q is outside the nanosecond range", s)
		}
		return t.UnixNano(), nil
	}
	return t.Unix()*1_000_000 + int64(t.Nanosecond()/1000), nil
}

// FormatUUID formats 16 bytes in the canonical 8-4-4-4-12 form.
func FormatUUID(u [16]byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:], u[10:])
	return string(b[:])
}

// ParseUUID parses the canonical form (dashes optional).
func ParseUUID(s string) ([16]byte, error) {
	var u [16]byte
	h := strings.ReplaceAll(strings.TrimSpace(s), "-", "")
	if len(h) != 32 {
		return u, fmt.Errorf("invalid uuid %q", s)
	}
	if _, err := hex.Decode(u[:], []byte(h)); err != nil {
		return u, fmt.Errorf("invalid uuid %q", s)
	}
	return u, nil
}

// ValueFromJSON decodes Iceberg's JSON single-value form (spec Appendix D)
// into the canonical Go form for t.
func ValueFromJSON(t Type, raw json.RawMessage) (any, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	str := func() (string, error) {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return "", fmt.Errorf("%s value must be a JSON string, got %s", t, raw)
		}
		return s, nil
	}
	switch t := t.(type) {
	case BooleanType:
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return nil, fmt.Errorf("boolean value must be true or false, got %s", raw)
		}
		return b, nil
	case IntType:
		n, err := strconv.ParseInt(string(raw), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("int value %s: %w", raw, err)
		}
		return int32(n), nil
	case LongType:
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("long value %s: %w", raw, err)
		}
		return n, nil
	case FloatType, DoubleType:
		var f float64
		if raw[0] == '"' {
			s, _ := str()
			switch s {
			case "NaN":
				f = math.NaN()
			case "Infinity":
				f = math.Inf(1)
			case "-Infinity":
				f = math.Inf(-1)
			default:
				return nil, fmt.Errorf("%s value must be a number, got %s", t, raw)
			}
		} else if err := json.Unmarshal(raw, &f); err != nil {
			return nil, fmt.Errorf("%s value must be a number, got %s", t, raw)
		}
		if _, ok := t.(FloatType); ok {
			return float32(f), nil
		}
		return f, nil
	case DecimalType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseDecimal(s, t.Scale)
	case DateType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseDate(s)
	case TimeType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseTime(s)
	case TimestampType, TimestamptzType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseTimestamp(s, false)
	case TimestampNsType, TimestamptzNsType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseTimestamp(s, true)
	case StringType:
		return str()
	case UUIDType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return ParseUUID(s)
	case FixedType, BinaryType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("%s value must be hex, got %q", t, s)
		}
		if ft, ok := t.(FixedType); ok && len(b) != ft.Length {
			return nil, fmt.Errorf("%s value has %d bytes", t, len(b))
		}
		return b, nil
	case UnknownType:
		return nil, fmt.Errorf("unknown type can only hold null, got %s", raw)
	case GeometryType, GeographyType:
		s, err := str()
		if err != nil {
			return nil, err
		}
		return WKTToWKB(s)
	case VariantType:
		return nil, fmt.Errorf("a variant column can only default to null, got %s", raw)
	case *StructType:
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(raw, &obj); err != nil {
			return nil, fmt.Errorf("struct value must be a JSON object keyed by field id")
		}
		out := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v, ok := obj[strconv.Itoa(f.ID)]
			if !ok {
				continue
			}
			var err error
			if out[i], err = ValueFromJSON(f.Type, v); err != nil {
				return nil, fmt.Errorf("field %d: %w", f.ID, err)
			}
		}
		return out, nil
	case *ListType:
		var elems []json.RawMessage
		if err := json.Unmarshal(raw, &elems); err != nil {
			return nil, fmt.Errorf("list value must be a JSON array")
		}
		out := make([]any, len(elems))
		for i, e := range elems {
			var err error
			if out[i], err = ValueFromJSON(t.Element, e); err != nil {
				return nil, err
			}
		}
		return out, nil
	case *MapType:
		var m struct {
			Keys   []json.RawMessage `json:"keys"`
			Values []json.RawMessage `json:"values"`
		}
		if err := json.Unmarshal(raw, &m); err != nil || len(m.Keys) != len(m.Values) {
			return nil, fmt.Errorf("map value must be {\"keys\": [...], \"values\": [...]} of equal lengths")
		}
		out := MapValue{Keys: make([]any, len(m.Keys)), Values: make([]any, len(m.Values))}
		for i := range m.Keys {
			var err error
			if out.Keys[i], err = ValueFromJSON(t.Key, m.Keys[i]); err != nil {
				return nil, err
			}
			if out.Values[i], err = ValueFromJSON(t.Value, m.Values[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("cannot decode a JSON value of type %v", t)
}

// ValueToJSON encodes a canonical value in Iceberg's JSON single-value form.
func ValueToJSON(t Type, v any) (json.RawMessage, error) {
	if v == nil {
		return json.RawMessage("null"), nil
	}
	wrong := fmt.Errorf("value %v (%T) is not a %s", v, v, t)
	quote := func(s string) (json.RawMessage, error) { return json.Marshal(s) }
	switch t := t.(type) {
	case BooleanType:
		if b, ok := v.(bool); ok {
			return json.Marshal(b)
		}
	case IntType:
		if n, ok := v.(int32); ok {
			return json.Marshal(n)
		}
	case LongType:
		if n, ok := v.(int64); ok {
			return json.Marshal(n)
		}
	case FloatType, DoubleType:
		var f float64
		switch x := v.(type) {
		case float32:
			f = float64(x)
		case float64:
			f = x
		default:
			return nil, wrong
		}
		switch {
		case math.IsNaN(f):
			return quote("NaN")
		case math.IsInf(f, 1):
			return quote("Infinity")
		case math.IsInf(f, -1):
			return quote("-Infinity")
		}
		if _, ok := t.(FloatType); ok {
			return json.RawMessage(strconv.FormatFloat(f, 'g', -1, 32)), nil
		}
		return json.Marshal(f)
	case DecimalType:
		if d, ok := v.(Decimal); ok {
			return quote(d.String())
		}
	case DateType:
		if d, ok := v.(int32); ok {
			return quote(FormatDate(d))
		}
	case TimeType:
		if n, ok := v.(int64); ok {
			return quote(FormatTime(n))
		}
	case TimestampType, TimestamptzType, TimestampNsType, TimestamptzNsType:
		if n, ok := v.(int64); ok {
			nanos := t == TimestampNsType{} || t == TimestamptzNsType{}
			zone := t == TimestamptzType{} || t == TimestamptzNsType{}
			return quote(FormatTimestamp(n, nanos, zone))
		}
	case StringType:
		if s, ok := v.(string); ok {
			return quote(s)
		}
	case UUIDType:
		if u, ok := v.([16]byte); ok {
			return quote(FormatUUID(u))
		}
	case FixedType, BinaryType:
		if b, ok := v.([]byte); ok {
			return quote(hex.EncodeToString(b))
		}
	case GeometryType, GeographyType:
		if b, ok := v.([]byte); ok {
			text, err := WKBToWKT(b)
			if err != nil {
				return nil, err
			}
			return quote(text)
		}
	case *StructType:
		vals, ok := v.([]any)
		if !ok || len(vals) != len(t.Fields) {
			return nil, wrong
		}
		var buf bytes.Buffer
		buf.WriteByte('{')
		first := true
		for i, f := range t.Fields {
			if vals[i] == nil {
				continue
			}
			e, err := ValueToJSON(f.Type, vals[i])
			if err != nil {
				return nil, err
			}
			if !first {
				buf.WriteByte(',')
			}
			first = false
			fmt.Fprintf(&buf, "%q:", strconv.Itoa(f.ID))
			buf.Write(e)
		}
		buf.WriteByte('}')
		return buf.Bytes(), nil
	case *ListType:
		vals, ok := v.([]any)
		if !ok {
			return nil, wrong
		}
		out := make([]json.RawMessage, len(vals))
		for i, e := range vals {
			var err error
			if out[i], err = ValueToJSON(t.Element, e); err != nil {
				return nil, err
			}
		}
		return json.Marshal(out)
	case *MapType:
		m, ok := v.(MapValue)
		if !ok {
			return nil, wrong
		}
		keys, vals := make([]json.RawMessage, len(m.Keys)), make([]json.RawMessage, len(m.Values))
		for i := range m.Keys {
			var err error
			if keys[i], err = ValueToJSON(t.Key, m.Keys[i]); err != nil {
				return nil, err
			}
			if vals[i], err = ValueToJSON(t.Value, m.Values[i]); err != nil {
				return nil, err
			}
		}
		return json.Marshal(map[string][]json.RawMessage{"keys": keys, "values": vals})
	}
	return nil, wrong
}
