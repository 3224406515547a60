package main

import (
	"context"
	"io"
	"maps"
	"slices"

	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// changeResult is what every command that changes a table without
// writing data (alter, branch, tag, rollback, cherry-pick, fast-forward)
// prints: one JSON object, with the same keys whatever the command, so a
// script reads them all one way (help's changeOutputHelp documents it).
type changeResult struct {
	// Command is the command ("alter", "branch", …); Actions what it was
	// asked to do, in order, in its own words ("add-column",
	// "create-branch", …).
	Command string   `json:"command"`
	Actions []string `json:"actions"`
	// Committed is false when the table already was as asked: nothing
	// was written.
	Committed        bool   `json:"committed"`
	MetadataLocation string `json:"metadata_location"`
	// What is current after the command.
	FormatVersion int `json:"format_version"`
	SchemaID      int `json:"schema_id"`
	SpecID        int `json:"spec_id"`
	SortOrderID   int `json:"sort_order_id"`
	// SnapshotID is main's snapshot (null for a table without one).
	SnapshotID *int64 `json:"snapshot_id"`
	// SnapshotIDs are the snapshots the command wrote ([] for none).
	SnapshotIDs []int64 `json:"snapshot_ids"`
	// Refs are the branches and tags the command changed, by name: null
	// for one it dropped (a rename drops the old name).
	Refs map[string]*refResult `json:"refs"`
	// PublishedWapID is the write-audit-publish id a cherry-pick
	// published (cherry-pick only, when the snapshot had one).
	PublishedWapID string `json:"published_wap_id,omitempty"`
}

// refResult is a branch or tag as the command left it.
type refResult struct {
	Type       string `json:"type"`
	SnapshotID int64  `json:"snapshot_id"`
	// PreviousSnapshotID is where it pointed before (null: it is new).
	PreviousSnapshotID *int64 `json:"previous_snapshot_id"`
}

// newChangeResult describes t after a command changed it from before.
func newChangeResult(command string, actions []string, before *metadata.Metadata, t *table.Table, committed bool, written []int64) changeResult {
	md := t.Metadata
	out := changeResult{
		Command: command, Actions: actions, Committed: committed,
		MetadataLocation: t.MetadataLocation, FormatVersion: md.FormatVersion,
		SchemaID: md.CurrentSchemaID, SpecID: md.DefaultSpecID, SortOrderID: md.DefaultSortOrderID,
		SnapshotIDs: append([]int64{}, written...), Refs: refChanges(before.Refs, md.Refs),
	}
	if cur := md.CurrentSnapshot(); cur != nil {
		id := cur.SnapshotID
		out.SnapshotID = &id
	}
	if out.Actions == nil {
		out.Actions = []string{}
	}
	return out
}

// refChanges are the refs that differ between before and after.
func refChanges(before, after map[string]metadata.Ref) map[string]*refResult {
	out := map[string]*refResult{}
	for _, name := range slices.Sorted(maps.Keys(before)) {
		if _, kept := after[name]; !kept {
			out[name] = nil
		}
	}
	for name, r := range after {
		old, had := before[name]
		if had && old.SnapshotID == r.SnapshotID && old.Type == r.Type {
			continue
		}
		res := &refResult{Type: r.Type, SnapshotID: r.SnapshotID}
		if had {
			prev := old.SnapshotID
			res.PreviousSnapshotID = &prev
		}
		out[name] = res
	}
	return out
}

// applyAndReport commits actions as one transaction on t and prints what
// it did; a refused action commits nothing and is the error.
func applyAndReport(ctx context.Context, out io.Writer, command string, names []string, t *table.Table, actions ...action.Action) error {
	before := t.Metadata
	res, err := t.Apply(ctx, actions...)
	if err != nil {
		return err
	}
	return writeJSON(out, newChangeResult(command, names, before, t, res.Committed, res.SnapshotIDs))
}
