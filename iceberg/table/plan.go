package table

import (
	"context"
	"fmt"
	"sort"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
)

// DataFileTask is one data file of a snapshot and the delete files that
// apply to it.
type DataFileTask struct {
	// Path is where the file is read from: the manifest's path with the
	// location map applied (File.FilePath keeps the path as written).
	Path               string
	File               manifest.DataFile
	DataSequenceNumber int64
	FileSequenceNumber int64
	Deletes            []*DeleteFile
	// Residual is the part of the plan's filter this file's partition does
	// not decide, bound to the plan's Schema (see PlanFilesFiltered): rows
	// of the file pass the filter exactly when they pass the residual. Nil
	// when the plan has no filter.
	Residual expr.Expr
}

// DeleteFile is a live delete file of a snapshot: position deletes, a
// deletion vector, or equality deletes.
type DeleteFile struct {
	Path               string
	File               manifest.DataFile
	DataSequenceNumber int64
	FileSequenceNumber int64
}

// IsDeletionVector reports whether the delete file is a v3 deletion vector
// (a blob inside a Puffin file).
func (d *DeleteFile) IsDeletionVector() bool {
	return d.File.Content == manifest.ContentPositionDeletes && d.File.ContentOffset != nil && isPuffin(d.File.FileFormat)
}

// Plan is what a snapshot holds: its live data files, each with its deletes,
// and every live delete file.
type Plan struct {
	// Snapshot is nil for a table with no snapshot; the plan is then empty.
	Snapshot *metadata.Snapshot
	// Schema is the schema the read sees (ReadSchema): the table's for the
	// current snapshot or a branch, the snapshot's when travelling in time.
	Schema      *iceberg.Schema
	Tasks       []DataFileTask
	DeleteFiles []*DeleteFile
	// ManifestsRead counts the manifests whose entries the plan used:
	// every delete manifest, and each data manifest whose files were
	// handed over (a stream stopped early may have read a few more
	// ahead, uncounted).
	ManifestsRead int
	// ManifestsSkipped counts manifests a filter ruled out by their
	// partition summaries, unread; DataFilesSkipped the live data files of
	// the manifests read that it ruled out by partition or metrics.
	ManifestsSkipped int
	DataFilesSkipped int
	// IO, when set, reads this plan's files instead of the table's FileIO:
	// a server that planned the scan may vend credentials for them alone.
	IO fileio.FileIO
}

// RecordCount sums the record counts of the planned data files (before
// deletes are applied).
func (p *Plan) RecordCount() int64 {
	var n int64
	for _, t := range p.Tasks {
		n += t.File.RecordCount
	}
	return n
}

// PlanFiles lists the live data and delete files of the selected snapshot.
func (t *Table) PlanFiles(ctx context.Context, sel SnapshotSelector) (*Plan, error) {
	return t.PlanFilesFiltered(ctx, sel, nil, false)
}

// manifestsOf reads the snapshot's manifest list; old v1 snapshots that
// name their manifests inline get entries built from the snapshot itself.
func (t *Table) manifestsOf(ctx context.Context, snap *metadata.Snapshot) ([]manifest.ManifestFile, error) {
	md := t.Metadata
	if snap.ManifestList == "" {
		out := make([]manifest.ManifestFile, len(snap.Manifests))
		for i, p := range snap.Manifests {
			out[i] = manifest.ManifestFile{Path: p, PartitionSpecID: md.DefaultSpecID, AddedSnapshotID: snap.SnapshotID}
		}
		return out, nil
	}
	data, err := fileio.ReadFileLimited(ctx, t.IO, snap.ManifestList, MaxManifestListBytes)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: read manifest list: %w", snap.SnapshotID, err)
	}
	list, err := manifest.ReadManifestList(data, md.FormatVersion)
	if err != nil {
		return nil, fmt.Errorf("snapshot %d: manifest list %s: %w", snap.SnapshotID, snap.ManifestList, err)
	}
	return list, nil
}

// readManifests reads manifests concurrently, keeping the list's order:
// streamManifests collecting every manifest, so commits, expiry and purge
// read as planning does (a window at a time, the first error in list
// order, a stop honoured, a panic an error).
func (t *Table) readManifests(ctx context.Context, manifests []manifest.ManifestFile) ([][]manifest.Entry, error) {
	out := make([][]manifest.Entry, len(manifests))
	read := func(ctx context.Context, i int) manifestRead {
		var r manifestRead
		r.entries, r.err = t.readManifest(ctx, manifests[i])
		return r
	}
	err := streamManifests(ctx, manifests, read, func(i int, r *manifestRead) error {
		out[i] = r.entries
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (t *Table) readManifest(ctx context.Context, mf manifest.ManifestFile) ([]manifest.Entry, error) {
	md := t.Metadata
	spec := md.SpecByID(mf.PartitionSpecID)
	if spec == nil {
		return nil, fmt.Errorf("manifest %s uses partition spec %d, which the table does not have", mf.Path, mf.PartitionSpecID)
	}
	partType, err := t.PartitionType(spec)
	if err != nil {
		return nil, fmt.Errorf("manifest %s: %w", mf.Path, err)
	}
	data, err := fileio.ReadFileLimited(ctx, t.IO, mf.Path, MaxManifestBytes)
	if err != nil {
		return nil, fmt.Errorf("read manifest: %w", err)
	}
	return manifest.ReadManifest(data, mf, *spec, partType, md.FormatVersion)
}

// ContentFileTypes are what the REST JSON form of the table's content
// files is read and written with: every spec's partition type
// (PartitionType), and schema for the bounds.
func (t *Table) ContentFileTypes(schema *iceberg.Schema) (manifest.ContentFileTypes, error) {
	types := manifest.ContentFileTypes{Partitions: map[int]*iceberg.StructType{}, Schema: schema}
	for i := range t.Metadata.PartitionSpecs {
		spec := &t.Metadata.PartitionSpecs[i]
		pt, err := t.PartitionType(spec)
		if err != nil {
			return types, err
		}
		types.Partitions[spec.ID] = pt
	}
	return types, nil
}

// PartitionType is the struct type of a spec's partition tuples. A spec's
// source columns are looked up in the current schema first, then in older
// schemas, since a column may have been dropped after the spec was replaced.
func (t *Table) PartitionType(spec *iceberg.PartitionSpec) (*iceberg.StructType, error) {
	md := t.Metadata
	pt, err := spec.PartitionType(md.CurrentSchema())
	if err == nil {
		return pt, nil
	}
	for i := len(md.Schemas) - 1; i >= 0; i-- {
		if pt, e := spec.PartitionType(md.Schemas[i]); e == nil {
			return pt, nil
		}
	}
	return nil, err
}

// UnifiedPartitionType is the struct of every partition field any of the
// table's specs has ever had, by field id, in the order the specs
// introduced them: the type of the _partition metadata column. Its fields
// are optional, since a file written under one spec has no value for
// another spec's fields.
func (t *Table) UnifiedPartitionType() (*iceberg.StructType, error) {
	specs := append([]iceberg.PartitionSpec(nil), t.Metadata.PartitionSpecs...)
	sort.Slice(specs, func(i, j int) bool { return specs[i].ID < specs[j].ID })
	out := &iceberg.StructType{}
	seen := map[int]bool{}
	for i := range specs {
		pt, err := t.PartitionType(&specs[i])
		if err != nil {
			return nil, err
		}
		for _, f := range pt.Fields {
			if seen[f.ID] {
				continue
			}
			seen[f.ID] = true
			f.Required = false
			out.Fields = append(out.Fields, f)
		}
	}
	return out, nil
}
