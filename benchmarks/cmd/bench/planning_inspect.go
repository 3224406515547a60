package main

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow/array"
	icebergio "github.com/apache/iceberg-go/io"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/inspect"
)

// The metadata tables of the planning table: floe's reader/inspect
// against iceberg-go v0.7.0's Table.Inspect, files, entries and
// partitions in full at one thread, each drained batch by batch and
// released, so what is measured is producing the rows, not keeping
// them. For these operations the files column of the report counts the
// rows returned: one per data file for files and entries, one per day
// (manifest) for partitions.
const (
	opFloeInspectFiles      = "inspect files"
	opFloeInspectEntries    = "inspect entries"
	opFloeInspectPartitions = "inspect partitions"
	opIcebergInspectFiles   = "iceberg-go Inspect Files"
	opIcebergInspectEntries = "iceberg-go Inspect Entries"
	opIcebergInspectParts   = "iceberg-go Inspect Partitions"
	inspectHeapBoundMiB     = 256 // files and entries: heap added over the no-op floor
	inspectCPUTarget        = 0.5 // floe's CPU ÷ iceberg-go's
)

// inspectPairs are floe's metadata tables and iceberg-go's counterparts.
var inspectPairs = []struct{ floe, iceberg string }{
	{opFloeInspectFiles, opIcebergInspectFiles},
	{opFloeInspectEntries, opIcebergInspectEntries},
	{opFloeInspectPartitions, opIcebergInspectParts},
}

var floeInspectKinds = map[string]inspect.Kind{
	opFloeInspectFiles:      inspect.Files,
	opFloeInspectEntries:    inspect.Entries,
	opFloeInspectPartitions: inspect.Partitions,
}

func isInspectOp(op string) bool {
	for _, p := range inspectPairs {
		if op == p.floe || op == p.iceberg {
			return true
		}
	}
	return false
}

func isIcebergGoOp(op string) bool {
	for _, p := range inspectPairs {
		if op == p.iceberg {
			return true
		}
	}
	return op == opIcebergPlan
}

// inspectRows is what a metadata table of the planning table must return.
func inspectRows(op string, p planningParams) int64 {
	if op == opFloeInspectPartitions || op == opIcebergInspectParts {
		return int64(p.Manifests)
	}
	return int64(p.Manifests * p.FilesPerManifest)
}

// drainRows counts the rows of rr, releasing each batch as it goes.
func drainRows(rr array.RecordReader) (int64, error) {
	defer rr.Release()
	var n int64
	for rr.Next() {
		n += rr.RecordBatch().NumRows()
	}
	return n, rr.Err()
}

func floeInspect(ctx context.Context, job planningJob, reply *planningReply) error {
	t, err := table.Open(ctx, job.MetadataPath, table.Options{})
	if err != nil {
		return err
	}
	rr, err := inspect.Open(ctx, t, floeInspectKinds[job.Op], inspect.Options{}, nil)
	if err != nil {
		return err
	}
	reply.Files, err = drainRows(rr)
	return err
}

func icebergGoInspect(ctx context.Context, job planningJob, reply *planningReply) error {
	tbl, err := icebergtable.NewFromLocation(ctx, icebergtable.Identifier{"bench", "planning"}, job.MetadataPath,
		icebergio.LoadFSFunc(nil, job.MetadataPath), nil)
	if err != nil {
		return err
	}
	in := tbl.Inspect()
	var rr array.RecordReader
	switch job.Op {
	case opIcebergInspectFiles:
		rr, err = in.Files(ctx)
	case opIcebergInspectEntries:
		rr, err = in.Entries(ctx)
	case opIcebergInspectParts:
		rr, err = in.Partitions(ctx)
	default:
		return fmt.Errorf("unknown operation %q", job.Op)
	}
	if err != nil {
		return err
	}
	reply.Files, err = drainRows(rr)
	return err
}

// judgeInspect adds the metadata tables' ratios and targets: floe's CPU
// at most half of iceberg-go's, and for files and entries floe's peak RSS
// over the no-op floor (the heap the metadata table added) within
// inspectHeapBoundMiB.
func (r *planningResults) judgeInspect() {
	floor := r.find(opFloor, "full", 1, "full")
	cpuOK, heapOK := true, true
	var heaps []string
	for _, p := range inspectPairs {
		f, g := r.find(p.floe, "full", 1, "full"), r.find(p.iceberg, "full", 1, "full")
		if f == nil || f.Status != "ok" {
			cpuOK, heapOK = false, false
			continue
		}
		if g == nil || g.Status != "ok" || g.CPUMs <= 0 {
			cpuOK = false
		} else {
			ratio := f.CPUMs / g.CPUMs
			r.Ratios[fmt.Sprintf("%s, 1 thread, floe ÷ iceberg-go: CPU", p.floe)] = fmt.Sprintf("%.3f× (%.0f ms ÷ %.0f ms)", ratio, f.CPUMs, g.CPUMs)
			r.Ratios[fmt.Sprintf("%s, 1 thread, floe ÷ iceberg-go: peak RSS", p.floe)] = fmt.Sprintf("%.3f× (%.0f MiB ÷ %.0f MiB)", f.PeakRSSMB/g.PeakRSSMB, f.PeakRSSMB, g.PeakRSSMB)
			if ratio > inspectCPUTarget {
				cpuOK = false
			}
		}
		if floor == nil || floor.Status != "ok" {
			heapOK = false
			continue
		}
		added := f.PeakRSSMB - floor.PeakRSSMB
		r.Ratios[fmt.Sprintf("%s, 1 thread: heap added (peak RSS − no-op floor)", p.floe)] = fmt.Sprintf("%.0f MiB", added)
		if p.floe != opFloeInspectPartitions {
			heaps = append(heaps, fmt.Sprintf("%s +%.0f MiB", p.floe, added))
			if added > inspectHeapBoundMiB {
				heapOK = false
			}
		}
	}
	r.Targets = append(r.Targets,
		fmt.Sprintf("inspect files, entries, partitions CPU ≤ %.1f× iceberg-go's Inspect (1 thread, full table) — %s", inspectCPUTarget, metText(cpuOK)),
		fmt.Sprintf("inspect files and entries add ≤ %d MiB of heap over the no-op floor (%v) — %s", inspectHeapBoundMiB, heaps, metText(heapOK)))
}
