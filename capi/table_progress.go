package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/internal/progress"
)

// A host polls how far a long call on a table handle is
// (floe_table_progress) from another thread while the call blocks its own:
// the call counts into a fresh Meter it publishes on the handle, the same
// counts the CLI's status line shows. Calls on a handle run one at a time
// (commitMu), so the handle's Meter is that of the call running, or of the
// last one finished, whose final counts stay readable after it returns.

// progressJSON is floe_table_progress's answer; a total of 0 is not known.
type progressJSON struct {
	// Call numbers the handle's metered calls from 1 (0: none yet), so a
	// host polling from before its call began can tell the earlier call's
	// final counts from its own.
	Call       int64 `json:"call"`
	Files      int64 `json:"files"`
	FilesTotal int64 `json:"files_total"`
	Bytes      int64 `json:"bytes"`
	BytesTotal int64 `json:"bytes_total"`
	Rows       int64 `json:"rows"`
	RowsTotal  int64 `json:"rows_total"`
}

// metered gives a call's context a new Meter, published on the handle.
func (h *tableHandle) metered(ctx context.Context) context.Context {
	m := &progress.Meter{}
	h.meterCall.Add(1)
	h.meter.Store(m)
	return progress.With(ctx, m)
}

// countRows passes rdr's batches on, counting their rows as done in ctx's
// Meter as the writer takes them (what an append's progress is).
func countRows(ctx context.Context, rdr array.RecordReader) array.RecordReader {
	m := progress.From(ctx)
	if m == nil {
		return rdr
	}
	return &rowCounter{RecordReader: rdr, meter: m}
}

type rowCounter struct {
	array.RecordReader
	meter *progress.Meter
}

func (r *rowCounter) Next() bool {
	if !r.RecordReader.Next() {
		return false
	}
	r.meter.Done(0, 0, r.RecordReader.RecordBatch().NumRows())
	return true
}

//export capiTableProgress
func capiTableProgress(h C.uintptr_t, out **C.char) (rc C.int) {
	const fn = "floe_table_progress"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	// The call number first: a sample read after a newer call published
	// its Meter is that call's, under the older number at worst, which
	// the host then ignores until the next poll.
	call := th.meterCall.Load()
	s := th.meter.Load().Sample() // a nil Meter (no call yet) samples zeros
	data, err := json.Marshal(progressJSON{Call: call, Files: s.Files, FilesTotal: s.FilesTotal, Bytes: s.Bytes,
		BytesTotal: s.BytesTotal, Rows: s.Rows, RowsTotal: s.RowsTotal})
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*out = cString(data)
	return C.int(statusOK)
}
