package inspect

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// Tasks: a metadata table of manifest entries (files, data_files,
// delete_files, entries and their all_* forms) read in parts, each part
// serialisable and read elsewhere (another goroutine, process or
// machine) with nothing but a FileIO, as a scan hands out its tasks.
// Java plans these tables the same way: a task per manifest
// (BaseFilesTable's ManifestReadTask).
//
// A task is some of the manifests the table reads, consecutive in the
// order Open reads them, plus what turns their entries into the table's
// rows: the table's schemas, partition specs and format version (the
// partition struct, readable_metrics and inheritance follow from them),
// and the read's columns, filter, limit and batch size. Reading every
// task, in order, gives Open's rows in Open's order, except that a limit
// applies to each task and the limit across tasks is the caller's.

// DefaultTaskSize is the manifest bytes a task reads, about, when
// PlanTasks is given 0: Iceberg's own target size of a manifest
// (commit.manifest.target-size-bytes), so a table's ordinary manifests
// are a task each and its small ones are packed together.
const DefaultTaskSize = 8 << 20

// taskFormatVersion is bumped when a serialised Task changes shape; a
// reader refuses versions it does not know. Its key, inspect_version, is
// also what tells an inspect task from a scan's (whose key is version or
// group_version).
const taskFormatVersion = 1

// Task is a part of a metadata table of manifest entries: see PlanTasks.
type Task struct {
	Kind Kind
	// Manifests are the manifest-list entries the task reads, in order.
	Manifests []manifest.ManifestFile
	// FormatVersion, Schemas, CurrentSchemaID and PartitionSpecs are the
	// table's, as its metadata holds them: what reads a manifest and
	// shapes the rows.
	FormatVersion   int
	Schemas         []*iceberg.Schema
	CurrentSchemaID int
	PartitionSpecs  []iceberg.PartitionSpec
	// Columns, Filter, CaseInsensitive and BatchSize are the read's
	// Options; Limit is at most that many rows from this task (0: none).
	Columns         []string
	Filter          expr.Expr
	CaseInsensitive bool
	Limit           int64
	BatchSize       int
}

// PlanTasks divides the metadata table kind of t into tasks of about
// taskSize bytes of manifests each (0: DefaultTaskSize; a larger
// manifest is a task of its own), choosing and pruning the manifests as
// Open does. Only the kinds that read manifest entries have tasks; the
// others (snapshots, manifests, partitions, …) are Unsupported. A table
// with no snapshot has no task.
func PlanTasks(ctx context.Context, t *table.Table, kind Kind, opts Options, taskSize int64) ([]*Task, error) {
	src, err := openSource(t, kind, opts)
	if err != nil {
		return nil, err
	}
	if src.scope == nil {
		return nil, errkind.Errorf(errkind.Unsupported, "inspect %s: only tables of manifest entries (files, entries and their forms) are planned as tasks; read it whole", kind)
	}
	if opts.Limit < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect %s: negative limit %d", kind, opts.Limit)
	}
	if taskSize < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect %s: negative task size %d", kind, taskSize)
	}
	if taskSize == 0 {
		taskSize = DefaultTaskSize
	}
	// The columns and filter are checked here as Open checks them, so a
	// bad one fails the plan rather than every task.
	r, err := newReader(ctx, string(kind), src, opts, memory.NewGoAllocator())
	if err != nil {
		return nil, err
	}
	defer r.Release()
	md := t.Metadata
	base := Task{
		Kind: kind, FormatVersion: md.FormatVersion, Schemas: md.Schemas, CurrentSchemaID: md.CurrentSchemaID,
		PartitionSpecs: md.PartitionSpecs, Columns: opts.Columns, Filter: opts.Filter,
		CaseInsensitive: opts.CaseInsensitive, Limit: opts.Limit, BatchSize: opts.BatchSize,
	}
	var tasks []*Task
	var group []manifest.ManifestFile
	var size int64
	flush := func() {
		if len(group) > 0 {
			task := base
			task.Manifests = group
			tasks = append(tasks, &task)
			group, size = nil, 0
		}
	}
	err = src.scope.lists(ctx, func(list []manifest.ManifestFile) (bool, error) {
		for _, mf := range list {
			if size > 0 && size+mf.Length > taskSize {
				flush()
			}
			group = append(group, mf)
			size += mf.Length
		}
		return false, nil
	})
	if err != nil {
		// As the read would report a manifest list it cannot read.
		return nil, r.sourceError(err)
	}
	flush()
	return tasks, nil
}

