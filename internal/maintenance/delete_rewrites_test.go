package maintenance

import (
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// The delete rewrites are actions with the commit options and a target
// size, read strictly.
func TestParseDeleteRewrites(t *testing.T) {
	for _, action := range []string{"rewrite_position_deletes", "convert_equality_deletes"} {
		req, err := Parse(action, []byte(`{"token": "t1", "branch": "main", "target_file_size_bytes": 1024, "timeout_ms": 5}`))
		if err != nil || req.Action != action || *req.TimeoutMs != 5 {
			t.Errorf("%s: %+v, %v", action, req, err)
		}
		for in, want := range map[string]string{
			`{"target_file_size": 5}`:        `did you mean "target_file_size_bytes"`,
			`{"target_file_size_bytes": -1}`: "target_file_size_bytes -1 is negative",
			`{"token": 3}`:                   "token",
		} {
			if _, err := Parse(action, []byte(in)); !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s %s: %v; want InvalidArgument saying %q", action, in, err, want)
			}
		}
	}
}
