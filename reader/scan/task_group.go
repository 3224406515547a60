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

// limit is the rows the group as a whole may return, -1 for none: opts'
// limit, else (a group an older floe serialised, each task carrying the
// scan's limit) the least limit its tasks carry.
func (g *TaskGroup) limit(opts ReadOptions) int64 {
	if opts.Limit != nil {
		return *opts.Limit
	}
	limit := int64(-1)
	for _, t := range g.Tasks {
		if l := t.wire.Limit; l != nil && (limit < 0 || *l < limit) {
			limit = *l
		}
	}
	return limit
}

// Reader streams the group's batches, task after task, opening the data
// files through files, with this process's read settings (a Scan passes
// Scan.ReadOptions; opts.Limit bounds the group's rows together). Delete
// files shared by the tasks (the splits of one file, or a partition's
// files) are read once.
func (g *TaskGroup) Reader(ctx context.Context, files fileio.FileIO, alloc memory.Allocator, opts ReadOptions) (array.RecordReader, error) {
	schema, err := g.Schema()
	if err != nil {
		return nil, err
	}
	env, err := readerEnv(files, alloc, schema, opts)
	if err != nil {
		return nil, err
	}
	return g.reader(ctx, env), nil
}

// reader streams the group's tasks with env's settings and one delete
// cache for the group; env.schema is the group's schema. Each task is
// opened limited to what the group's limit still allows.
func (g *TaskGroup) reader(ctx context.Context, env readEnv) array.RecordReader {
	env.deletes = newDeleteCache()
	return newTaskChain(env.schema, len(g.Tasks), g.limit(env.read), func(i int, limit *int64) (*taskReader, error) {
		taskEnv := env
		if limit != nil {
			taskEnv.read.Limit = limit
		}
		return g.Tasks[i].open(ctx, taskEnv)
	})
}
