package main

import (
	"strings"
	"testing"
)

// transactions_json: one object per table, in the tables' order; every
// refusal is INVALID_ARGUMENT naming the transaction and what is wrong.
func TestParseCatalogTx(t *testing.T) {
	got, err := parseCatalogTx([]byte(`[{"actions": [{"action": "set-properties", "updates": {"a": "b"}}], "token": "t1"},
		{"actions": [{"action": "remove-properties", "removals": ["c"]}]}]`), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].token != "t1" || got[1].token != "" || len(got[0].actions.steps) != 1 || len(got[1].actions.steps) != 1 {
		t.Fatalf("parsed %+v", got)
	}
	cases := []struct {
		in   string
		n    int
		want string
	}{
		{``, 1, "none given"},
		{`{"actions": []}`, 1, "JSON array"},
		{`[{"actions": [{"action": "set-properties", "updates": {"a": "b"}}]}]`, 2, "1 given for 2 tables"},
		{`[{"actions": [{"action": "set-properties", "updates": {"a": "b"}}], "tokn": "x"}]`, 1, `transaction 0: json: unknown field "tokn"`},
		{`[{"actions": []}]`, 1, "transaction 0: actions: the list is empty"},
		{`[{"token": "x"}]`, 1, "transaction 0: actions: none given"},
		{`[{"actions": [{"action": "set-properties", "updates": {"a": "b"}}]}, {"actions": [{"action": "nope"}]}]`, 2, `transaction 1: action 0: unknown action "nope"`},
	}
	for _, c := range cases {
		_, err := parseCatalogTx([]byte(c.in), c.n)
		if err == nil {
			t.Errorf("%s: parsed", c.in)
			continue
		}
		if classify(err, statusInternal) != statusInvalidArgument || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v (status %d), want INVALID_ARGUMENT with %q", c.in, err, classify(err, statusInternal), c.want)
		}
	}
	if _, _, err := parseCatalogTxOptions([]byte(`{"discard_refused": true, "timeout_ms": -1}`)); classify(err, statusInternal) != statusInvalidArgument {
		t.Errorf("a negative timeout: %v", err)
	}
	if o, d, err := parseCatalogTxOptions([]byte(`{"discard_refused": true, "timeout_ms": 250}`)); err != nil || !o.DiscardRefused || d == nil || d.Milliseconds() != 250 {
		t.Errorf("options %+v %v %v", o, d, err)
	}
}
