package maintain

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/action"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/floedb/floe/iceberg/puffin/theta"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/version"
	"github.com/floedb/floe/reader/scan"
)

// StatisticsOptions choose what ComputeStatistics sketches.
type StatisticsOptions struct {
	// SnapshotID is the snapshot whose rows are sketched; nil: the
	// current one.
	SnapshotID *int64 `json:"snapshot-id,omitempty"`
	// Columns are the columns sketched, by name (dotted inside structs),
	// each of a primitive type; nil or empty: every top-level primitive
	// column, as Java's ComputeTableStats does.
	Columns []string `json:"columns,omitempty"`
}

// PropertyNDV is the blob property holding a theta sketch's estimate, a
// decimal integer (Java's NDVSketchUtil writes it, readers such as
// Trino's and Spark's cost models read it).
const PropertyNDV = "ndv"

// StatisticsResult is what ComputeStatistics registered.
type StatisticsResult struct {
	SnapshotID int64 `json:"snapshot-id"`
	// File is the statistics file as registered in the table metadata.
	File metadata.StatisticsFile `json:"-"`
	// Path is the Puffin file's location.
	Path string `json:"statistics-path"`
	// NDV is each column's estimated number of distinct values, by name.
	NDV map[string]int64 `json:"ndv"`
	// MergedFrom is the earlier snapshot whose sketches UpdateStatistics
	// merged with the appended rows'; 0 when the rows were all read.
	MergedFrom int64 `json:"merged-from-snapshot-id,omitempty"`
}

// statsColumn is one column to sketch: its name, field id and where its
// array lies in a scan's batch (top-level index, then struct children).
type statsColumn struct {
	name  string
	id    int
	path  []string
	build *theta.Sketch
}

// ComputeStatistics sketches the number of distinct values of columns of
// a snapshot (Iceberg's compute_table_stats): it reads the columns
// through floe's scan, feeds each non-null value, in its single-value
// binary form, to a theta sketch per column, writes the sketches as
// apache-datasketches-theta-v1 blobs of a Puffin file beside the table's
// metadata (<snapshot-id>-<uuid>.stats, zstd blobs, as Java writes them)
// and registers it with set-statistics in one commit through the table's
// commit path (its catalog when it has one), replacing the snapshot's
// earlier statistics file. The file is deleted again when the commit
// surely failed.
func ComputeStatistics(ctx context.Context, t *table.Table, opts StatisticsOptions) (StatisticsResult, error) {
	sel := table.SnapshotSelector{SnapshotID: opts.SnapshotID}
	snap, err := t.Snapshot(sel)
	if err != nil {
		return StatisticsResult{}, err
	}
	if snap == nil {
		return StatisticsResult{}, errkind.Errorf(errkind.InvalidArgument, "compute statistics: the table has no snapshot")
	}
	schema, err := t.ReadSchema(sel, snap)
	if err != nil {
		return StatisticsResult{}, err
	}
	cols, err := statisticsColumns(schema, opts.Columns)
	if err != nil {
		return StatisticsResult{}, fmt.Errorf("compute statistics of snapshot %d: %w", snap.SnapshotID, err)
	}
	id := snap.SnapshotID
	if err := sketchColumns(ctx, t, scan.Options{SnapshotID: &id}, cols); err != nil {
		return StatisticsResult{}, fmt.Errorf("compute statistics of snapshot %d: %w", snap.SnapshotID, err)
	}
	sketches := make([]*theta.Compact, len(cols))
	for i, c := range cols {
		sketches[i] = c.build.Compact()
	}
	return registerStatistics(ctx, t, snap, cols, sketches)
}

