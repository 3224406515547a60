package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
)

func runFiles(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"map", "warehouse", "snapshot", "as-of", "ref"}, []string{"json", "no-relocate"})
	if err != nil {
		return err
	}
	t, sel, err := a.openTable(ctx, "usage: floe files TABLE [--snapshot ID | --as-of MS | --ref NAME] [--map PREFIX=TARGET]… [--json]")
	if err != nil {
		return err
	}
	plan, err := t.PlanFiles(ctx, sel)
	if err != nil {
		return err
	}
	if a.bools["json"] {
		return writeJSON(out, filesJSON(t, plan))
	}
	return printFiles(out, t, plan)
}

func printFiles(out io.Writer, t *table.Table, plan *table.Plan) error {
	w := &lineWriter{out: out}
	if plan.Snapshot == nil {
		w.printf("table has no snapshot: no files\n")
		return w.err
	}
	w.printf("snapshot %d (sequence %d): %d data files, %d records before deletes, %d delete files\n",
		plan.Snapshot.SnapshotID, plan.Snapshot.SequenceNumber, len(plan.Tasks), plan.RecordCount(), len(plan.DeleteFiles))
	for _, task := range plan.Tasks {
		w.printf("data  %s\n", task.Path)
		w.printf("      records %d  size %d  spec %d%s  seq %d/%d\n", task.File.RecordCount, task.File.FileSizeInBytes,
			task.File.SpecID, partitionText(t, task.File.SpecID, task.File.Partition), task.DataSequenceNumber, task.FileSequenceNumber)
		for _, d := range task.Deletes {
			w.printf("      deleted by %s %s\n", deleteKind(d), d.Path)
		}
	}
	for _, d := range plan.DeleteFiles {
		w.printf("%s  %s\n", deleteKind(d), d.Path)
		w.printf("      records %d  size %d  spec %d%s  seq %d", d.File.RecordCount, d.File.FileSizeInBytes,
			d.File.SpecID, partitionText(t, d.File.SpecID, d.File.Partition), d.DataSequenceNumber)
		if len(d.File.EqualityIDs) > 0 {
			w.printf("  equality ids %v", d.File.EqualityIDs)
		}
		if d.File.ReferencedDataFile != "" {
			w.printf("  references %s", d.File.ReferencedDataFile)
		}
		if d.File.ContentOffset != nil && d.File.ContentSizeInBytes != nil {
			w.printf("  blob at %d+%d", *d.File.ContentOffset, *d.File.ContentSizeInBytes)
		}
		w.printf("\n")
	}
	return w.err
}

func deleteKind(d *table.DeleteFile) string {
	switch {
	case d.IsDeletionVector():
		return "dv"
	case d.File.Content == manifest.ContentPositionDeletes:
		return "pos-deletes"
	default:
		return "eq-deletes"
	}
}

// partitionText renders a partition tuple as " {name=value, …}" in the
// spec's human-readable forms; nothing for an unpartitioned file.
func partitionText(t *table.Table, specID int, values []any) string {
	spec := t.Metadata.SpecByID(specID)
	if spec == nil || len(spec.Fields) == 0 {
		return ""
	}
	pt, err := t.PartitionType(spec)
	if err != nil || len(pt.Fields) != len(values) {
		return fmt.Sprintf(" %v", values)
	}
	parts := make([]string, len(values))
	for i, f := range spec.Fields {
		parts[i] = f.Name + "=" + iceberg.HumanString(f.Transform, pt.Fields[i].Type, values[i])
	}
	return " {" + strings.Join(parts, ", ") + "}"
}

type fileJSON struct {
	Content            string         `json:"content"`
	Path               string         `json:"path"`
	WrittenPath        string         `json:"written_path"`
	Format             string         `json:"format"`
	SpecID             int            `json:"spec_id"`
	Partition          map[string]any `json:"partition,omitempty"`
	RecordCount        int64          `json:"record_count"`
	FileSizeInBytes    int64          `json:"file_size_in_bytes"`
	DataSequenceNumber int64          `json:"data_sequence_number"`
	FileSequenceNumber int64          `json:"file_sequence_number"`
	EqualityIDs        []int          `json:"equality_ids,omitempty"`
	ReferencedDataFile string         `json:"referenced_data_file,omitempty"`
	ContentOffset      *int64         `json:"content_offset,omitempty"`
	ContentSize        *int64         `json:"content_size_in_bytes,omitempty"`
	FirstRowID         *int64         `json:"first_row_id,omitempty"`
	Deletes            []string       `json:"deletes,omitempty"`
}

func filesJSON(t *table.Table, plan *table.Plan) any {
	var snapID *int64
	if plan.Snapshot != nil {
		snapID = &plan.Snapshot.SnapshotID
	}
	data := make([]fileJSON, 0, len(plan.Tasks))
	for _, task := range plan.Tasks {
		f := fileEntryJSON(t, "data", task.Path, task.File, task.DataSequenceNumber, task.FileSequenceNumber)
		for _, d := range task.Deletes {
			f.Deletes = append(f.Deletes, d.Path)
		}
		data = append(data, f)
	}
	deletes := make([]fileJSON, 0, len(plan.DeleteFiles))
	for _, d := range plan.DeleteFiles {
		deletes = append(deletes, fileEntryJSON(t, deleteKind(d), d.Path, d.File, d.DataSequenceNumber, d.FileSequenceNumber))
	}
	return map[string]any{"snapshot_id": snapID, "data_files": data, "delete_files": deletes}
}

func fileEntryJSON(t *table.Table, kind, path string, f manifest.DataFile, dataSeq, fileSeq int64) fileJSON {
	out := fileJSON{Content: kind, Path: path, WrittenPath: f.FilePath, Format: f.FileFormat, SpecID: f.SpecID,
		RecordCount: f.RecordCount, FileSizeInBytes: f.FileSizeInBytes, DataSequenceNumber: dataSeq, FileSequenceNumber: fileSeq,
		EqualityIDs: f.EqualityIDs, ReferencedDataFile: f.ReferencedDataFile, ContentOffset: f.ContentOffset,
		ContentSize: f.ContentSizeInBytes, FirstRowID: f.FirstRowID}
	if spec := t.Metadata.SpecByID(f.SpecID); spec != nil && len(spec.Fields) == len(f.Partition) && len(spec.Fields) > 0 {
		if pt, err := t.PartitionType(spec); err == nil {
			out.Partition = map[string]any{}
			for i, pf := range spec.Fields {
				raw, err := iceberg.ValueToJSON(pt.Fields[i].Type, f.Partition[i])
				if err == nil {
					out.Partition[pf.Name] = raw
				}
			}
		}
	}
	return out
}
