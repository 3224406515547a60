package main

import (
	"context"
	"errors"
	"io"

	"github.com/floedb/floe/iceberg/table"
)

const cherryPickUsage = "usage: floe cherry-pick TABLE SNAPSHOT_ID [--branch NAME] [--property K=V]…"

// runCherryPick applies a snapshot onto a branch (main by default):
// publishes a staged write-audit-publish snapshot, or carries an append
// or partition replacement from one branch to another
// (table.CherryPick).
func runCherryPick(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "branch", "property"}, []string{"no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) != 2 {
		return errors.New(cherryPickUsage)
	}
	id, err := parseSnapshotID("SNAPSHOT_ID", a.positional[1])
	if err != nil {
		return err
	}
	props, err := keyValues(a.values["property"], "--property")
	if err != nil {
		return err
	}
	branch, _ := a.last("branch")
	t, err := a.loadTable(ctx, a.positional[0])
	if err != nil {
		return err
	}
	before := t.Metadata
	res, err := t.CherryPick(ctx, id, table.CommitOptions{Branch: branch, Properties: props})
	if err != nil {
		return err
	}
	var written []int64
	if !res.FastForward {
		written = []int64{res.SnapshotID}
	}
	result := newChangeResult("cherry-pick", []string{"cherry-pick"}, before, t, true, written)
	result.PublishedWapID = res.PublishedWapID
	return writeJSON(out, result)
}
