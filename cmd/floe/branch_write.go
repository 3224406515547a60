package main

import (
	"fmt"

	"github.com/floedb/floe/iceberg/table"
)

// writeFlags are the value flags of every command that commits a
// snapshot (append, delete, add-files), writeBools its bool flags.
var (
	writeFlags = []string{"token", "property", "branch", "wap-id"}
	writeBools = []string{"stage"}
)

// writeOptions reads the write flags: --token, --property K=V, --branch
// NAME (commit to that branch, created from main when missing), --wap-id
// ID (write-audit-publish: recorded in the snapshot, which is staged
// when the table's write.wap.enabled is true) and --stage (stage the
// snapshot whatever the property says).
func writeOptions(a *args) (table.CommitOptions, error) {
	props, err := keyValues(a.values["property"], "--property")
	if err != nil {
		return table.CommitOptions{}, err
	}
	opts := table.CommitOptions{Properties: props, StageOnly: a.bools["stage"]}
	opts.Token, _ = a.last("token")
	opts.Branch, _ = a.last("branch")
	opts.WapID, _ = a.last("wap-id")
	return opts, nil
}

// snapshotLabel names a snapshot a write committed, with where it went
// when that is not main: "snapshot 12 (branch audit)", "snapshot 12
// (staged, wap.id w1; publish with floe cherry-pick)".
func snapshotLabel(t *table.Table, opts table.CommitOptions, id int64) string {
	label := fmt.Sprintf("snapshot %d", id)
	branch := opts.Branch
	if branch == "" {
		branch = "main"
	}
	if (opts.StageOnly || opts.WapID != "") && id != 0 && !onBranch(t, branch, id) {
		if opts.WapID != "" {
			return fmt.Sprintf("%s (staged, wap.id %s; publish with floe cherry-pick)", label, opts.WapID)
		}
		return label + " (staged; publish with floe cherry-pick)"
	}
	if branch != "main" {
		return fmt.Sprintf("%s (branch %s)", label, branch)
	}
	return label
}

// onBranch says whether snapshot id is in branch's history.
func onBranch(t *table.Table, branch string, id int64) bool {
	head, err := t.Metadata.SnapshotByRef(branch)
	if err != nil {
		return false
	}
	for _, s := range t.Metadata.Ancestors(head) {
		if s.SnapshotID == id {
			return true
		}
	}
	return false
}
