package main

import "testing"

// FuzzCatalogProperties: a catalog's properties JSON is a flat object of
// strings (numbers and booleans as their text); anything else is an
// invalid argument, never a panic.
func FuzzCatalogProperties(f *testing.F) {
	f.Add([]byte(`{"name": "c", "warehouse": "/tmp/w", "uri": "sqlite:x.db"}`))
	f.Add([]byte(`{"retries": 3, "verbose": true}`))
	f.Add([]byte(`{"nested": {"a": 1}}`))
	f.Add([]byte(`[1, 2]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		props, err := catalogProperties(data)
		if err != nil {
			if classify(err, statusInternal) != statusInvalidArgument {
				t.Fatalf("%q: %v is not an invalid argument", data, err)
			}
			return
		}
		if props == nil {
			t.Fatalf("%q: nil properties without an error", data)
		}
	})
}

func TestCatalogProperties(t *testing.T) {
	props, err := catalogProperties([]byte(`{"name": "c", "retries": 3, "verbose": true}`))
	if err != nil || props["name"] != "c" || props["retries"] != "3" || props["verbose"] != "true" {
		t.Fatalf("%v %v", props, err)
	}
	for _, bad := range []string{`{"a": {"b": 1}}`, `{"a": null}`, `[1]`, `{`} {
		if _, err := catalogProperties([]byte(bad)); classify(err, statusInternal) != statusInvalidArgument {
			t.Errorf("%s: %v", bad, err)
		}
	}
}
