package scan

import (
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
)

// taskChain reads tasks one after another, carrying a row limit across
// them: the sequential scan and a task group both stream this way.
type taskChain struct {
	refs   atomic.Int64
	schema *arrow.Schema
	tasks  int
	// open opens task i, limited to limit rows (nil: no limit); a nil
	// reader skips the task.
	open func(i int, limit *int64) (*taskReader, error)
	// done, when set, runs once the chain is released.
	done      func()
	next      int
	cur       *taskReader
	remaining int64
	err       error
}

func newTaskChain(schema *arrow.Schema, tasks int, remaining int64, open func(int, *int64) (*taskReader, error)) *taskChain {
	c := &taskChain{schema: schema, tasks: tasks, open: open, remaining: remaining}
	c.refs.Store(1)
	return c
}

func (c *taskChain) Retain() { c.refs.Add(1) }

func (c *taskChain) Release() {
	if c.refs.Add(-1) == 0 {
		c.closeTask()
		if c.done != nil {
			c.done()
		}
	}
}

func (c *taskChain) closeTask() {
	if c.cur != nil {
		c.cur.Release()
		c.cur = nil
	}
}

func (c *taskChain) Schema() *arrow.Schema { return c.schema }
func (c *taskChain) Err() error            { return c.err }

func (c *taskChain) Record() arrow.RecordBatch { return c.RecordBatch() }

func (c *taskChain) RecordBatch() arrow.RecordBatch {
	if c.cur == nil {
		return nil
	}
	return c.cur.RecordBatch()
}

func (c *taskChain) Next() bool {
	for c.err == nil && c.remaining != 0 {
		if c.cur != nil {
			if c.cur.Next() {
				if c.remaining > 0 {
					c.remaining -= c.cur.RecordBatch().NumRows()
				}
				return true
			}
			c.err = c.cur.Err()
			c.closeTask()
			continue
		}
		if c.next >= c.tasks {
			return false
		}
		i := c.next
		c.next++
		var limit *int64
		if c.remaining >= 0 {
			l := c.remaining
			limit = &l
		}
		if c.cur, c.err = c.open(i, limit); c.err != nil {
			return false
		}
	}
	c.closeTask()
	return false
}
