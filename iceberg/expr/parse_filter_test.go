package expr

import (
	"errors"
	"testing"
)

func TestParseFilterTellsTextFromJSON(t *testing.T) {
	for in, want := range map[string]string{
		"id > 10": "id > 10",
		` {"type": "lt", "term": "id", "value": 3}`: "id < 3",
	} {
		e, err := ParseFilter(in)
		if err != nil {
			t.Fatalf("ParseFilter(%q): %v", in, err)
		}
		if e.String() != want {
			t.Errorf("ParseFilter(%q) = %s, want %s", in, e, want)
		}
	}
	for _, bad := range []string{"id >", `{"type": "lt"`, "{not json", "", "  "} {
		if _, err := ParseFilter(bad); !errors.Is(err, ErrInvalidFilter) {
			t.Errorf("ParseFilter(%q) = %v, want an ErrInvalidFilter", bad, err)
		}
	}
}

func TestParseFilterJSONForms(t *testing.T) {
	for in, want := range map[string]string{
		`"id > 10"`: "id > 10",
		` {"type": "lt", "term": "id", "value": 3}`: "id < 3",
	} {
		e, err := ParseFilterJSON([]byte(in))
		if err != nil || e.String() != want {
			t.Errorf("ParseFilterJSON(%s) = %v, %v; want %s", in, e, err, want)
		}
	}
	for _, none := range []string{"", " null "} {
		if e, err := ParseFilterJSON([]byte(none)); e != nil || err != nil {
			t.Errorf("ParseFilterJSON(%q) = %v, %v; want no filter", none, e, err)
		}
	}
	for _, bad := range []string{`"id >"`, `{"type": "lt"}`, `"unterminated`, `7`} {
		if _, err := ParseFilterJSON([]byte(bad)); !errors.Is(err, ErrInvalidFilter) {
			t.Errorf("ParseFilterJSON(%s) = %v, want an ErrInvalidFilter", bad, err)
		}
	}
}
