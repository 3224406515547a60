package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/inspect"
)

const inspectUsage = "usage: floe inspect TABLE KIND [--columns a,b] [--filter EXPR] [--snapshot ID | --ref NAME] [--limit N] [--batch-size N] [--ignore-case] [--format jsonl|csv|table] [--map PREFIX=TARGET]…"

// runInspect prints one of a table's metadata tables (snapshots, files,
// …) through the printers floe scan uses.
func runInspect(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"map", "warehouse", "snapshot", "ref", "columns", "limit", "batch-size", "format", "filter"}, []string{"ignore-case", "no-relocate", "skip-orphans"})
	if err != nil {
		return err
	}
	if len(a.positional) == 2 && a.positional[1] == "health" {
		// Not a metadata table: the maintenance planner's health check,
		// one JSON object.
		a.positional = a.positional[:1]
		return runMaintenance(ctx, a, "inspect health", healthUsage, "health", map[string]any{"skip_orphans": a.bools["skip-orphans"]}, out, errOut)
	}
	if a.bools["skip-orphans"] {
		return fmt.Errorf("--skip-orphans is an option of the health check (floe inspect TABLE health)")
	}
	if len(a.positional) != 2 {
		if len(a.positional) > 2 {
			return fmt.Errorf("unexpected argument %q\n%s", a.positional[2], inspectUsage)
		}
		return fmt.Errorf("give a TABLE and a KIND (%s)\n%s", kindList(), inspectUsage)
	}
	opts, zeroLimit, err := inspectOptions(a)
	if err != nil {
		return err
	}
	format, _ := a.last("format")
	if format == "" {
		format = "jsonl"
	}
	if format != "jsonl" && format != "csv" && format != "table" {
		return fmt.Errorf("--format must be jsonl, csv or table, not %q", format)
	}
	t, err := a.loadTable(ctx, a.positional[0])
	if err != nil {
		return err
	}
	kind := inspect.Kind(a.positional[1])
	rr, err := inspect.Open(ctx, t, kind, opts, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	defer rr.Release()
	schema, err := inspect.Schema(t, kind, opts)
	if err != nil {
		return err
	}
	// The printers take the Iceberg type of each column the reader returns.
	fields := make([]iceberg.NestedField, rr.Schema().NumFields())
	for i, af := range rr.Schema().Fields() {
		f, ok := schema.FindFieldByName(af.Name)
		if !ok {
			return fmt.Errorf("inspect %s: no column %q in its schema", kind, af.Name)
		}
		fields[i] = f
	}
	w := bufio.NewWriterSize(out, 1<<16)
	var sink rowSink
	switch format {
	case "jsonl":
		sink = &jsonlSink{w: w, fields: fields}
	case "csv":
		sink = newCSVSink(w, fields)
	case "table":
		sink = &tableSink{w: w, fields: fields}
	}
	for !zeroLimit && rr.Next() {
		if err := sink.batch(rr.RecordBatch()); err != nil {
			return err
		}
	}
	if err := rr.Err(); err != nil {
		return err
	}
	if err := sink.finish(); err != nil {
		return err
	}
	return w.Flush()
}

// inspectOptions reads the flags that shape the read; zeroLimit is
// --limit 0 (no rows, as in floe scan), which inspect.Options' Limit
// cannot say.
func inspectOptions(a *args) (opts inspect.Options, zeroLimit bool, err error) {
	opts.CaseInsensitive = a.bools["ignore-case"]
	if v, ok := a.last("columns"); ok {
		opts.Columns = []string{}
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" {
				opts.Columns = append(opts.Columns, c)
			}
		}
	}
	if f, ok := a.last("filter"); ok {
		if opts.Filter, err = expr.ParseFilter(f); err != nil {
			return opts, false, fmt.Errorf("--filter: %w", err)
		}
	}
	if v, ok := a.last("snapshot"); ok {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return opts, false, fmt.Errorf("--snapshot wants a snapshot id, got %q", v)
		}
		opts.SnapshotID = &id
	}
	opts.Ref, _ = a.last("ref")
	if opts.SnapshotID != nil && opts.Ref != "" {
		return opts, false, fmt.Errorf("give --snapshot or --ref, not both")
	}
	if v, ok := a.last("limit"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return opts, false, fmt.Errorf("--limit wants a non-negative number, got %q", v)
		}
		opts.Limit, zeroLimit = n, n == 0
	}
	if v, ok := a.last("batch-size"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return opts, false, fmt.Errorf("--batch-size wants a non-negative number, got %q", v)
		}
		opts.BatchSize = n
	}
	return opts, zeroLimit, nil
}

// kindList is the metadata tables this floe has, for messages.
func kindList() string {
	names := make([]string, 0)
	for _, k := range inspect.Kinds() {
		names = append(names, string(k))
	}
	return strings.Join(names, ", ")
}
