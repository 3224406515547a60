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
		// A NaN default is never DeepEqual to itself; for those, require
		// the same bytes on a second write instead.
		if bytes.Contains(data, []byte("NaN")) {
			out2, err := again.MarshalJSON()
			if err == nil && bytes.Equal(out, out2) {
				return
			}
		}
		t.Fatalf("round trip differs\nin:  %s\nout: %s", data, out)
	})
}
