package inspect

import (
	"context"
	"iter"
	"maps"
	"slices"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
)

// Refs is every branch and tag (Java's RefsTable, pyiceberg's
// inspect.refs): the snapshot it points at and its retention settings,
// null where the table-property default applies.
const Refs Kind = "refs"

func init() { register(Refs, openRefs) }

// refsSchema is Java's; pyiceberg types the type column as a
// dictionary-encoded string, here (as in Java) a plain one, "BRANCH" or
// "TAG" as both spell it.
var refsSchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "name", Type: iceberg.StringType{}, Required: true},
	{ID: 2, Name: "type", Type: iceberg.StringType{}, Required: true},
	{ID: 3, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
	{ID: 4, Name: "max_reference_age_in_ms", Type: iceberg.LongType{}},
	{ID: 5, Name: "min_snapshots_to_keep", Type: iceberg.IntType{}},
	{ID: 6, Name: "max_snapshot_age_in_ms", Type: iceberg.LongType{}},
})

func openRefs(t *table.Table, opts Options) (*source, error) {
	if err := noSnapshotChoice(Refs, opts); err != nil {
		return nil, err
	}
	md := t.Metadata
	return &source{schema: refsSchema, rows: func(context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			// Refs are a map in the metadata; by name, so the order is
			// stable.
			for _, name := range slices.Sorted(maps.Keys(md.Refs)) {
				r := md.Refs[name]
				row := []any{name, strings.ToUpper(r.Type), r.SnapshotID, nil, nil, nil}
				if r.MaxRefAgeMs != nil {
					row[3] = *r.MaxRefAgeMs
				}
				if r.MinSnapshotsToKeep != nil {
					row[4] = int32(*r.MinSnapshotsToKeep)
				}
				if r.MaxSnapshotAgeMs != nil {
					row[5] = *r.MaxSnapshotAgeMs
				}
				if !yield(row, nil) {
					return
				}
			}
		}
	}}, nil
}
