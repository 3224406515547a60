package manifest

import (
	"errors"
	"fmt"

	"github.com/twmb/avro"
)

// A writer may declare any value nullable: an Avro union of null and the
// value's type, in either order. Java does so for the values the spec
// makes optional; BigQuery for every value, records included (data_file,
// the partition tuple, the key/value records of the metric maps) and
// array items, with values the spec requires among them. Such unions are
// resolved in one place, here, while a decoder is compiled: resolveNull
// takes a writer type apart into the value's type, which is all the field
// compilers ever see, and a nullPolicy that reads the union branch and
// says what a null means where the value sits. For an optional value a
// null leaves the target as it is (unset, to be defaulted or inherited);
// where the spec requires a value it is an error naming the field.

// nullPolicy is how a value's null is written and what it means.
type nullPolicy struct {
	union             bool // false: a plain type, never null
	valueIdx, nullIdx int64
	// required is the error a null is where the spec requires a value;
	// nil for optional values.
	required error
}

// nullFieldError reports a null written where the spec requires a value.
type nullFieldError struct {
	field string // a spec path: data_file.file_path, data_file.split_offsets element
}

func (e *nullFieldError) Error() string { return e.field + " is null but the spec requires it" }

// resolveNull resolves the writer type n of the value at path (named in
// errors), required or optional by the spec.
func resolveNull(n *avro.SchemaNode, path string, required bool) (*avro.SchemaNode, nullPolicy, error) {
	if n.Type != "union" {
		return n, nullPolicy{}, nil
	}
	p := nullPolicy{union: true, valueIdx: -1, nullIdx: -1}
	if required {
		p.required = &nullFieldError{field: path}
	}
	var value *avro.SchemaNode
	for i := range n.Branches {
		b := &n.Branches[i]
		switch {
		case b.Type == "null" && p.nullIdx < 0:
			p.nullIdx = int64(i)
		case b.Type != "null" && value == nil:
			p.valueIdx, value = int64(i), b
		default:
			return nil, p, errors.New("Iceberg allows unions only of null and one type")
		}
	}
	if value == nil {
		return nil, p, errors.New("a union of only null")
	}
	return value, p, nil
}

// present reads the union branch, if any, and reports a value; a null is
// false for an optional value and the policy's error for a required one.
//
// Small enough to inline: most values of a manifest are not unions, and
// a call per value to say so was 8% of planning a million files.
func (p *nullPolicy) present(r *reader) (bool, error) {
	if !p.union {
		return true, nil
	}
	return p.branch(r)
}

func (p *nullPolicy) branch(r *reader) (bool, error) {
	i, err := r.long()
	if err != nil {
		return false, err
	}
	switch i {
	case p.valueIdx:
		return true, nil
	case p.nullIdx:
		return false, p.required
	}
	return false, fmt.Errorf("Avro union branch %d out of range", i)
}

// guardNull puts the policy in front of a decoder of the value's type; a
// plain type needs nothing.
func guardNull[T any](p nullPolicy, fn fieldFn[T]) fieldFn[T] {
	if !p.union {
		return fn
	}
	return func(r *reader, dst *T) error {
		ok, err := p.present(r)
		if err != nil || !ok {
			return err
		}
		return fn(r, dst)
	}
}
