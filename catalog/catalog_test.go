package catalog

import (
	"slices"
	"testing"

	"github.com/floedb/floe/errkind"
)

func TestParseIdentifier(t *testing.T) {
	for in, want := range map[string]Identifier{
		"ns.t":    {Namespace: []string{"ns"}, Name: "t"},
		"a.b.c.t": {Namespace: []string{"a", "b", "c"}, Name: "t"},
	} {
		got, err := ParseIdentifier(in)
		if err != nil || !slices.Equal(got.Namespace, want.Namespace) || got.Name != want.Name || got.String() != in {
			t.Errorf("%q: %+v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "t", ".t", "ns.", "a..t"} {
		if _, err := ParseIdentifier(bad); errkind.Of(err) != errkind.InvalidArgument {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

// FuzzParseIdentifier: a name that parses writes back as itself, with a
// namespace and a name that hold no empty part.
func FuzzParseIdentifier(f *testing.F) {
	for _, s := range []string{"ns.t", "a.b.t", "t", "..", "a.\x00.t"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		id, err := ParseIdentifier(s)
		if err != nil {
			return
		}
		if id.String() != s || id.Name == "" || len(id.Namespace) == 0 || slices.Contains(id.Namespace, "") {
			t.Fatalf("%q parsed as %+v", s, id)
		}
	})
}