// statisticsColumns resolves the columns to sketch on schema.
func statisticsColumns(schema *iceberg.Schema, names []string) ([]*statsColumn, error) {
	var out []*statsColumn
	if len(names) == 0 {
		for _, f := range schema.Fields {
			if _, ok := f.Type.(iceberg.PrimitiveType); ok {
				out = append(out, &statsColumn{name: f.Name, id: f.ID, path: []string{f.Name}, build: theta.New()})
			}
		}
		if len(out) == 0 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "the schema has no primitive top-level column to sketch")
		}
		return out, nil
	}
	seen := map[int]bool{}
	for _, name := range names {
		path, f, err := structPath(schema, name)
		if err != nil {
			return nil, err
		}
		if _, ok := f.Type.(iceberg.PrimitiveType); !ok {
			return nil, errkind.Errorf(errkind.InvalidArgument, "column %q is a %s: only primitive columns have NDV sketches", name, f.Type)
		}
		if seen[f.ID] {
			return nil, errkind.Errorf(errkind.InvalidArgument, "column %q is named twice", name)
		}
		seen[f.ID] = true
		out = append(out, &statsColumn{name: name, id: f.ID, path: path, build: theta.New()})
	}
	return out, nil
}

// structPath finds a dotted name through structs (not lists or maps,
// whose elements a scan returns as nested lists).
func structPath(schema *iceberg.Schema, name string) ([]string, iceberg.NestedField, error) {
	fields := schema.Fields
	var path []string
	parts := strings.Split(name, ".")
	for i, part := range parts {
		var found *iceberg.NestedField
		names := make([]string, len(fields))
		for j := range fields {
			names[j] = fields[j].Name
			if fields[j].Name == part {
				found = &fields[j]
			}
		}
		if found == nil {
			prefix := strings.Join(parts[:i], ".")
			closest := iceberg.ClosestName(part, names)
			if prefix != "" && closest != "" {
				closest = prefix + "." + closest
			}
			return nil, iceberg.NestedField{}, errkind.Errorf(errkind.InvalidArgument, "no column %q in the schema (closest: %q)", name, closest)
		}
		path = append(path, part)
		if i == len(parts)-1 {
			return path, *found, nil
		}
		st, ok := found.Type.(*iceberg.StructType)
		if !ok {
			return nil, iceberg.NestedField{}, errkind.Errorf(errkind.Unsupported, "column %q: %q is a %s; only struct fields can be sketched by name", name, strings.Join(path, "."), found.Type)
		}
		fields = st.Fields
	}
	panic("unreachable")
}

// sketchColumns scans the columns once (the rows opts select: a
// snapshot's, or those appends added) and feeds each batch's arrays to
// the columns' sketches, one goroutine per column.
func sketchColumns(ctx context.Context, t *table.Table, opts scan.Options, cols []*statsColumn) error {
	opts.Columns = make([]string, len(cols))
	for i, c := range cols {
		opts.Columns[i] = c.name
	}
	sc, err := scan.New(ctx, t, opts)
	if err != nil {
		return err
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rr.Release()
	workers := min(len(cols), runtime.GOMAXPROCS(0))
	for rr.Next() {
		rec := rr.Record()
		errs := make([]error, len(cols))
		var wg sync.WaitGroup
		next := make(chan int, len(cols))
		for i := range cols {
			next <- i
		}
		close(next)
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					arr, valid, err := columnArray(rec, cols[i].path)
					if err == nil {
						err = hashColumn(cols[i].build, arr, valid)
					}
					if err != nil {
						errs[i] = fmt.Errorf("column %q: %w", cols[i].name, err)
					}
				}
			}()
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
	}
	return rr.Err()
}

