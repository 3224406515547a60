package expr

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/iceberg/metadata"
)

// fuzzSeeds gives row filters over the real fixture schemas' columns.
func fuzzSeeds(f *testing.F) []string {
	seeds := []string{
		"a < 10 and b in ('x', 'y') and c is not null and d like 'abc%'",
		`not ("my col" = 'it''s' or x.y >= -1.5e3) and z not like 'a\%%'`,
		"true", "10 > a", "a is not nan",
		"c = 3.14159265358979323846264 or d2 < 1.005 or big in (1e37, 12345678901234567890123) or f > 1e39",
	}
	paths, _ := filepath.Glob(filepath.Join(fixtures, "*/metadata/*.metadata.json"))
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		m, err := metadata.Parse(data)
		if err != nil {
			continue
		}
		for _, field := range m.CurrentSchema().Fields {
			seeds = append(seeds, `"`+field.Name+`" = '2024-01-01' or `+field.Name+` in (1, 2.5, true)`)
		}
	}
	return seeds
}

func FuzzParseText(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ParseText(src)
		if err != nil {
			return
		}
		text := e.String()
		again, err := ParseText(text)
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", src, text, err)
		}
		if again.String() != text {
			t.Fatalf("%q printed as %q, then as %q", src, text, again.String())
		}
		js, err := MarshalJSON(e)
		if err != nil {
			t.Fatalf("MarshalJSON(%s): %v", text, err)
		}
		fromJSON, err := ParseJSON(js)
		if err != nil || fromJSON.String() != text {
			t.Fatalf("%s through JSON %s gave %v, %v", text, js, fromJSON, err)
		}
		checkBoundRoundTrip(t, e)
	})
}

func FuzzParseJSON(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		if e, err := ParseText(s); err == nil {
			if js, err := MarshalJSON(e); err == nil {
				f.Add(js)
			}
		}
	}
	f.Add([]byte(`{"type":"lt","left":{"type":"reference","name":"x"},"right":{"type":"literal","value":5}}`))
	f.Add([]byte(`{"type":"in","child":"x","values":{"type":"literals","values":[1,2],"data-type":"int"}}`))
	f.Add([]byte(`{"type":"or","left":{"type":"eq","term":"c","value":3.14159265358979323846264},"right":{"type":"lt","term":"big","value":12345678901234567890123}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := ParseJSON(data)
		if err != nil {
			return
		}
		js, err := MarshalJSON(e)
		if err != nil {
			t.Fatalf("MarshalJSON(%s): %v", e, err)
		}
		again, err := ParseJSON(js)
		if err != nil || again.String() != e.String() {
			t.Fatalf("%s wrote %s, which read back as %v, %v", e, js, again, err)
		}
		if _, err := ParseText(e.String()); err != nil {
			t.Fatalf("%s from JSON does not parse as text: %v", e, err)
		}
		checkBoundRoundTrip(t, e)
	})
}

// checkBoundRoundTrip binds e to a schema of many column types and checks
// that the bound form written as JSON reads and binds back to itself, as a
// residual must.
func checkBoundRoundTrip(t *testing.T, e Expr) {
	schema := numberSchema()
	b, err := Bind(e, schema, true)
	if err != nil {
		return
	}
	js, err := MarshalJSON(b)
	if err != nil {
		t.Fatalf("MarshalJSON(%s): %v", b, err)
	}
	back, err := ParseJSON(js)
	if err != nil {
		t.Fatalf("bound %s wrote %s, which does not parse: %v", b, js, err)
	}
	again, err := Bind(back, schema, true)
	if err != nil || again.String() != b.String() {
		t.Fatalf("bound %s wrote %s, which binds back as %v, %v", b, js, again, err)
	}
}
