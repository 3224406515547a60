package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/floedb/floe/writer/ops"
)

// floe_upsert's options: pyiceberg's defaults when absent, each field
// carried through, and unknown fields or modes refused.
func TestParseUpsertOptions(t *testing.T) {
	o, _, err := parseUpsertOptions(nil)
	if err != nil || !o.WhenMatchedUpdateAll || !o.WhenNotMatchedInsertAll || o.CaseInsensitive || o.Mode != "" || o.JoinCols != nil {
		t.Fatalf("defaults: %+v, %v", o, err)
	}
	o, raw, err := parseUpsertOptions([]byte(`{"join_cols": ["a", "b"], "mode": "copy-on-write", "when_matched_update_all": false,
		"case_sensitive": false, "token": "t1", "branch": "dev", "timeout_ms": 5000}`))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(o.JoinCols, []string{"a", "b"}) || o.Mode != ops.UpsertCopyOnWrite || o.WhenMatchedUpdateAll || !o.WhenNotMatchedInsertAll ||
		!o.CaseInsensitive || o.Commit.Token != "t1" || o.Commit.Branch != "dev" || raw.TimeoutMs == nil || *raw.TimeoutMs != 5000 {
		t.Fatalf("parsed %+v", o)
	}
	for _, c := range []struct{ in, want string }{
		{`{"mode": "merge"}`, `mode "merge"`},
		{`{"joinCols": ["a"]}`, `unknown field "joinCols"`},
		{`{"join_cols": "a"}`, "join_cols"},
	} {
		_, _, err := parseUpsertOptions([]byte(c.in))
		if err == nil || classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want INVALID_ARGUMENT saying %q", c.in, err, c.want)
		}
	}
}
