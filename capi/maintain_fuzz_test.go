package main

import (
	"testing"

	"github.com/floedb/floe/internal/maintenance"
	"github.com/floedb/floe/maintain"
)

// The maintenance actions' options, upsert's options and the distributed
// compaction's group and results are parsers of caller JSON: anything
// they are given is refused with an invalid-argument error or read,
// never a panic.
func FuzzMaintenanceInputs(f *testing.F) {
	actions := maintenance.Actions()
	for _, seed := range []string{
		`{"dry_run": true, "older_than_ms": 5, "force": true, "location": "data"}`,
		`{"target_file_size_bytes": 1024, "strategy": "zorder", "zorder_columns": ["a"], "filter": "x > 1"}`,
		`{"token": "t", "branch": "b", "properties": {"k": "v"}, "timeout_ms": 10}`,
		`{"join_cols": ["id"], "mode": "copy-on-write", "when_matched_update_all": false}`,
		`{"id": 1, "data_files": ["a"], "tasks": [{}], "starting_snapshot_id": 2}`,
		`[{"group_id": 1, "added": "AAAA"}]`, `[`, `{}`, `null`, `[]`, `{"skip_orphans": 1}`,
	} {
		for i := range actions {
			f.Add(seed, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, in string, which uint8) {
		check := func(what string, err error) {
			if err != nil && classify(err, statusInternal) != statusInvalidArgument {
				t.Fatalf("%s %q: %v is not an invalid argument", what, in, err)
			}
		}
		_, err := maintenance.Parse(actions[int(which)%len(actions)], []byte(in))
		check(actions[int(which)%len(actions)]+" options", err)
		_, _, err = parseUpsertOptions([]byte(in))
		check("upsert options", err)
		var g maintain.FileGroup
		check("file group", decodeStrict([]byte(in), &g, "file group"))
		_, err = decodeGroupResults([]byte(in))
		check("group results", err)
	})
}
