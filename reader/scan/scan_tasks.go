package scan

import (
	"fmt"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
)

func newTask(t *table.Table, schema *iceberg.Schema, dt *table.DataFileTask, proj *Projection, mapping iceberg.NameMapping, locations map[string]string, opts Options) (*Task, error) {
	task := &Task{
		Version:            taskFormatVersion,
		Path:               dt.Path,
		WrittenPath:        dt.File.FilePath,
		FileFormat:         dt.File.FileFormat,
		FileSize:           dt.File.FileSizeInBytes,
		RecordCount:        dt.File.RecordCount,
		SpecID:             dt.File.SpecID,
		DataSequenceNumber: dt.DataSequenceNumber,
		FirstRowID:         dt.File.FirstRowID,
		Fields:             proj.Fields,
		NameMapping:        mapping,
		Locations:          locations,
	}
	if spec := t.Metadata.SpecByID(dt.File.SpecID); spec != nil && len(spec.Fields) == len(dt.File.Partition) {
		for i, pf := range spec.Fields {
			if _, ok := pf.Transform.(iceberg.IdentityTransform); ok {
				if task.IdentityPartition == nil {
					task.IdentityPartition = map[int]any{}
				}
				task.IdentityPartition[pf.SourceID] = dt.File.Partition[i]
			}
		}
	}
	for _, f := range proj.Fields {
		if f.ID == FieldIDPartition {
			task.PartitionTuple = unifiedTuple(t, dt, f.Type.(*iceberg.StructType))
		}
	}
	seen := map[int]bool{}
	for _, d := range dt.Deletes {
		for _, id := range d.File.EqualityIDs {
			if seen[id] {
				continue
			}
			seen[id] = true
			f, ok := schema.FindField(id)
			if !ok {
				return nil, fmt.Errorf("equality delete file %s keys on field %d, which the table schema does not have", d.Path, id)
			}
			task.EqualityFields = append(task.EqualityFields, f)
		}
		task.Deletes = append(task.Deletes, TaskDelete{
			Path: d.Path, Content: int(d.File.Content), FileFormat: d.File.FileFormat, FileSize: d.File.FileSizeInBytes,
			RecordCount: d.File.RecordCount, DataSequenceNumber: d.DataSequenceNumber, EqualityIDs: d.File.EqualityIDs,
			ContentOffset: d.File.ContentOffset, ContentSize: d.File.ContentSizeInBytes,
			ReferencedDataFile: referencedPath(t, d),
		})
	}
	return task, nil
}

// unifiedTuple places a file's partition values into the unified type.
func unifiedTuple(t *table.Table, dt *table.DataFileTask, unified *iceberg.StructType) []any {
	out := make([]any, len(unified.Fields))
	spec := t.Metadata.SpecByID(dt.File.SpecID)
	if spec == nil || len(spec.Fields) != len(dt.File.Partition) {
		return out
	}
	for i, uf := range unified.Fields {
		for j, pf := range spec.Fields {
			if pf.FieldID == uf.ID {
				out[i] = dt.File.Partition[j]
			}
		}
	}
	return out
}

func referencedPath(t *table.Table, d *table.DeleteFile) string {
	if p := d.ReferencedDataFile(); p != "" {
		return t.Locations.Apply(p)
	}
	return ""
}
