package scan

// Task groups: the unit a scan hands out to be read elsewhere. Small files
// (and the last splits of large ones) are packed together so that a worker
// is not handed a few kilobytes to read per round trip, while a group
// stays about one split size of work.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/reader/parquet"
)

// taskGroupFormatVersion is bumped when a serialised group changes shape;
// a reader refuses versions it does not know.
const taskGroupFormatVersion = 1

// TaskGroup is tasks read one after another, in order, as one stream: a
// scan's unit of work to hand to another thread, process or machine.
type TaskGroup struct {
	Tasks []*Task
}

// taskGroupJSON is a serialised group: each task in its own serialised
// form.
type taskGroupJSON struct {
	GroupVersion *int              `json:"group_version"`
	Tasks        []json.RawMessage `json:"tasks"`
}

// MarshalBinary serialises the group (JSON, like a task).
func (g *TaskGroup) MarshalBinary() ([]byte, error) {
	version := taskGroupFormatVersion
	out := taskGroupJSON{GroupVersion: &version, Tasks: make([]json.RawMessage, len(g.Tasks))}
	for i, t := range g.Tasks {
		raw, err := t.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out.Tasks[i] = raw
	}
	return json.Marshal(out)
}

// UnmarshalTaskGroup reads a serialised group. A serialised task (from
// Task.MarshalBinary) is read as a group of that one task.
func UnmarshalTaskGroup(data []byte) (*TaskGroup, error) {
	var gj taskGroupJSON
	if err := json.Unmarshal(data, &gj); err != nil {
		return nil, fmt.Errorf("serialised task group: %w", err)
	}
	if gj.GroupVersion == nil {
		if gj.Tasks != nil {
			return nil, errors.New("serialised task group has no group_version")
		}
		t, err := UnmarshalTask(data)
		if err != nil {
			return nil, err
		}
		return &TaskGroup{Tasks: []*Task{t}}, nil
	}
	if v := *gj.GroupVersion; v != taskGroupFormatVersion {
		return nil, fmt.Errorf("serialised task group has version %d; this floe reads version %d", v, taskGroupFormatVersion)
	}
	if len(gj.Tasks) == 0 {
		return nil, errors.New("serialised task group holds no task")
	}
	g := &TaskGroup{Tasks: make([]*Task, len(gj.Tasks))}
	for i, raw := range gj.Tasks {
		t, err := UnmarshalTask(raw)
		if err != nil {
			return nil, fmt.Errorf("task %d of the group: %w", i, err)
		}
		g.Tasks[i] = t
	}
	return g, nil
}

// Bytes is how much data the group's tasks read, in bytes of their files.
func (g *TaskGroup) Bytes() int64 {
	var n int64
	for _, t := range g.Tasks {
		n += t.rangeBytes()
	}
	return n
}

// Schema is the Arrow schema of the group's batches; every task of a
// group must project the same one.
func (g *TaskGroup) Schema() (*arrow.Schema, error) {
	if len(g.Tasks) == 0 {
		return nil, errors.New("task group holds no task")
	}
	schema, err := arrowschema.ArrowSchema(g.Tasks[0].Fields)
	if err != nil {
		return nil, err
	}
	for i, t := range g.Tasks[1:] {
		other, err := arrowschema.ArrowSchema(t.Fields)
		if err != nil {
			return nil, err
		}
		if !other.Equal(schema) {
			return nil, fmt.Errorf("task %d of the group projects another schema than task 0", i+1)
		}
	}
	return schema, nil
}

// limit is the least limit of the group's tasks (a scan gives each the
// scan's limit, which the group as a whole must not exceed either); -1
// for none.
func (g *TaskGroup) limit() int64 {
	limit := int64(-1)
	for _, t := range g.Tasks {
		if t.Limit != nil && (limit < 0 || *t.Limit < limit) {
			limit = *t.Limit
		}
	}
	return limit
}

// Reader streams the group's batches, task after task, opening the data
// files through files. Delete files shared by the tasks (the splits of one
// file, or a partition's files) are read once.
func (g *TaskGroup) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator) (array.RecordReader, error) {
	return g.reader(ctx, readEnv{files: files, alloc: alloc})
}

// ReaderWithin is Reader holding at most about memoryLimit bytes at once
// (Options.MemoryLimit, for the one task read at a time); 0 is Reader.
func (g *TaskGroup) ReaderWithin(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, memoryLimit int64) (array.RecordReader, error) {
	if memoryLimit == 0 {
		return g.Reader(ctx, files, alloc)
	}
	if err := checkMemoryLimit(memoryLimit); err != nil {
		return nil, err
	}
	schema, err := g.Schema()
	if err != nil {
		return nil, err
	}
	fetch, _ := memoryBudget(memoryLimit, 1, leafCount(schema.Fields()), parquet.FetchOptions{}, 0)
	return g.reader(ctx, readEnv{files: files, alloc: alloc, fetch: fetch})
}

// reader streams the group's tasks with env's settings, its schema and
// one delete cache for the group.
func (g *TaskGroup) reader(ctx context.Context, env readEnv) (array.RecordReader, error) {
	schema, err := g.Schema()
	if err != nil {
		return nil, err
	}
	env.schema, env.deletes = schema, newDeleteCache()
	return newTaskChain(schema, len(g.Tasks), g.limit(), func(i int, limit *int64) (*taskReader, error) {
		task := *g.Tasks[i]
		if limit != nil {
			task.Limit = limit
		}
		return task.open(ctx, env)
	}), nil
}
