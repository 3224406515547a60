package scan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// taskFormatVersion is bumped when a serialised task changes shape; a
// reader refuses versions it does not know. Version 2 added the byte range
// (start, length): a version 1 task, which has none, reads its whole file
// and is still read, while a floe that knows only version 1 refuses a
// split it would otherwise read whole.
//
// Moving batch_size, limit and verify_crc out of the task (into the
// reader's ReadOptions) kept version 2: a task without them is one every
// floe already read (batch_size 0 is the default, the others were
// optional), and one with them, from an older floe, is still read, its
// values standing in for the ReadOptions the reader leaves unset.
const taskFormatVersion = 2

// Task reads one data file (or a byte range of it) with everything it
// needs carried inside, so it can be serialised and read by another process
// or machine: the projected schema, the constants that stand in for columns
// the file lacks, the name mapping for files without field ids, and the
// deletes that apply. It is plain data about what to read: how one process
// reads it (batch size, row limit, CRC checks, memory) is the ReadOptions
// given to its reader, and a Task built by hand reads without any Scan.
type Task struct {
	Version     int    `json:"version"`
	Path        string `json:"path"`
	WrittenPath string `json:"written_path,omitempty"`
	FileFormat  string `json:"file_format"`
	FileSize    int64  `json:"file_size"`
	// RecordCount is the rows of the whole data file, also for a split.
	RecordCount int64 `json:"record_count"`
	SpecID      int   `json:"spec_id"`
	// DataSequenceNumber and FirstRowID feed row lineage.
	DataSequenceNumber int64  `json:"data_sequence_number"`
	FirstRowID         *int64 `json:"first_row_id,omitempty"`
	// Start and Length are the task's byte range of the file; Length 0
	// means the whole file. The task reads the row groups whose midpoint
	// lies in the range (see readsRowGroup).
	Start  int64 `json:"start"`
	Length int64 `json:"length"`

	// Fields is the projected schema, as Iceberg fields.
	Fields []iceberg.NestedField `json:"-"`
	// IdentityPartition maps a source field id to the file's partition value
	// under an identity transform: the value for rows of a file that lacks
	// the column.
	IdentityPartition map[int]any `json:"-"`
	// PartitionTuple is the file's partition under the table's unified
	// partition type, when the scan selects _partition.
	PartitionTuple []any `json:"-"`
	// NameMapping resolves columns of files written without field ids.
	NameMapping iceberg.NameMapping `json:"name_mapping,omitempty"`

	Deletes []TaskDelete `json:"deletes,omitempty"`
	// EqualityFields are the table's fields for every equality-delete key,
	// so keys the query does not project can still be read and compared.
	EqualityFields []iceberg.NestedField `json:"-"`
	// Filter is the row filter, unbound (by column name), and FilterFields
	// the top-level columns it reads, whole, so it binds to each file
	// wherever the task runs; rows it rejects never reach the output. It
	// is kept as an expression and written as REST JSON only when the
	// task is serialised.
	Filter          expr.Expr             `json:"-"`
	FilterFields    []iceberg.NestedField `json:"-"`
	CaseInsensitive bool                  `json:"case_insensitive,omitempty"`
	// Locations is the table's location map: position delete files name
	// data files in the writer's spelling, which must be remapped to be
	// compared with Path.
	Locations map[string]string `json:"locations,omitempty"`

	// wire holds the read settings an older floe serialised into the task;
	// how a task is read is otherwise the reader's ReadOptions.
	wire wireReadOptions
}

// TaskDelete is a delete file that applies to a task's data file.
type TaskDelete struct {
	Path               string `json:"path"`
	Content            int    `json:"content"`
	FileFormat         string `json:"file_format"`
	FileSize           int64  `json:"file_size"`
	RecordCount        int64  `json:"record_count"`
	DataSequenceNumber int64  `json:"data_sequence_number"`
	EqualityIDs        []int  `json:"equality_ids,omitempty"`
	ContentOffset      *int64 `json:"content_offset,omitempty"`
	ContentSize        *int64 `json:"content_size,omitempty"`
	// ReferencedDataFile, when set, is the only data file (remapped) a
	// position delete file names, so its file_path column need not be read.
	ReferencedDataFile string `json:"referenced_data_file,omitempty"`
}

// filePathAsWritten is the data file's path as the table's metadata names
// it (what _file returns), not where a location map sends it.
func (t *Task) filePathAsWritten() string {
	if t.WrittenPath != "" {
		return t.WrittenPath
	}
	return t.Path
}

// HasDeletes reports whether any delete file applies to the task.
func (t *Task) HasDeletes() bool { return len(t.Deletes) > 0 }

// IsEqualityDelete reports whether a task delete holds equality deletes.
func (d *TaskDelete) IsEqualityDelete() bool {
	return d.Content == int(manifest.ContentEqualityDeletes)
}

// taskJSON adds the parts of a task that need the schema to encode.
type taskJSON struct {
	Task
	wireReadOptions
	Filter            json.RawMessage            `json:"filter,omitempty"`
	Schema            json.RawMessage            `json:"schema"`
	EqualitySchema    json.RawMessage            `json:"equality_schema,omitempty"`
	PartitionTuple    json.RawMessage            `json:"partition_tuple,omitempty"`
	FilterSchema      json.RawMessage            `json:"filter_schema,omitempty"`
	IdentityPartition map[string]json.RawMessage `json:"identity_partition,omitempty"`
}

