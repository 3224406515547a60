package maintenance

import (
	"errors"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
)

// Every action's options are read strictly: an unknown action or key is
// refused naming the closest, bad values too, all as InvalidArgument;
// no options at all are each action's defaults.
func TestParseRefuses(t *testing.T) {
	for _, c := range []struct{ action, in, want string }{
		{"remove_orphans", "", `unknown action "remove_orphans" (did you mean "remove_orphan_files"?)`},
		{"remove_orphan_files", `{"dryrun": true}`, `unknown key "dryrun" (did you mean "dry_run"?)`},
		{"remove_orphan_files", `{"dry_run": "yes"}`, "dry_run"},
		{"rewrite_manifests", `{"target_size": 5}`, `(did you mean "target_size_bytes"?)`},
		{"rewrite_manifests", `{"target_size_bytes": -1}`, "target_size_bytes -1 is negative"},
		{"compute_statistics", `{"columns": "a"}`, "columns"},
		{"compute_statistics", `[1]`, "want a JSON object"},
		{"rewrite_data_files", `{"filter": "id <"}`, "filter:"},
		{"rewrite_data_files", `{"min_input_files": -2}`, "min_input_files -2 is negative"},
		{"rewrite_data_files", `{"partial_progress": true}`, `(did you mean "partial_progress_enabled"?)`},
	} {
		_, err := Parse(c.action, []byte(c.in))
		if err == nil || !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s %s: %v; want InvalidArgument saying %q", c.action, c.in, err, c.want)
		}
	}
	for _, action := range Actions() {
		req, err := Parse(action, []byte(" "))
		if err != nil || req.Action != action {
			t.Errorf("%s with no options: %+v, %v", action, req, err)
		}
	}
	if req, err := Parse("rewrite_data_files", []byte(`{"filter": {"type": "lt", "term": "id", "value": 3}, "timeout_ms": 50}`)); err != nil || *req.TimeoutMs != 50 {
		t.Errorf("REST filter and timeout: %+v, %v", req, err)
	}
}
