package expr

import (
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// The kinds binding and parsing give their refusals, which the C API turns
// into statuses without reading messages.
func TestBindAndParseErrorsHaveKinds(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "v", Type: iceberg.VariantType{}},
		{ID: 3, Name: "l", Type: &iceberg.ListType{ElementID: 4, Element: iceberg.IntType{}}},
		{ID: 5, Name: "g", Type: iceberg.GeometryType{}},
		{ID: 6, Name: "Name", Type: iceberg.StringType{}},
		{ID: 7, Name: "NAME", Type: iceberg.StringType{}},
	})
	for _, c := range []struct {
		filter        string
		caseSensitive bool
		kind          errkind.Kind
	}{
		{"v = 1", true, errkind.Unsupported},
		{"l.element = 1", true, errkind.Unsupported},
		{"g = 'POINT (1 2)'", true, errkind.InvalidArgument},
		{"nope = 1", true, errkind.InvalidArgument},
		{"nope = 1", false, errkind.InvalidArgument},
		{"name = 'x'", false, errkind.InvalidArgument},
	} {
		_, err := bindText(t, schema, c.filter, c.caseSensitive)
		if got := errkind.Of(err); got != c.kind {
			t.Errorf("Bind(%q, case sensitive %v): kind %v (%v), want %v", c.filter, c.caseSensitive, got, err, c.kind)
		}
	}
	_, err := bindText(t, schema, "name = 'x'", false)
	var ambiguous *iceberg.AmbiguousNameError
	if !errors.As(err, &ambiguous) || ambiguous.Name != "name" {
		t.Errorf("ambiguous name: %v, want an AmbiguousNameError", err)
	}

	_, err = ParseText("id = ")
	var syntax *SyntaxError
	if !errors.As(err, &syntax) || errkind.Of(err) != errkind.InvalidArgument {
		t.Errorf("syntax error %v: kind %v", err, errkind.Of(err))
	}
	_, err = ParseText("name like 'a%b'")
	if !errors.As(err, &syntax) || errkind.Of(err) != errkind.Unsupported {
		t.Errorf("unsupported LIKE %v: kind %v", err, errkind.Of(err))
	}
	_, err = ParseJSON([]byte(`{"type":"eq","term":{"type":"transform","transform":"bucket[4]","term":"id"},"value":1}`))
	if errkind.Of(err) != errkind.Unsupported {
		t.Errorf("transform term %v: kind %v", err, errkind.Of(err))
	}
}
