package expr

import (
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// Filters written in C or SQL habits (&&, ||, double-quoted strings) are
// refused with the fix spelled out, still as invalid arguments.
func TestFilterErrorsHintAtTheFix(t *testing.T) {
	for _, tc := range []struct{ filter, hint string }{
		{"a = 1 && b = 2", "use and"},
		{"a = 1 || b = 2", "use or"},
		{"a = 1 & b = 2", "use and"},
		{"a = 1 | b = 2", "use or"},
		{`name = "bob"`, "single quotes: 'bob'"},
		{`name in ('a', "b")`, "single quotes: 'b'"},
		{`name != "it's"`, "single quotes: 'it''s'"},
	} {
		_, err := ParseFilter(tc.filter)
		if err == nil {
			t.Errorf("%s: parsed", tc.filter)
			continue
		}
		if !strings.Contains(err.Error(), tc.hint) {
			t.Errorf("%s: %v; want the hint %q", tc.filter, err, tc.hint)
		}
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("%s: %v is not an invalid argument", tc.filter, err)
		}
	}
	// A double-quoted name where a column belongs is still a column.
	if _, err := ParseFilter(`"bob" = 'x'`); err != nil {
		t.Errorf("a quoted column: %v", err)
	}
}
