package iceberg

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestVariantSchemaJSONRoundTrip(t *testing.T) {
	in := `{"type":"struct","schema-id":0,"fields":[
		{"id":1,"name":"id","required":true,"type":"long"},
		{"id":2,"name":"v","required":false,"type":"variant"},
		{"id":3,"name":"s","required":false,"type":{"type":"struct","fields":[
			{"id":4,"name":"inner","required":true,"type":"variant"}]}},
		{"id":5,"name":"l","required":false,"type":{"type":"list","element-id":6,"element-required":false,"element":"variant"}}]}`
	var s Schema
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int{2, 4, 6} {
		f, ok := s.FindField(id)
		if !ok {
			t.Fatalf("field %d missing", id)
		}
		if _, ok := f.Type.(VariantType); !ok {
			t.Fatalf("field %d is %v, want variant", id, f.Type)
		}
	}
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), `"type":"variant"`); n != 2 {
		t.Fatalf("written schema has %d variant fields by name, want 2: %s", n, out)
	}
	if !strings.Contains(string(out), `"element":"variant"`) {
		t.Fatalf("written schema lost the variant element: %s", out)
	}
	var back Schema
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if back.String() != s.String() {
		t.Fatalf("round trip changed the schema:\n%s\n%s", s.String(), back.String())
	}
}

func TestVariantDefaultsMustBeNull(t *testing.T) {
	for _, def := range []string{`"initial-default":{"a":1}`, `"write-default":"x"`, `"initial-default":0`} {
		in := `{"type":"struct","fields":[{"id":1,"name":"v","required":false,"type":"variant",` + def + `}]}`
		var s Schema
		err := json.Unmarshal([]byte(in), &s)
		if err == nil || !strings.Contains(err.Error(), "variant column can only default to null") {
			t.Errorf("%s: %v, want a null-only default error", def, err)
		}
	}
	in := `{"type":"struct","fields":[{"id":1,"name":"v","required":false,"type":"variant","initial-default":null}]}`
	var s Schema
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatalf("an explicit null default is allowed: %v", err)
	}
	if err := CheckValue(VariantType{}, []byte{1}); err == nil {
		t.Fatal("CheckValue accepted a non-null variant value")
	}
}

func TestVariantIsNotPartitionable(t *testing.T) {
	if _, err := (IdentityTransform{}).ResultType(VariantType{}); err == nil {
		t.Fatal("identity of a variant was accepted")
	}
	if _, err := (BucketTransform{N: 4}).ResultType(VariantType{}); err == nil {
		t.Fatal("bucket of a variant was accepted")
	}
}

func TestUnionByNameAddsAndKeepsVariants(t *testing.T) {
	current := NewSchema(0, []NestedField{{ID: 1, Name: "id", Type: LongType{}, Required: true}})
	wanted := NewSchema(0, []NestedField{
		{ID: 1, Name: "id", Type: LongType{}, Required: true},
		{Name: "v", Type: VariantType{}},
		{Name: "u", Type: UnknownType{}},
	})
	updated, last, changed, err := UnionByName(current, wanted, 1, "t")
	if err != nil || !changed || last != 3 {
		t.Fatalf("union: %v, changed %v, last id %d", err, changed, last)
	}
	if f, ok := updated.FindFieldByName("v"); !ok || !IsVariant(f.Type) || f.ID != 2 {
		t.Fatalf("v added as %+v", f)
	}
	if _, _, changed, err := UnionByName(updated, updated, last, "t"); err != nil || changed {
		t.Fatalf("a schema with a variant does not cover itself: %v, changed %v", err, changed)
	}
	// unknown may become a variant, as it may become any type; a variant
	// becomes nothing else.
	toVariant := NewSchema(0, []NestedField{{ID: 1, Name: "id", Type: LongType{}, Required: true}, {Name: "u", Type: VariantType{}}})
	if _, _, _, err := UnionByName(updated, toVariant, last, "t"); err != nil {
		t.Fatalf("unknown to variant: %v", err)
	}
	toString := NewSchema(0, []NestedField{{ID: 1, Name: "id", Type: LongType{}, Required: true}, {Name: "v", Type: StringType{}}})
	if _, _, _, err := UnionByName(updated, toString, last, "t"); err == nil {
		t.Fatal("a variant column became a string")
	}
}
