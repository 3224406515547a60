package metadata

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// object is a JSON object whose members are decoded one at a time, so that a
// missing member, or one of the wrong type, gives an error naming it and the
// object it belongs to. Keys match exactly (encoding/json alone would match
// them case-insensitively). The first error sticks; later calls do nothing.
type object struct {
	what    string // how errors name the object, e.g. "snapshot 42"
	members map[string]json.RawMessage
	err     error
}

func parseObject(raw []byte, what string) *object {
	o := &object{what: what}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		o.err = fmt.Errorf("%s must be a JSON object, got %s", what, abbreviate(trimmed))
		return o
	}
	if err := json.Unmarshal(trimmed, &o.members); err != nil {
		o.err = fmt.Errorf("%s is not valid JSON: %w", what, err)
	}
	return o
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// has reports whether key is present with a non-null value; JSON null counts
// as absent, as it does for the reference implementation.
func (o *object) has(key string) bool {
	raw, ok := o.members[key]
	return ok && !isNull(raw)
}

// requiredWith hands the member key, which must be present and not null,
// to parse (for members with parsers of their own).
func (o *object) requiredWith(key string, parse func(json.RawMessage) error) {
	if o.err != nil {
		return
	}
	if !o.has(key) {
		o.err = fmt.Errorf("%s: missing required field %q", o.what, key)
		return
	}
	if err := parse(o.members[key]); err != nil {
		o.err = fmt.Errorf("%s: %s: %w", o.what, key, err)
	}
}

// optional decodes key into dst when present and reports whether it was.
func (o *object) optional(key string, dst any) bool {
	if o.err != nil || !o.has(key) {
		return false
	}
	if err := json.Unmarshal(o.members[key], dst); err != nil {
		o.err = fmt.Errorf("%s: field %q: %w", o.what, key, err)
		return false
	}
	return true
}

// required decodes key into dst and fails when it is absent.
func (o *object) required(key string, dst any) {
	if o.err == nil && !o.has(key) {
		o.err = fmt.Errorf("%s: missing required field %q", o.what, key)
		return
	}
	o.optional(key, dst)
}

// requiredFrom is required from format version minVersion on and optional
// before it.
func (o *object) requiredFrom(key string, dst any, version, minVersion int) bool {
	if o.err == nil && version >= minVersion && !o.has(key) {
		o.err = fmt.Errorf("%s: missing field %q, required in format version %d", o.what, key, version)
		return false
	}
	return o.optional(key, dst)
}

// list decodes an array member into its raw elements, refusing null ones.
func (o *object) list(key string) []json.RawMessage {
	var elems []json.RawMessage
	if !o.optional(key, &elems) {
		return nil
	}
	for i, e := range elems {
		if isNull(e) {
			o.err = fmt.Errorf("%s: %s[%d] is null", o.what, key, i)
			return nil
		}
	}
	return elems
}

// fail records err, prefixed with the object's name, unless an error is
// already recorded.
func (o *object) fail(format string, args ...any) {
	if o.err == nil {
		// %w in format keeps the cause's kind (an unsupported transform).
		o.err = fmt.Errorf("%s: %w", o.what, fmt.Errorf(format, args...))
	}
}

// abbreviate keeps error messages short when the input is large.
func abbreviate(b []byte) string {
	const max = 40
	if len(b) == 0 {
		return "nothing"
	}
	if len(b) > max {
		return fmt.Sprintf("%q…", b[:max])
	}
	return fmt.Sprintf("%q", b)
}
