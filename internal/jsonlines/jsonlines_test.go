package jsonlines

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestFirstBad(t *testing.T) {
	for _, c := range []struct {
		data string
		want int
	}{
		{"", 0},
		{"{\"a\":1}\n\n  {\"a\":2}  \n", 0},
		{"{\"a\":1}\n[1,2]\n", 2},
		{"{\"a\":1}\n{\"a\":\n2}\n", 2},
		{"\n\n7\n", 3},
		{"{\"a\":1}", 0},
	} {
		if got := FirstBad([]byte(c.data)); got != c.want {
			t.Errorf("FirstBad(%q) = %d, want %d", c.data, got, c.want)
		}
	}
}

// FuzzFirstBad holds FirstBad to its promise on any input: 0 means every
// non-blank line is one JSON object, n names a line that is not, and every
// line before it is.
func FuzzFirstBad(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n[1]\n"))
	f.Add([]byte("\n {\"a\": {\"b\": [1, 2]}} \n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		bad := FirstBad(data)
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			ok := len(line) == 0 || (line[0] == '{' && json.Valid(line))
			switch {
			case i+1 == bad && ok:
				t.Fatalf("line %d %q reported bad", bad, line)
			case (bad == 0 || i+1 < bad) && !ok:
				t.Fatalf("line %d %q is not one object, FirstBad = %d", i+1, line, bad)
			}
		}
	})
}
