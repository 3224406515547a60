package iceberg

import (
	"errors"
	"testing"

	"github.com/floedb/floe/errkind"
)

func TestClosestName(t *testing.T) {
	for _, c := range []struct {
		name  string
		names []string
		want  string
	}{
		{"nmae", []string{"id", "name", "names"}, "name"},
		{"ID", []string{"id", "idx"}, "id"}, // case is ignored
		{"zz", []string{"ab", "cd"}, "ab"},  // far away: still the nearest, ties to the first
		{"x", nil, ""},
	} {
		if got := ClosestName(c.name, c.names); got != c.want {
			t.Errorf("ClosestName(%q, %v) = %q, want %q", c.name, c.names, got, c.want)
		}
	}
	err := UnknownColumn("info.", "citty", []string{"city", "zip"})
	var u *UnknownColumnError
	if !errors.As(err, &u) || u.Column != "info.citty" || u.Closest != "info.city" || !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("UnknownColumn: %#v", err)
	}
}
