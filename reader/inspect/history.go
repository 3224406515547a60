package inspect

import (
	"context"
	"iter"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
)

// History is the snapshot log (Java's HistoryTable, pyiceberg's
// inspect.history): when each snapshot became the current one —
// rollbacks included, so a snapshot may appear twice — its parent, and
// whether it is an ancestor of the current snapshot (false for one
// rolled back past).
const History Kind = "history"

func init() { register(History, openHistory) }

// historySchema is Java's; pyiceberg spells made_current_at as a
// millisecond timestamp without zone, Java (followed here) as
// timestamptz in microseconds.
var historySchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "made_current_at", Type: iceberg.TimestamptzType{}, Required: true},
	{ID: 2, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
	{ID: 3, Name: "parent_id", Type: iceberg.LongType{}},
	{ID: 4, Name: "is_current_ancestor", Type: iceberg.BooleanType{}, Required: true},
})

func openHistory(t *table.Table, opts Options) (*source, error) {
	if err := noSnapshotChoice(History, opts); err != nil {
		return nil, err
	}
	md := t.Metadata
	return &source{schema: historySchema, rows: func(context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			ancestors := map[int64]bool{}
			for _, s := range md.Ancestors(md.CurrentSnapshot()) {
				ancestors[s.SnapshotID] = true
			}
			for _, e := range md.SnapshotLog {
				// An expired snapshot still in the log has no parent to
				// show (Java: null).
				var parent any
				if s := md.SnapshotByID(e.SnapshotID); s != nil && s.ParentSnapshotID != nil {
					parent = *s.ParentSnapshotID
				}
				if !yield([]any{e.TimestampMs * 1000, e.SnapshotID, parent, ancestors[e.SnapshotID]}, nil) {
					return
				}
			}
		}
	}}, nil
}
