package expr

import (
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{`true`, "true"},
		{`false`, "false"},
		{`{"type":"true"}`, "true"},
		{`{"type":"false"}`, "false"},
		{`{"type":"lt","term":"x","value":5}`, "x < 5"},
		{`{"type":"lt-eq","term":"x","value":5.5}`, "x <= 5.5"},
		{`{"type":"gt","term":"x","value":"2024-01-01"}`, "x > '2024-01-01'"},
		{`{"type":"gt-eq","term":"x","value":true}`, "x >= true"},
		{`{"type":"eq","term":"a.b","value":1e2}`, "a.b = 1e2"},
		{`{"type":"eq","term":"x","value":1e999}`, "x = 1e999"},
		{`{"type":"eq","term":"x","value":3.14159265358979323846264}`, "x = 3.14159265358979323846264"},
		{`{"type":"not-eq","term":"x","value":-3}`, "x != -3"},
		{`{"type":"in","term":"x","values":[1,2,3]}`, "x in (1, 2, 3)"},
		{`{"type":"not-in","term":"x","values":["a","b"]}`, "x not in ('a', 'b')"},
		{`{"type":"is-null","term":"x"}`, "x is null"},
		{`{"type":"not-null","term":"x"}`, "x is not null"},
		{`{"type":"is-nan","term":"x"}`, "x is nan"},
		{`{"type":"not-nan","term":"x"}`, "x is not nan"},
		{`{"type":"starts-with","term":"x","value":"ab%"}`, `x like 'ab\%%'`},
		{`{"type":"not-starts-with","term":"x","value":"ab"}`, "x not like 'ab%'"},
		{`{"type":"and","left":{"type":"is-null","term":"a"},"right":{"type":"not","child":{"type":"eq","term":"b","value":1}}}`,
			"(a is null and not (b = 1))"},
		{`{"type":"or","left":true,"right":{"type":"lt","term":"c","value":0}}`, "(true or c < 0)"},
		// The newer child/left/right form with reference and literal wrappers.
		{`{"type":"lt","left":{"type":"reference","name":"x"},"right":{"type":"literal","value":5}}`, "x < 5"},
		{`{"type":"is-null","child":{"type":"reference","name":"x"}}`, "x is null"},
		{`{"type":"in","child":"x","values":{"type":"literals","values":[1,2],"data-type":"int"}}`, "x in (1, 2)"},
	}
	for _, c := range cases {
		e, err := ParseJSON([]byte(c.in))
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", c.in, err)
			continue
		}
		if got := e.String(); got != c.want {
			t.Errorf("ParseJSON(%s) = %s, want %s", c.in, got, c.want)
		}
		out, err := MarshalJSON(e)
		if err != nil {
			t.Errorf("MarshalJSON(%s): %v", e, err)
			continue
		}
		back, err := ParseJSON(out)
		if err != nil || back.String() != e.String() {
			t.Errorf("round trip of %s through %s gave %v, %v", e, out, back, err)
		}
	}
}

func TestMarshalJSONForm(t *testing.T) {
	e, err := ParseText("a < 10 and not b in ('x', 'y') or c is null or true")
	if err != nil {
		t.Fatal(err)
	}
	out, err := MarshalJSON(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"or","left":{"type":"or","left":{"type":"and","left":{"type":"lt","term":"a","value":10},` +
		`"right":{"type":"not","child":{"type":"in","term":"b","values":["x","y"]}}},"right":{"type":"is-null","term":"c"}},"right":true}`
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	if _, err := MarshalJSON(&BoundPredicate{}); err == nil {
		t.Error("bound predicates must not marshal")
	}
}

func TestParseJSONErrors(t *testing.T) {
	cases := []struct{ in, message string }{
		{`nope`, "must be a JSON object"},
		{`{}`, "needs a string \"type\""},
		{`{"type":"xor"}`, "unknown expression type"},
		{`{"type":"and","left":true}`, "needs \"right\""},
		{`{"type":"not"}`, "needs \"child\""},
		{`{"type":"lt","value":1}`, "needs \"term\""},
		{`{"type":"lt","term":"x"}`, "needs \"value\""},
		{`{"type":"lt","term":"x","value":null}`, "null literal"},
		{`{"type":"lt","term":"x","value":[1]}`, "literal must be"},
		{`{"type":"in","term":"x","values":[]}`, "values is empty"},
		{`{"type":"in","term":"x"}`, "needs \"values\""},
		{`{"type":"lt","term":{"type":"transform","transform":"bucket[4]","term":"x"},"value":1}`, "transforms"},
		{`{"type":"lt","term":"","value":1}`, "empty column"},
		{`{"type":"lt","term":"a..b","value":1}`, "empty part"},
		{`{"type":"starts-with","term":"x","value":1}`, "must be a string"},
		{strings.Repeat(`{"type":"not","child":`, 600) + "true" + strings.Repeat("}", 600), "deeper than"},
	}
	for _, c := range cases {
		_, err := ParseJSON([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.message) {
			t.Errorf("ParseJSON(%.60s) = %v, want an error containing %q", c.in, err, c.message)
		}
	}
}
