package inspect

import (
	"context"
	"iter"
	"maps"
	"slices"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Snapshots is every snapshot of the table (Java's SnapshotsTable,
// pyiceberg's inspect.snapshots): when it was committed, its parent, its
// operation, its manifest list and its summary.
const Snapshots Kind = "snapshots"

func init() { register(Snapshots, openSnapshots) }

var snapshotsSchema = iceberg.NewSchema(0, []iceberg.NestedField{
	{ID: 1, Name: "committed_at", Type: iceberg.TimestamptzType{}, Required: true},
	{ID: 2, Name: "snapshot_id", Type: iceberg.LongType{}, Required: true},
	{ID: 3, Name: "parent_id", Type: iceberg.LongType{}},
	{ID: 4, Name: "operation", Type: iceberg.StringType{}},
	{ID: 5, Name: "manifest_list", Type: iceberg.StringType{}},
	{ID: 6, Name: "summary", Type: &iceberg.MapType{KeyID: 7, Key: iceberg.StringType{}, ValueID: 8, Value: iceberg.StringType{}, ValueRequired: true}},
})

func openSnapshots(t *table.Table, opts Options) (*source, error) {
	if err := noSnapshotChoice(Snapshots, opts); err != nil {
		return nil, err
	}
	md := t.Metadata
	return &source{schema: snapshotsSchema, rows: func(context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			for i := range md.Snapshots {
				if !yield(snapshotRow(&md.Snapshots[i]), nil) {
					return
				}
			}
		}
	}}, nil
}

func snapshotRow(s *metadata.Snapshot) []any {
	var parent, op, list any
	if s.ParentSnapshotID != nil {
		parent = *s.ParentSnapshotID
	}
	if o := s.Operation(); o != "" {
		op = o
	}
	if s.ManifestList != "" {
		list = s.ManifestList
	}
	return []any{s.TimestampMs * 1000, s.SnapshotID, parent, op, list, stringMap(s.Summary, "operation")}
}

// stringMap is a map column's value, keys sorted, without the keys
// skip names (the summary's operation has a column of its own, as in
// Java).
func stringMap(m map[string]string, skip ...string) any {
	if m == nil {
		return nil
	}
	var mv iceberg.MapValue
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if slices.Contains(skip, k) {
			continue
		}
		mv.Keys = append(mv.Keys, k)
		mv.Values = append(mv.Values, m[k])
	}
	return mv
}
