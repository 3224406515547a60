package scan

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
)

// Reserved field ids of a changelog's metadata columns (Java's
// MetadataColumns CHANGE_TYPE, CHANGE_ORDINAL, COMMIT_SNAPSHOT_ID).
const (
	FieldIDChangeType       = 2147483543
	FieldIDChangeOrdinal    = 2147483542
	FieldIDCommitSnapshotID = 2147483541
)

// The values of _change_type, as Java's ChangelogOperation names them.
const (
	ChangeInsert       = "INSERT"
	ChangeDelete       = "DELETE"
	ChangeUpdateBefore = "UPDATE_BEFORE"
	ChangeUpdateAfter  = "UPDATE_AFTER"
)

// changeFields are the changelog's metadata columns, after the table's.
var changeFields = []iceberg.NestedField{
	{ID: FieldIDChangeType, Name: "_change_type", Type: iceberg.StringType{}, Required: true},
	{ID: FieldIDChangeOrdinal, Name: "_change_ordinal", Type: iceberg.IntType{}},
	{ID: FieldIDCommitSnapshotID, Name: "_commit_snapshot_id", Type: iceberg.LongType{}},
}

// changeGroupVersion is bumped when a serialised ChangeGroup changes
// shape; a reader refuses versions it does not know.
const changeGroupVersion = 1

// ChangeGroup is a unit of a changelog scan, read on its own and
// serialisable for another process or machine: changes of one snapshot
// (all of them when its rows must be matched: see ChangelogScan).
type ChangeGroup struct {
	Version    int   `json:"version"`
	Ordinal    int   `json:"ordinal"`
	SnapshotID int64 `json:"snapshot_id"`
	// Columns are the output columns by name: the table's top-level
	// columns (Items' tasks read them all) and the change columns.
	Columns []string `json:"columns"`
	// KeyColumns are the identifier fields' indexes among the table's
	// columns; nil when updates are not recognised.
	KeyColumns []int        `json:"key_columns,omitempty"`
	Items      []ChangeItem `json:"items"`
}

// ChangeItem is one data file of a group: Kind "added" (its rows, read
// by Task with the deletes at the snapshot, were inserted), "removed"
// (its rows, read with the deletes just before, were deleted) or
// "deletes" (Task reads the rows live just before, with _pos; those whose
// position After's deletes remove were deleted, and, where a delete file
// of Task's is not among After's, rows live after whose position was not
// live before were inserted).
type ChangeItem struct {
	Kind  string       `json:"kind"`
	Task  *Task        `json:"-"`
	After []TaskDelete `json:"after,omitempty"`
}

type changeItemJSON struct {
	Kind  string          `json:"kind"`
	Task  json.RawMessage `json:"task"`
	After []TaskDelete    `json:"after,omitempty"`
}

// twoSided reports whether the group has both deleted and inserted rows,
// which must be matched.
func (g *ChangeGroup) twoSided() bool {
	var ins, del bool
	for _, it := range g.Items {
		if it.Kind == "added" {
			ins = true
		} else {
			del = true
		}
	}
	return ins && del
}

// MarshalBinary serialises the group as JSON, each task in its own form.
func (g *ChangeGroup) MarshalBinary() ([]byte, error) {
	items := make([]changeItemJSON, len(g.Items))
	for i, it := range g.Items {
		raw, err := it.Task.MarshalBinary()
		if err != nil {
			return nil, err
		}
		items[i] = changeItemJSON{Kind: it.Kind, Task: raw, After: it.After}
	}
	type plain ChangeGroup
	return json.Marshal(struct {
		plain
		Items []changeItemJSON `json:"items"`
	}{plain(*g), items})
}

// UnmarshalChangeGroup reads a serialised ChangeGroup; bytes it cannot
// read as one are an invalid argument.
func UnmarshalChangeGroup(data []byte) (*ChangeGroup, error) {
	g, err := unmarshalChangeGroup(data)
	if err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, err)
	}
	return g, nil
}

func unmarshalChangeGroup(data []byte) (*ChangeGroup, error) {
	var raw struct {
		Version    int              `json:"version"`
		Ordinal    int              `json:"ordinal"`
		SnapshotID int64            `json:"snapshot_id"`
		Columns    []string         `json:"columns"`
		KeyColumns []int            `json:"key_columns"`
		Items      []changeItemJSON `json:"items"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("serialised change group: %w", err)
	}
	if raw.Version != changeGroupVersion {
		return nil, fmt.Errorf("serialised change group has version %d; this floe reads version %d", raw.Version, changeGroupVersion)
	}
	g := &ChangeGroup{Version: raw.Version, Ordinal: raw.Ordinal, SnapshotID: raw.SnapshotID, Columns: raw.Columns, KeyColumns: raw.KeyColumns}
	for i, it := range raw.Items {
		switch it.Kind {
		case "added", "removed", "deletes":
		default:
			return nil, fmt.Errorf("serialised change group: item %d has kind %q (added, removed or deletes)", i, it.Kind)
		}
		task, err := UnmarshalTask(it.Task)
		if err != nil {
			return nil, fmt.Errorf("serialised change group: item %d: %w", i, err)
		}
		g.Items = append(g.Items, ChangeItem{Kind: it.Kind, Task: task, After: it.After})
	}
	if len(g.Items) == 0 {
		return nil, fmt.Errorf("serialised change group has no items")
	}
	return g, g.check()
}

// check refuses a group whose columns or keys do not fit its tasks.
func (g *ChangeGroup) check() error {
	n := len(g.Items[0].Task.dataFields())
	// Items' rows land in one schema (item 0's) and are matched column by
	// column: every item must read the same columns, in the same order.
	first, err := arrowschema.ArrowSchema(g.Items[0].Task.dataFields())
	if err != nil {
		return errkind.Errorf(errkind.InvalidArgument, "change group: item 0: %v", err)
	}
	for i, it := range g.Items {
		if len(it.Task.dataFields()) != n {
			return fmt.Errorf("change group: item %d reads %d table columns, item 0 reads %d", i, len(it.Task.dataFields()), n)
		}
		if s, err := arrowschema.ArrowSchema(it.Task.dataFields()); err != nil || !s.Equal(first) {
			return errkind.Errorf(errkind.InvalidArgument, "change group: item %d reads other table columns than item 0", i)
		}
		if it.Kind == "deletes" && !it.Task.readsPos() {
			return fmt.Errorf("change group: item %d (deletes) does not read _pos", i)
		}
	}
	for _, k := range g.KeyColumns {
		if k < 0 || k >= n {
			return fmt.Errorf("change group: key column %d out of range (%d table columns)", k, n)
		}
	}
	return nil
}

// dataFields are the task's fields other than _pos.
func (t *Task) dataFields() []iceberg.NestedField {
	out := make([]iceberg.NestedField, 0, len(t.Fields))
	for _, f := range t.Fields {
		if f.ID != FieldIDPos {
			out = append(out, f)
		}
	}
	return out
}

func (t *Task) readsPos() bool {
	for _, f := range t.Fields {
		if f.ID == FieldIDPos {
			return true
		}
	}
	return false
}
