package maintain

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

// GroupResult is what rewriting one group wrote: the files that replace
// the group's. It is JSON (the files through writer.EncodeDataFiles), so
// a worker can hand it back to the client that commits.
type GroupResult struct {
	GroupID            int
	StartingSnapshotID int64
	// Removed are the group's data files; Added the files written.
	Removed []string
	Added   []manifest.DataFile
	// SpecChange: rows of the group moved to partitions of another spec
	// (FileGroup.SpecChange), so its commit gives the new files a fresh
	// sequence number (see CommitRewrite).
	SpecChange bool
}

type groupResultJSON struct {
	GroupID            int             `json:"group_id"`
	StartingSnapshotID int64           `json:"starting_snapshot_id"`
	Removed            []string        `json:"removed"`
	Added              json.RawMessage `json:"added"`
	SpecChange         bool            `json:"spec_change,omitempty"`
}

// MarshalJSON encodes the result, added files and all.
func (r GroupResult) MarshalJSON() ([]byte, error) {
	added, err := writer.EncodeDataFiles(r.Added)
	if err != nil {
		return nil, err
	}
	return json.Marshal(groupResultJSON{GroupID: r.GroupID, StartingSnapshotID: r.StartingSnapshotID, Removed: r.Removed, Added: added, SpecChange: r.SpecChange})
}

// UnmarshalJSON decodes a result MarshalJSON wrote.
func (r *GroupResult) UnmarshalJSON(data []byte) error {
	var j groupResultJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return errkind.Errorf(errkind.InvalidArgument, "group result: %v", err)
	}
	added, err := writer.DecodeDataFiles(j.Added)
	if err != nil {
		return errkind.Errorf(errkind.InvalidArgument, "group result %d: %v", j.GroupID, err)
	}
	*r = GroupResult{GroupID: j.GroupID, StartingSnapshotID: j.StartingSnapshotID, Removed: j.Removed, Added: added, SpecChange: j.SpecChange}
	return nil
}

// RewriteGroup reads a group's rows, every delete applied, and writes
// them as new data files of its partition (of the partitions of its spec
// they fall in, when the group repartitions) near the group's target size
// (the table's other write.* properties apply), with their row lineage
// when the group carries it, sorted when it names a sort order (each
// writer.Options.SortBufferSize of rows sorted as one run: a larger
// group's files are each sorted, not ordered among themselves). It commits nothing: CommitRewrite does. On
// an error, the files it wrote are deleted.
func RewriteGroup(ctx context.Context, t *table.Table, g FileGroup) (GroupResult, error) {
	md := t.Metadata
	spec := md.SpecByID(g.SpecID)
	if spec == nil {
		return GroupResult{}, errkind.Errorf(errkind.NotFound, "rewrite group %d: partition spec %d is not in the table", g.ID, g.SpecID)
	}
	schema := md.CurrentSchema()
	if schema == nil {
		return GroupResult{}, fmt.Errorf("rewrite group %d: table %s has no current schema", g.ID, md.Location)
	}
	wopts, err := writer.OptionsFromProperties(md.Properties, schema)
	if err != nil {
		return GroupResult{}, fmt.Errorf("rewrite group %d: %w", g.ID, err)
	}
	if g.TargetFileSizeBytes > 0 {
		wopts.TargetFileSize = g.TargetFileSizeBytes
	}
	if g.SortOrderID != nil {
		// The writer sorts what it holds (up to its sort buffer) and
		// records the order in each file's entry.
		if wopts.SortOrder = md.SortOrderByID(*g.SortOrderID); wopts.SortOrder == nil {
			return GroupResult{}, errkind.Errorf(errkind.NotFound, "rewrite group %d: sort order %d is not in the table", g.ID, *g.SortOrderID)
		}
	}
	if len(g.ZOrderColumns) > 0 {
		if err := checkZOrderColumns(schema, g.ZOrderColumns); err != nil {
			return GroupResult{}, fmt.Errorf("rewrite group %d: %w", g.ID, err)
		}
		wopts.SortOrder, wopts.SortOrderID = nil, nil // a z-order or Hilbert order is none of the table's orders
		wopts.RowOrder = zorderRowOrder(g.ZOrderColumns, g.Hilbert)
	}
	writeSchema := schema
	if g.Lineage {
		writeSchema = withLineage(schema)
	}
	w, err := writer.New(ctx, t.IO, writer.DataLocation(md), writeSchema, spec, wopts)
	if err != nil {
		return GroupResult{}, fmt.Errorf("rewrite group %d: %w", g.ID, err)
	}
	err = copyRows(ctx, t, w, g.Tasks)
	var files []manifest.DataFile
	if err == nil {
		files, err = w.Close()
	}
	if err != nil {
		_ = w.Abort()
		return GroupResult{}, fmt.Errorf("rewrite group %d (%s): %w", g.ID, g.Partition, err)
	}
	res := GroupResult{GroupID: g.ID, StartingSnapshotID: g.StartingSnapshotID, Removed: slices.Clone(g.DataFiles), Added: files, SpecChange: g.SpecChange}
	var want []any
	for i := range files {
		// Rows of one partition stay in it, unless the group repartitions:
		// anything else is a bug that would move rows where deletes of
		// their old partition miss them.
		if i == 0 {
			want = files[0].Partition
		}
		if files[i].SpecID != g.SpecID || (!g.Repartition && !reflect.DeepEqual(files[i].Partition, want)) {
			discardFiles(ctx, t, files)
			return GroupResult{}, fmt.Errorf("rewrite group %d: rows of %s were written to partition %v of spec %d", g.ID, g.Partition, files[i].Partition, files[i].SpecID)
		}
	}
	return res, nil
}

