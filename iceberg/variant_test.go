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
