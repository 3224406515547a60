package inspect

import (
	"context"
	"iter"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// AllManifests is the manifests of every snapshot the table still has
// (Java's AllManifestsTable, pyiceberg's inspect.all_manifests): the
// manifests table's columns for each snapshot's manifest list, with the
// snapshot it was listed by (reference_snapshot_id) and the manifest's
// key metadata. A manifest kept by several snapshots appears once for
// each. Lists are read one at a time, and a filter on
// reference_snapshot_id skips the snapshots it rules out unread, as Java
// does.
const AllManifests Kind = "all_manifests"

func init() { register(AllManifests, openAllManifests) }

const referenceSnapshotIDField = 18

var allManifestsSchema = iceberg.NewSchema(0, append(manifestFields(false),
	iceberg.NestedField{ID: referenceSnapshotIDField, Name: "reference_snapshot_id", Type: iceberg.LongType{}, Required: true},
	iceberg.NestedField{ID: 19, Name: "key_metadata", Type: iceberg.BinaryType{}},
))

func openAllManifests(t *table.Table, opts Options) (*source, error) {
	if err := noSnapshotChoice(AllManifests, opts); err != nil {
		return nil, err
	}
	wanted := snapshotsWanted(opts)
	return &source{schema: allManifestsSchema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			specs := specTypes{t: t}
			for i := range t.Metadata.Snapshots {
				snap := &t.Metadata.Snapshots[i]
				if !wanted(snap.SnapshotID) {
					continue
				}
				if !yieldManifestsOf(ctx, t, snap, &specs, yield) {
					return
				}
			}
		}
	}}, nil
}

// yieldManifestsOf yields the rows of one snapshot's manifest list; false
// when the caller stopped or an error ended the stream.
func yieldManifestsOf(ctx context.Context, t *table.Table, snap *metadata.Snapshot, specs *specTypes, yield func([]any, error) bool) bool {
	list, err := t.ManifestList(ctx, snap)
	if err != nil {
		yield(nil, err)
		return false
	}
	for i := range list {
		row, err := manifestRow(&list[i], specs)
		if err != nil {
			yield(nil, err)
			return false
		}
		var key any
		if list[i].KeyMetadata != nil {
			key = list[i].KeyMetadata
		}
		if !yield(append(row, snap.SnapshotID, key), nil) {
			return false
		}
	}
	return true
}

// snapshotsWanted decides from the filter alone which snapshots' lists
// can hold a matching row: the filter with reference_snapshot_id set to
// the snapshot's id and every other column's predicate assumed to hold.
// A filter that does not bind keeps every snapshot (the reader reports
// its error).
func snapshotsWanted(opts Options) func(id int64) bool {
	keep := func(int64) bool { return true }
	if opts.Filter == nil {
		return keep
	}
	bound, err := expr.Bind(opts.Filter, allManifestsSchema, opts.CaseInsensitive)
	if err != nil {
		return keep
	}
	others := expr.ForgetFields(bound, func(id int) bool { return id != referenceSnapshotIDField }, true)
	return func(snapshotID int64) bool {
		decided := expr.FoldConstants(others, func(id int) (any, bool) {
			return snapshotID, id == referenceSnapshotIDField
		})
		_, none := decided.(expr.AlwaysFalse)
		return !none
	}
}