// Reader reads the task's rows as Open reads the whole table's, from
// files alone (paths as the manifests name them; files maps them where a
// table's location map would), allocating from mem (the Go allocator
// when nil).
func (task *Task) Reader(ctx context.Context, files fileio.FileIO, mem memory.Allocator) (array.RecordReader, error) {
	if files == nil {
		return nil, errkind.New(errkind.InvalidArgument, "inspect task: no FileIO")
	}
	open, ok := kinds[task.Kind]
	if !ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect task: no metadata table %q", task.Kind)
	}
	if len(task.Manifests) == 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect task of %s: no manifest", task.Kind)
	}
	// The table as far as reading its manifests needs it: no snapshot (a
	// task names its manifests) and no catalog.
	t := &table.Table{IO: files, Metadata: &metadata.Metadata{
		FormatVersion: task.FormatVersion, Schemas: task.Schemas, CurrentSchemaID: task.CurrentSchemaID,
		PartitionSpecs: task.PartitionSpecs,
	}}
	if t.Metadata.CurrentSchema() == nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect task of %s: no schema %d among its schemas", task.Kind, task.CurrentSchemaID)
	}
	opts := task.options()
	src, err := open(t, opts)
	if err != nil {
		return nil, err
	}
	if src.scope == nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "inspect task: %s is not a table of manifest entries", task.Kind)
	}
	src.scope.only = task.Manifests
	if mem == nil {
		mem = memory.NewGoAllocator()
	}
	return newReader(ctx, string(task.Kind), src, opts, mem)
}

func (task *Task) options() Options {
	return Options{Columns: task.Columns, Filter: task.Filter, CaseInsensitive: task.CaseInsensitive, Limit: task.Limit, BatchSize: task.BatchSize}
}

// taskJSON is a serialised Task. The manifests keep the manifest list's
// field names; their partition summaries are left out (they served the
// plan's pruning; reading needs none).
type taskJSON struct {
	Version         *int              `json:"inspect_version"`
	Kind            string            `json:"kind"`
	FormatVersion   int               `json:"format_version"`
	Schemas         []json.RawMessage `json:"schemas"`
	CurrentSchemaID int               `json:"current_schema_id"`
	PartitionSpecs  []json.RawMessage `json:"partition_specs"`
	Manifests       []manifestJSON    `json:"manifests"`
	// Columns: absent is every column, [] none.
	Columns         []string        `json:"columns"`
	Filter          json.RawMessage `json:"filter,omitempty"`
	CaseInsensitive bool            `json:"case_insensitive,omitempty"`
	Limit           int64           `json:"limit,omitempty"`
	BatchSize       int             `json:"batch_size,omitempty"`
}

type manifestJSON struct {
	Path               string `json:"manifest_path"`
	Length             int64  `json:"manifest_length"`
	PartitionSpecID    int    `json:"partition_spec_id"`
	Content            int    `json:"content"`
	SequenceNumber     int64  `json:"sequence_number"`
	MinSequenceNumber  int64  `json:"min_sequence_number"`
	AddedSnapshotID    int64  `json:"added_snapshot_id"`
	AddedFilesCount    int    `json:"added_files_count"`
	ExistingFilesCount int    `json:"existing_files_count"`
	DeletedFilesCount  int    `json:"deleted_files_count"`
	AddedRowsCount     int64  `json:"added_rows_count"`
	ExistingRowsCount  int64  `json:"existing_rows_count"`
	DeletedRowsCount   int64  `json:"deleted_rows_count"`
	KeyMetadata        []byte `json:"key_metadata,omitempty"`
	FirstRowID         *int64 `json:"first_row_id,omitempty"`
}