// columnArray finds a column's array in a batch by its path; valid masks
// rows where a struct above it is null (nil when none is).
func columnArray(rec arrow.Record, path []string) (arrow.Array, []bool, error) {
	idx := rec.Schema().FieldIndices(path[0])
	if len(idx) != 1 {
		return nil, nil, fmt.Errorf("the scan returned %d columns named %q", len(idx), path[0])
	}
	arr := rec.Column(idx[0])
	var valid []bool
	for _, name := range path[1:] {
		st, ok := arr.(*array.Struct)
		if !ok {
			return nil, nil, fmt.Errorf("%q is not a struct in the scan's batch", name)
		}
		if st.NullN() > 0 {
			if valid == nil {
				valid = make([]bool, st.Len())
				for i := range valid {
					valid[i] = true
				}
			}
			for i := range valid {
				valid[i] = valid[i] && st.IsValid(i)
			}
		}
		j, ok := st.DataType().(*arrow.StructType).FieldIdx(name)
		if !ok {
			return nil, nil, fmt.Errorf("no field %q in the scan's struct", name)
		}
		arr = st.Field(j)
	}
	return arr, valid, nil
}

// registerStatistics writes the sketches as one Puffin file and commits
// it as snap's statistics file.
func registerStatistics(ctx context.Context, t *table.Table, snap *metadata.Snapshot, cols []*statsColumn, sketches []*theta.Compact) (StatisticsResult, error) {
	path := table.MetadataDirFile(t.Metadata, fmt.Sprintf("%d-%s.stats", snap.SnapshotID, uuid.NewString()))
	file, err := writeStatisticsFile(ctx, t, path, snap, cols, sketches)
	if err != nil {
		return StatisticsResult{}, err
	}
	if _, err := t.Apply(ctx, action.SetStatistics{File: file}); err != nil {
		if !errors.Is(err, errkind.CommitStateUnknown) {
			_ = t.IO.Delete(context.WithoutCancel(ctx), path)
		}
		return StatisticsResult{}, err
	}
	res := StatisticsResult{SnapshotID: snap.SnapshotID, File: file, Path: path, NDV: map[string]int64{}}
	for i, c := range cols {
		res.NDV[c.name] = ndv(sketches[i])
	}
	return res, nil
}

// ndv is the estimate as Java's NDVSketchUtil records it: truncated to a
// long.
func ndv(c *theta.Compact) int64 { return int64(c.Estimate()) }

func writeStatisticsFile(ctx context.Context, t *table.Table, path string, snap *metadata.Snapshot, cols []*statsColumn, sketches []*theta.Compact) (metadata.StatisticsFile, error) {
	w, err := t.IO.Create(ctx, path)
	if err != nil {
		return metadata.StatisticsFile{}, fmt.Errorf("statistics file %s: %w", path, err)
	}
	defer w.Abort()
	pw := puffin.NewWriter(w)
	file := metadata.StatisticsFile{SnapshotID: snap.SnapshotID, StatisticsPath: path}
	for i, c := range cols {
		blob, err := sketches[i].MarshalBinary()
		if err != nil {
			return file, err
		}
		props := map[string]string{PropertyNDV: strconv.FormatInt(ndv(sketches[i]), 10)}
		meta := puffin.BlobMetadata{
			Type: puffin.BlobTypeThetaSketch, Fields: []int32{int32(c.id)},
			SnapshotID: snap.SnapshotID, SequenceNumber: snap.SequenceNumber,
			CompressionCodec: puffin.CodecZstd, Properties: props,
		}
		if _, err := pw.AddBlob(meta, blob); err != nil {
			return file, fmt.Errorf("statistics file %s: %w", path, err)
		}
		file.BlobMetadata = append(file.BlobMetadata, metadata.BlobMetadata{
			Type: puffin.BlobTypeThetaSketch, SnapshotID: snap.SnapshotID, SequenceNumber: snap.SequenceNumber,
			Fields: []int{c.id}, Properties: props,
		})
	}
	if err := pw.Finish(map[string]string{puffin.PropertyCreatedBy: "floe " + version.String}); err != nil {
		return file, fmt.Errorf("statistics file %s: %w", path, err)
	}
	if err := w.Close(); err != nil {
		return file, fmt.Errorf("statistics file %s: %w", path, err)
	}
	file.FileSizeInBytes = pw.Size()
	file.FileFooterSizeInBytes = pw.FooterSize()
	return file, nil
}