// MarshalBinary serialises the task (as JSON: portable across machines and
// languages, and readable when debugging a distributed scan).
func (t *Task) MarshalBinary() ([]byte, error) {
	schema := iceberg.NewSchema(0, t.Fields)
	sj, err := schema.MarshalJSON()
	if err != nil {
		return nil, err
	}
	// An older task's read settings are written back as they came, so a
	// task passed on through this floe reads as it did.
	out := taskJSON{Task: *t, wireReadOptions: t.wire, Schema: sj}
	if t.Filter != nil {
		if out.Filter, err = expr.MarshalJSON(t.Filter); err != nil {
			return nil, fmt.Errorf("task filter: %w", err)
		}
	}
	if pt := t.partitionType(); pt != nil && t.PartitionTuple != nil {
		if out.PartitionTuple, err = iceberg.ValueToJSON(pt, t.PartitionTuple); err != nil {
			return nil, fmt.Errorf("task partition: %w", err)
		}
	}
	if len(t.FilterFields) > 0 {
		if out.FilterSchema, err = iceberg.NewSchema(0, t.FilterFields).MarshalJSON(); err != nil {
			return nil, err
		}
	}
	if len(t.EqualityFields) > 0 {
		if out.EqualitySchema, err = iceberg.NewSchema(0, t.EqualityFields).MarshalJSON(); err != nil {
			return nil, err
		}
	}
	if len(t.IdentityPartition) > 0 {
		out.IdentityPartition = map[string]json.RawMessage{}
		for id, v := range t.IdentityPartition {
			f, ok := schema.FindField(id)
			if !ok {
				continue // not projected: not needed to read
			}
			raw, err := iceberg.ValueToJSON(f.Type, v)
			if err != nil {
				return nil, fmt.Errorf("task partition value of column %d: %w", id, err)
			}
			out.IdentityPartition[fmt.Sprint(id)] = raw
		}
	}
	return json.Marshal(out)
}

// UnmarshalTask reads a serialised task.
func UnmarshalTask(data []byte) (*Task, error) {
	var tj taskJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&tj); err != nil {
		return nil, fmt.Errorf("serialised task: %w", err)
	}
	if tj.Version != taskFormatVersion && tj.Version != 1 {
		return nil, fmt.Errorf("serialised task has version %d; this floe reads versions 1 to %d", tj.Version, taskFormatVersion)
	}
	var schema iceberg.Schema
	if err := schema.UnmarshalJSON(tj.Schema); err != nil {
		return nil, fmt.Errorf("serialised task: %w", err)
	}
	task := tj.Task
	task.wire = tj.wireReadOptions
	task.Fields = schema.Fields
	if err := checkMetadataFieldTypes(task.Fields); err != nil {
		return nil, fmt.Errorf("serialised task: %w", err)
	}
	filter, err := expr.ParseFilterJSON(tj.Filter)
	if err != nil {
		return nil, fmt.Errorf("serialised task: %w", err)
	}
	task.Filter = filter
	if pt := task.partitionType(); pt != nil && len(tj.PartitionTuple) > 0 {
		v, err := iceberg.ValueFromJSON(pt, tj.PartitionTuple)
		if err != nil {
			return nil, fmt.Errorf("serialised task: partition: %w", err)
		}
		task.PartitionTuple, _ = v.([]any)
	}
	if len(tj.FilterSchema) > 0 {
		var fs iceberg.Schema
		if err := fs.UnmarshalJSON(tj.FilterSchema); err != nil {
			return nil, fmt.Errorf("serialised task: %w", err)
		}
		task.FilterFields = fs.Fields
	}
	if len(tj.EqualitySchema) > 0 {
		var eq iceberg.Schema
		if err := eq.UnmarshalJSON(tj.EqualitySchema); err != nil {
			return nil, fmt.Errorf("serialised task: %w", err)
		}
		task.EqualityFields = eq.Fields
	}
	if task.Path == "" {
		return nil, fmt.Errorf("serialised task names no data file")
	}
	if err := task.checkRange(); err != nil {
		return nil, fmt.Errorf("serialised task: %w", err)
	}
	for key, raw := range tj.IdentityPartition {
		var id int
		if _, err := fmt.Sscan(key, &id); err != nil {
			return nil, fmt.Errorf("serialised task: bad partition key %q", key)
		}
		f, ok := schema.FindField(id)
		if !ok {
			return nil, fmt.Errorf("serialised task: partition value for column %d, which is not projected", id)
		}
		v, err := iceberg.ValueFromJSON(f.Type, raw)
		if err != nil {
			return nil, fmt.Errorf("serialised task: partition value of column %d: %w", id, err)
		}
		if task.IdentityPartition == nil {
			task.IdentityPartition = map[int]any{}
		}
		task.IdentityPartition[id] = v
	}
	return &task, nil
}

// partitionType is the type of the projected _partition column, if any.
func (t *Task) partitionType() *iceberg.StructType {
	for _, f := range t.Fields {
		if f.ID == FieldIDPartition {
			st, _ := f.Type.(*iceberg.StructType)
			return st
		}
	}
	return nil
}

func bytesReader(b []byte) io.Reader { return bytes.NewReader(b) }