// MarshalBinary serialises the task as versioned JSON (portable, and
// readable when debugging), the filter as a REST JSON expression.
func (task *Task) MarshalBinary() ([]byte, error) {
	version := taskFormatVersion
	out := taskJSON{
		Version: &version, Kind: string(task.Kind), FormatVersion: task.FormatVersion,
		CurrentSchemaID: task.CurrentSchemaID, Columns: task.Columns, CaseInsensitive: task.CaseInsensitive,
		Limit: task.Limit, BatchSize: task.BatchSize,
	}
	for _, s := range task.Schemas {
		raw, err := s.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("inspect task: schema %d: %w", s.ID, err)
		}
		out.Schemas = append(out.Schemas, raw)
	}
	for _, spec := range task.PartitionSpecs {
		raw, err := spec.MarshalJSON()
		if err != nil {
			return nil, fmt.Errorf("inspect task: partition spec %d: %w", spec.ID, err)
		}
		out.PartitionSpecs = append(out.PartitionSpecs, raw)
	}
	for _, mf := range task.Manifests {
		out.Manifests = append(out.Manifests, manifestJSON{
			Path: mf.Path, Length: mf.Length, PartitionSpecID: mf.PartitionSpecID, Content: int(mf.Content),
			SequenceNumber: mf.SequenceNumber, MinSequenceNumber: mf.MinSequenceNumber, AddedSnapshotID: mf.AddedSnapshotID,
			AddedFilesCount: mf.AddedFilesCount, ExistingFilesCount: mf.ExistingFilesCount, DeletedFilesCount: mf.DeletedFilesCount,
			AddedRowsCount: mf.AddedRowsCount, ExistingRowsCount: mf.ExistingRowsCount, DeletedRowsCount: mf.DeletedRowsCount,
			KeyMetadata: mf.KeyMetadata, FirstRowID: mf.FirstRowID,
		})
	}
	if task.Filter != nil {
		var err error
		if out.Filter, err = expr.MarshalJSON(task.Filter); err != nil {
			return nil, fmt.Errorf("inspect task: filter: %w", err)
		}
	}
	return json.Marshal(out)
}

// IsTask reports whether data is a serialised inspect Task rather than
// another kind of serialised task (a scan's): whether its JSON object
// has the inspect_version key. It does not check the rest.
func IsTask(data []byte) bool {
	var probe struct {
		Version json.RawMessage `json:"inspect_version"`
	}
	return json.Unmarshal(data, &probe) == nil && probe.Version != nil
}

// UnmarshalTask reads a serialised Task. Bytes that are not one, or of
// a version this floe does not read, are InvalidArgument.
func UnmarshalTask(data []byte) (*Task, error) {
	var tj taskJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tj); err != nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: %v", err)
	}
	switch {
	case tj.Version == nil:
		return nil, errkind.New(errkind.InvalidArgument, "serialised inspect task has no inspect_version")
	case *tj.Version != taskFormatVersion:
		return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task has version %d; this floe reads version %d", *tj.Version, taskFormatVersion)
	case len(tj.Manifests) == 0:
		return nil, errkind.New(errkind.InvalidArgument, "serialised inspect task names no manifest")
	}
	if _, ok := kinds[Kind(tj.Kind)]; !ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: no metadata table %q", tj.Kind)
	}
	task := &Task{
		Kind: Kind(tj.Kind), FormatVersion: tj.FormatVersion, CurrentSchemaID: tj.CurrentSchemaID, Columns: tj.Columns,
		CaseInsensitive: tj.CaseInsensitive, Limit: tj.Limit, BatchSize: tj.BatchSize,
	}
	if task.Limit < 0 || task.BatchSize < 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: negative limit %d or batch size %d", task.Limit, task.BatchSize)
	}
	for i, raw := range tj.Schemas {
		s := &iceberg.Schema{}
		if err := s.UnmarshalJSON(raw); err != nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: schema %d: %v", i, err)
		}
		task.Schemas = append(task.Schemas, s)
	}
	for i, raw := range tj.PartitionSpecs {
		var spec iceberg.PartitionSpec
		if err := spec.UnmarshalJSON(raw); err != nil {
			return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: partition spec %d: %v", i, err)
		}
		task.PartitionSpecs = append(task.PartitionSpecs, spec)
	}
	for i, m := range tj.Manifests {
		if m.Path == "" || m.Length < 0 {
			return nil, errkind.Errorf(errkind.InvalidArgument, "serialised inspect task: manifest %d: no path, or a negative length", i)
		}
		task.Manifests = append(task.Manifests, manifest.ManifestFile{
			Path: m.Path, Length: m.Length, PartitionSpecID: m.PartitionSpecID, Content: manifest.ManifestContent(m.Content),
			SequenceNumber: m.SequenceNumber, MinSequenceNumber: m.MinSequenceNumber, AddedSnapshotID: m.AddedSnapshotID,
			AddedFilesCount: m.AddedFilesCount, ExistingFilesCount: m.ExistingFilesCount, DeletedFilesCount: m.DeletedFilesCount,
			AddedRowsCount: m.AddedRowsCount, ExistingRowsCount: m.ExistingRowsCount, DeletedRowsCount: m.DeletedRowsCount,
			KeyMetadata: m.KeyMetadata, FirstRowID: m.FirstRowID,
		})
	}
	filter, err := expr.ParseFilterJSON(tj.Filter)
	if err != nil {
		return nil, errkind.Default(errkind.InvalidArgument, fmt.Errorf("serialised inspect task: filter: %w", err))
	}
	task.Filter = filter
	return task, nil
}
