package metadata

import (
	"bytes"
	"os"
	"reflect"
	"testing"
)

// FuzzParse: Parse never panics, and whatever it accepts, Marshal writes
// and Parse reads back equal.
func FuzzParse(f *testing.F) {
	for _, path := range fixtureMetadataFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(oldestV1))
	f.Add(encode(f, rollbackTable()))
	f.Add(encode(f, richV3Table()))
	withNaN := richV3Table()
	withNaN["schemas"].([]any)[0].(doc)["fields"] = []any{
		doc{"id": 1, "name": "f", "required": false, "type": "double", "initial-default": "NaN"}}
	f.Add(encode(f, withNaN))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse(data)
		if err != nil {
			return
		}
		out, err := m.MarshalJSON()
		if err != nil {
			t.Fatalf("parsed metadata does not marshal: %v", err)
		}
		again, err := Parse(out)
		if err != nil {
			t.Fatalf("marshalled metadata does not parse: %v\n%s", err, out)
		}
		if reflect.DeepEqual(m, again) {
			return
		}
		// A NaN default is never DeepEqual to itself (the writer spells it
		// "NaN"); for those, require the same bytes on a second write.
		if bytes.Contains(out, []byte(`"NaN"`)) {
			out2, err := again.MarshalJSON()
			if err == nil && bytes.Equal(out, out2) {
				return
			}
		}
		t.Fatalf("round trip differs\nin:  %s\nout: %s", data, out)
	})
}
