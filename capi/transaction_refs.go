package main

import (
	"strings"

	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// The branch, tag and main-moving actions of an action list: consecutive
// ones are one action.ManageSnapshots, each seeing the refs the ones
// before it left.

// txRetention are a branch's or tag's retention settings.
type txRetention struct {
	MinSnapshotsToKeep *int   `json:"min-snapshots-to-keep"`
	MaxSnapshotAgeMs   *int64 `json:"max-snapshot-age-ms"`
	MaxRefAgeMs        *int64 `json:"max-ref-age-ms"`
}

// apply chains the settings given on ref name.
func (r txRetention) apply(ms *action.ManageSnapshots, name string) {
	if r.MinSnapshotsToKeep != nil {
		ms.SetMinSnapshotsToKeep(name, *r.MinSnapshotsToKeep)
	}
	if r.MaxSnapshotAgeMs != nil {
		ms.SetMaxSnapshotAgeMs(name, *r.MaxSnapshotAgeMs)
	}
	if r.MaxRefAgeMs != nil {
		ms.SetMaxRefAgeMs(name, *r.MaxRefAgeMs)
	}
}

// txRefFields are the fields of a branch or tag action.
type txRefFields struct {
	Action     string `json:"action"`
	Name       string `json:"name"`
	SnapshotID *int64 `json:"snapshot-id"`
	// Ref is another branch or tag whose snapshot replace-branch takes.
	Ref     string `json:"ref"`
	NewName string `json:"new-name"`
	txRetention
}

// refs is the ManageSnapshots the action joins.
func refs(into *txActions) *action.ManageSnapshots {
	return group(into, "refs", func() *action.ManageSnapshots { return new(action.ManageSnapshots) })
}

// refAction parses a branch or tag action's fields, checking that each
// required one is given and that no other is.
func refAction(need, allow string, run func(ms *action.ManageSnapshots, v txRefFields)) func(txAction, *txActions) error {
	return func(a txAction, into *txActions) error {
		var v txRefFields
		if err := a.decode(&v); err != nil {
			return err
		}
		if v.Name == "" {
			return a.invalid("no \"name\"")
		}
		given := map[string]bool{
			"snapshot-id": v.SnapshotID != nil, "ref": v.Ref != "", "new-name": v.NewName != "",
			"min-snapshots-to-keep": v.MinSnapshotsToKeep != nil, "max-snapshot-age-ms": v.MaxSnapshotAgeMs != nil,
			"max-ref-age-ms": v.MaxRefAgeMs != nil,
		}
		for _, f := range strings.Fields(need) {
			if !given[f] {
				return a.invalid("no %q", f)
			}
		}
		allowed := map[string]bool{}
		for _, f := range strings.Fields(need + " " + allow) {
			allowed[f] = true
		}
		for _, f := range []string{"snapshot-id", "ref", "new-name", "min-snapshots-to-keep", "max-snapshot-age-ms", "max-ref-age-ms"} {
			if given[f] && !allowed[f] {
				return a.invalid("%q does not apply to %s", f, a.name)
			}
		}
		run(refs(into), v)
		return nil
	}
}

func snapshotOr0(id *int64) int64 {
	if id == nil {
		return 0
	}
	return *id
}

const branchRetention = "min-snapshots-to-keep max-snapshot-age-ms max-ref-age-ms"

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"create-branch": refAction("", "snapshot-id "+branchRetention, func(ms *action.ManageSnapshots, v txRefFields) {
			ms.CreateBranch(v.Name, snapshotOr0(v.SnapshotID))
			v.txRetention.apply(ms, v.Name)
		}),
		"create-tag": refAction("", "snapshot-id max-ref-age-ms", func(ms *action.ManageSnapshots, v txRefFields) {
			ms.CreateTag(v.Name, snapshotOr0(v.SnapshotID))
			v.txRetention.apply(ms, v.Name)
		}),
		"replace-branch": func(a txAction, into *txActions) error {
			// One of snapshot-id (Java's replaceBranch(name, id)) and ref
			// (replaceBranch(name, other)).
			var v txRefFields
			if err := a.decode(&v); err != nil {
				return err
			}
			if (v.SnapshotID == nil) == (v.Ref == "") {
				return a.invalid("give one of \"snapshot-id\" and \"ref\"")
			}
			allow := "snapshot-id " + branchRetention
			if v.Ref != "" {
				allow = "ref " + branchRetention
			}
			return refAction("", allow, func(ms *action.ManageSnapshots, v txRefFields) {
				if v.Ref != "" {
					ms.ReplaceBranchWith(v.Name, v.Ref)
				} else {
					ms.ReplaceBranch(v.Name, *v.SnapshotID)
				}
				v.txRetention.apply(ms, v.Name)
			})(a, into)
		},
		"replace-tag": refAction("snapshot-id", "max-ref-age-ms", func(ms *action.ManageSnapshots, v txRefFields) {
			ms.ReplaceTag(v.Name, *v.SnapshotID)
			v.txRetention.apply(ms, v.Name)
		}),
		"rename-branch": refAction("new-name", "", func(ms *action.ManageSnapshots, v txRefFields) {
			ms.RenameBranch(v.Name, v.NewName)
		}),
		"remove-branch": refAction("", "", func(ms *action.ManageSnapshots, v txRefFields) { ms.RemoveBranch(v.Name) }),
		"remove-tag":    refAction("", "", func(ms *action.ManageSnapshots, v txRefFields) { ms.RemoveTag(v.Name) }),
		"set-ref-retention": refAction("", branchRetention, func(ms *action.ManageSnapshots, v txRefFields) {
			v.txRetention.apply(ms, v.Name)
		}),
		"fast-forward": func(a txAction, into *txActions) error {
			var v struct {
				Action string `json:"action"`
				Branch string `json:"branch"`
				To     string `json:"to"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Branch == "" || v.To == "" {
				return a.invalid("give \"branch\" (the branch to move) and \"to\" (the branch or tag it moves to)")
			}
			refs(into).FastForwardBranch(v.Branch, v.To)
			return nil
		},
		"rollback-to-snapshot": func(a txAction, into *txActions) error {
			id, err := snapshotIDField(a)
			if err != nil {
				return err
			}
			refs(into).RollbackTo(id)
			return nil
		},
		"rollback-to-timestamp": func(a txAction, into *txActions) error {
			var v struct {
				Action      string `json:"action"`
				TimestampMs *int64 `json:"timestamp-ms"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.TimestampMs == nil {
				return a.invalid("no \"timestamp-ms\"")
			}
			refs(into).RollbackToTime(*v.TimestampMs)
			return nil
		},
		"set-current-snapshot": func(a txAction, into *txActions) error {
			// pyiceberg's set_current_snapshot(snapshot_id=, ref_name=).
			var v struct {
				Action     string `json:"action"`
				SnapshotID *int64 `json:"snapshot-id"`
				Ref        string `json:"ref"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if (v.SnapshotID == nil) == (v.Ref == "") {
				return a.invalid("give one of \"snapshot-id\" and \"ref\"")
			}
			if v.Ref != "" {
				refs(into).ReplaceBranchWith(metadata.MainBranch, v.Ref)
			} else {
				refs(into).SetCurrentSnapshot(*v.SnapshotID)
			}
			return nil
		},
	})
}

// snapshotIDField reads an action whose one field is "snapshot-id".
func snapshotIDField(a txAction) (int64, error) {
	var v struct {
		Action     string `json:"action"`
		SnapshotID *int64 `json:"snapshot-id"`
	}
	if err := a.decode(&v); err != nil {
		return 0, err
	}
	if v.SnapshotID == nil {
		return 0, a.invalid("no \"snapshot-id\"")
	}
	return *v.SnapshotID, nil
}

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		// cherry-pick is a snapshot step of its own (table.Transaction's
		// CherryPick), not a ref change: it may write a snapshot.
		"cherry-pick": func(a txAction, into *txActions) error {
			var v struct {
				Action             string            `json:"action"`
				SnapshotID         *int64            `json:"snapshot-id"`
				Branch             string            `json:"branch"`
				SnapshotProperties map[string]string `json:"snapshot-properties"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.SnapshotID == nil {
				return a.invalid("no \"snapshot-id\"")
			}
			opts := table.CommitOptions{Branch: v.Branch, Properties: v.SnapshotProperties}
			into.then(func(tx *table.Transaction) error { return tx.CherryPick(*v.SnapshotID, opts) })
			return nil
		},
	})
}
