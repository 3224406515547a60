// Package progress carries a Meter through a context, so that long
// operations (add-files reading footers, expiry deleting files) report the
// work they finish to whoever started them: the CLI's status line. Without
// a Meter in the context, reporting costs a context lookup.
package progress

import (
	"context"
	"sync/atomic"
)

// Meter counts work planned and done; the counts are read while the work
// goes on (Sample), from another goroutine.
type Meter struct {
	filesTotal, bytesTotal, rowsTotal atomic.Int64
	files, bytes, rows                atomic.Int64
}

// Sample is a Meter's counts at one moment; a total of 0 is not known.
type Sample struct {
	Files, FilesTotal int64
	Bytes, BytesTotal int64
	Rows, RowsTotal   int64
}

type meterKey struct{}

// With returns ctx carrying m.
func With(ctx context.Context, m *Meter) context.Context {
	return context.WithValue(ctx, meterKey{}, m)
}

// From is the Meter ctx carries, or nil; a nil Meter's methods do nothing.
func From(ctx context.Context) *Meter {
	m, _ := ctx.Value(meterKey{}).(*Meter)
	return m
}

// Plan adds work that is now known to lie ahead.
func (m *Meter) Plan(files, bytes, rows int64) {
	if m == nil {
		return
	}
	m.filesTotal.Add(files)
	m.bytesTotal.Add(bytes)
	m.rowsTotal.Add(rows)
}

// Done adds finished work.
func (m *Meter) Done(files, bytes, rows int64) {
	if m == nil {
		return
	}
	m.files.Add(files)
	m.bytes.Add(bytes)
	m.rows.Add(rows)
}

// Sample reads the counts.
func (m *Meter) Sample() Sample {
	if m == nil {
		return Sample{}
	}
	return Sample{
		Files: m.files.Load(), FilesTotal: m.filesTotal.Load(),
		Bytes: m.bytes.Load(), BytesTotal: m.bytesTotal.Load(),
		Rows: m.rows.Load(), RowsTotal: m.rowsTotal.Load(),
	}
}
