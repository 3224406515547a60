package scan

import (
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/reader/parquet"
)

// ReadOptions are the settings of the process that reads a task or task
// group, given beside the reader rather than carried in the task: a task
// says what to read, these say how this process reads it. A scan passes
// its own (Scan.ReadOptions); a process reading serialised tasks passes
// what its caller asked for. The zero value reads with the defaults.
type ReadOptions struct {
	// BatchSize is the most rows per batch; 0 for parquet.DefaultBatchSize.
	BatchSize int
	// Limit stops the read after this many rows; nil for no limit. A
	// group's limit counts the rows of all its tasks.
	Limit *int64
	// VerifyCRC checks the pages' CRC checksums.
	VerifyCRC bool
	// MemoryLimit bounds what a read holds at once, as Options.MemoryLimit
	// does for a scan reading one task at a time; 0 for no bound. A
	// host-driven read (HostIO) holds the bytes the host filled and
	// ignores it.
	MemoryLimit int64
}

// Validate refuses settings out of range.
func (o ReadOptions) Validate() error {
	if o.Limit != nil && *o.Limit < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "read options: limit %d must not be negative", *o.Limit)
	}
	if o.BatchSize < 0 {
		return errkind.Errorf(errkind.InvalidArgument, "read options: batch_size %d must not be negative", o.BatchSize)
	}
	return checkMemoryLimit(o.MemoryLimit)
}

// wireReadOptions are the read settings a floe before ReadOptions wrote
// into each serialised task (batch_size, limit, verify_crc). They are
// still read, and stand in for what the reader's ReadOptions leave unset
// (see forTask); a task planned by this floe has none.
type wireReadOptions struct {
	BatchSize int    `json:"batch_size,omitempty"`
	Limit     *int64 `json:"limit,omitempty"`
	VerifyCRC bool   `json:"verify_crc,omitempty"`
}

// forTask is o completed for reading t: a setting o leaves unset takes
// the value an older floe serialised into t, else the default. CRCs are
// verified when either asks (checking costs time, never rows).
func (o ReadOptions) forTask(t *Task) ReadOptions {
	w := t.wire
	if o.BatchSize <= 0 {
		o.BatchSize = w.BatchSize
	}
	if o.BatchSize <= 0 {
		o.BatchSize = parquet.DefaultBatchSize
	}
	if o.Limit == nil {
		o.Limit = w.Limit
	}
	o.VerifyCRC = o.VerifyCRC || w.VerifyCRC
	return o
}

// remaining is the limit as a row count, -1 for none.
func (o ReadOptions) remaining() int64 {
	if o.Limit == nil {
		return -1
	}
	return *o.Limit
}