// copyRows writes the rows the tasks read to w. Reading runs ahead of
// writing by a few batches in its own goroutine, so decoding and
// encoding overlap.
func copyRows(ctx context.Context, t *table.Table, w *writer.Writer, tasks []json.RawMessage) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	batches := make(chan arrow.RecordBatch, 2)
	readErr := make(chan error, 1)
	go func() {
		defer close(batches)
		for _, raw := range tasks {
			if err := readTask(ctx, t, raw, batches); err != nil {
				readErr <- err
				return
			}
		}
		readErr <- nil
	}()
	var writeErr error
	for rec := range batches {
		if writeErr == nil {
			if writeErr = w.Write(rec); writeErr != nil {
				cancel() // stop reading; drain what was sent
			}
		}
		rec.Release()
	}
	if err := <-readErr; writeErr == nil {
		return err
	}
	return writeErr
}

// readTask sends the batches one task reads, retained, until ctx ends.
func readTask(ctx context.Context, t *table.Table, raw json.RawMessage, out chan<- arrow.RecordBatch) error {
	task, err := scan.UnmarshalTask(raw)
	if err != nil {
		return err
	}
	rr, err := task.Reader(ctx, t.IO, memory.DefaultAllocator, scan.ReadOptions{})
	if err != nil {
		return err
	}
	defer rr.Release()
	for rr.Next() {
		rec := rr.RecordBatch()
		if rec.NumRows() == 0 {
			continue
		}
		rec.Retain()
		select {
		case out <- rec:
		case <-ctx.Done():
			rec.Release()
			return ctx.Err()
		}
	}
	return rr.Err()
}

// withLineage is the schema with the row lineage columns, by their
// reserved ids, so the written files store each row's _row_id and
// _last_updated_sequence_number and a reader takes them over the values
// it would otherwise derive from the new file.
func withLineage(s *iceberg.Schema) *iceberg.Schema {
	fields := append(slices.Clone(s.Fields),
		iceberg.NestedField{ID: scan.FieldIDRowID, Name: "_row_id", Type: iceberg.LongType{}},
		iceberg.NestedField{ID: scan.FieldIDLastUpdatedSequenceNumber, Name: "_last_updated_sequence_number", Type: iceberg.LongType{}},
	)
	return iceberg.NewSchema(s.ID, fields, s.IdentifierFieldIDs...)
}

// discardFiles deletes written files that will not be committed, best
// effort.
func discardFiles(ctx context.Context, t *table.Table, files []manifest.DataFile) {
	ctx = context.WithoutCancel(ctx)
	for i := range files {
		_ = t.IO.Delete(ctx, files[i].FilePath)
	}
}
