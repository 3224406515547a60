package inspect

import (
	"context"
	"fmt"
	"iter"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

// Manifests is the manifest list of one snapshot, the current one unless
// Options pick another (Java's ManifestsTable, pyiceberg's
// inspect.manifests): each manifest's content, size, spec, the snapshot
// that added it, its file counts split by data and delete content, and
// its partition summaries with bounds as text.
const Manifests Kind = "manifests"

func init() { register(Manifests, openManifests) }

// partitionSummaryType is one partition field's summary, bounds in the
// partition transform's human form (Java's Transform.toHumanString).
// contains_nan is optional as in Java's manifests table (its
// all_manifests declares it required, yet a writer may leave it out).
var partitionSummaryType = &iceberg.StructType{Fields: []iceberg.NestedField{
	{ID: 10, Name: "contains_null", Type: iceberg.BooleanType{}, Required: true},
	{ID: 11, Name: "contains_nan", Type: iceberg.BooleanType{}},
	{ID: 12, Name: "lower_bound", Type: iceberg.StringType{}},
	{ID: 13, Name: "upper_bound", Type: iceberg.StringType{}},
}}

// manifestFields are the columns manifests and all_manifests share, with
// Java's ids and types (content an int, where pyiceberg has int8). The
// data-file counts are optional here, as in Java's all_manifests: a v1
// manifest list may leave them null (Java's manifests table declares them
// required and still returns that null). manifestsTable: the columns
// Java's manifests table declares required and its all_manifests does not.
func manifestFields(manifestsTable bool) []iceberg.NestedField {
	return []iceberg.NestedField{
		{ID: 14, Name: "content", Type: iceberg.IntType{}, Required: true},
		{ID: 1, Name: "path", Type: iceberg.StringType{}, Required: true},
		{ID: 2, Name: "length", Type: iceberg.LongType{}, Required: true},
		{ID: 3, Name: "partition_spec_id", Type: iceberg.IntType{}, Required: manifestsTable},
		{ID: 4, Name: "added_snapshot_id", Type: iceberg.LongType{}, Required: manifestsTable},
		{ID: 5, Name: "added_data_files_count", Type: iceberg.IntType{}},
		{ID: 6, Name: "existing_data_files_count", Type: iceberg.IntType{}},
		{ID: 7, Name: "deleted_data_files_count", Type: iceberg.IntType{}},
		{ID: 15, Name: "added_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: 16, Name: "existing_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: 17, Name: "deleted_delete_files_count", Type: iceberg.IntType{}, Required: true},
		{ID: 8, Name: "partition_summaries", Required: manifestsTable,
			Type: &iceberg.ListType{ElementID: 9, Element: partitionSummaryType, ElementRequired: true}},
	}
}

var manifestsSchema = iceberg.NewSchema(0, manifestFields(true))

func openManifests(t *table.Table, opts Options) (*source, error) {
	snap, err := snapshotOf(t.Metadata, opts)
	if err != nil {
		return nil, err
	}
	return &source{schema: manifestsSchema, rows: func(ctx context.Context) iter.Seq2[[]any, error] {
		return func(yield func([]any, error) bool) {
			if snap == nil {
				return // no snapshot: no manifests
			}
			list, err := t.ManifestList(ctx, snap)
			if err != nil {
				yield(nil, err)
				return
			}
			specs := specTypes{t: t}
			for i := range list {
				row, err := manifestRow(&list[i], &specs)
				if !yield(row, err) || err != nil {
					return
				}
			}
		}
	}}, nil
}

// manifestRow is a manifest-list entry as a row of manifestFields: the
// file counts go to the data or the delete columns by the manifest's
// content, the others 0 (as Java and pyiceberg fill them).
func manifestRow(mf *manifest.ManifestFile, specs *specTypes) ([]any, error) {
	summaries, err := specs.summaries(mf)
	if err != nil {
		return nil, err
	}
	counts := []any{int32(0), int32(0), int32(0), int32(0), int32(0), int32(0)}
	at := 0
	if mf.Content == manifest.ManifestContentDeletes {
		at = 3
	}
	for i, n := range []int{mf.AddedFilesCount, mf.ExistingFilesCount, mf.DeletedFilesCount} {
		if n == manifest.UnknownCount {
			counts[at+i] = nil
		} else {
			counts[at+i] = int32(n)
		}
	}
	row := []any{int32(mf.Content), mf.Path, mf.Length, int32(mf.PartitionSpecID), mf.AddedSnapshotID}
	row = append(row, counts...)
	return append(row, summaries), nil
}

// specTypes caches each partition spec's partition type, for decoding
// the summaries' bounds.
type specTypes struct {
	t     *table.Table
	types map[int]*iceberg.StructType
}

func (s *specTypes) partitionType(spec *iceberg.PartitionSpec) (*iceberg.StructType, error) {
	if pt, ok := s.types[spec.ID]; ok {
		return pt, nil
	}
	pt, err := s.t.PartitionType(spec)
	if err != nil {
		return nil, err
	}
	if s.types == nil {
		s.types = map[int]*iceberg.StructType{}
	}
	s.types[spec.ID] = pt
	return pt, nil
}

// summaries is a manifest's partition summaries as list values, one per
// field of its spec (empty, not null, when the list records none, as
// pyiceberg gives them).
func (s *specTypes) summaries(mf *manifest.ManifestFile) ([]any, error) {
	out := make([]any, 0, len(mf.Partitions))
	if len(mf.Partitions) == 0 {
		return out, nil
	}
	spec := s.t.Metadata.SpecByID(mf.PartitionSpecID)
	if spec == nil {
		return nil, fmt.Errorf("manifest %s uses partition spec %d, which the table does not have", mf.Path, mf.PartitionSpecID)
	}
	if len(mf.Partitions) > len(spec.Fields) {
		return nil, fmt.Errorf("manifest %s has %d partition summaries for the %d fields of spec %d", mf.Path, len(mf.Partitions), len(spec.Fields), spec.ID)
	}
	pt, err := s.partitionType(spec)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	for i, fs := range mf.Partitions {
		f, typ := spec.Fields[i], pt.Fields[i].Type
		lower, err := humanBound(f, typ, fs.LowerBound)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: partition field %s: lower bound: %w", mf.Path, f.Name, err)
		}
		upper, err := humanBound(f, typ, fs.UpperBound)
		if err != nil {
			return nil, fmt.Errorf("manifest %s: partition field %s: upper bound: %w", mf.Path, f.Name, err)
		}
		var nan any
		if fs.ContainsNaN != nil {
			nan = *fs.ContainsNaN
		}
		out = append(out, []any{fs.ContainsNull, nan, lower, upper})
	}
	return out, nil
}

// humanBound is a summary bound as Java prints it: the binary single
// value decoded as the partition field's type (an older, narrower type's
// bytes read as their promotion) and spelled by the transform's human
// form; an absent bound is "null", as Java's toHumanString gives it
// (pyiceberg gives a null).
func humanBound(f iceberg.PartitionField, typ iceberg.Type, raw []byte) (string, error) {
	if raw == nil {
		return iceberg.HumanString(f.Transform, typ, nil), nil
	}
	v, err := iceberg.ValueFromBytes(typ, raw)
	if err != nil {
		return "", err
	}
	return iceberg.HumanString(f.Transform, typ, v), nil
}
