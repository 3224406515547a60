package main

import "testing"

// The metadata-table options and the multi-table transaction list are
// parsers of caller JSON: anything they are given is refused with an
// invalid-argument error or read, never a panic. A list that reads must
// give one entry per table.
func FuzzInspectAndCatalogTxOptions(f *testing.F) {
	for _, seed := range []string{
		`{"columns": ["file_path"], "filter": "record_count > 10", "snapshot_id": 3, "limit": 5, "batch_size": 2}`,
		`{"ref": "main", "case_sensitive": false, "timeout_ms": 100}`,
		`{"filter": {"type": "eq", "term": "x", "value": 1}}`,
		`[{"actions": [{"action": "set-properties", "updates": {"k": "v"}}], "token": "t"}, {"actions": []}]`,
		`[{"actions": [{"action": "append-files", "files": "AAAA"}]}]`,
		`{"limit": -1}`, `[`, `[{}]`, `null`, `{}`,
	} {
		f.Add(seed, uint8(2))
	}
	f.Fuzz(func(t *testing.T, in string, n uint8) {
		if _, err := parseInspectOptions([]byte(in)); err != nil && classify(err, statusInternal) != statusInvalidArgument {
			t.Fatalf("inspect options %q: %v is not an invalid argument", in, err)
		}
		tables := int(n%4) + 1
		entries, err := parseCatalogTx([]byte(in), tables)
		if err == nil && len(entries) != tables {
			t.Fatalf("%d entries for %d tables", len(entries), tables)
		}
		if err != nil && classify(err, statusInternal) != statusInvalidArgument {
			t.Fatalf("transactions %q: %v is not an invalid argument", in, err)
		}
	})
}
