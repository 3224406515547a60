package jsonlines

import "testing"

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
