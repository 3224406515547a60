package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/reader/scan"
)

func runScan(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"map", "warehouse", "snapshot", "as-of", "ref", "columns", "limit", "batch-size", "threads", "format", "filter", "output", "memory-limit", "from-snapshot", "to-snapshot"}, []string{"verify-crc", "ignore-case", "stats", "no-relocate", "changelog"})
	if err != nil {
		return err
	}
	t, sel, err := a.openTable(ctx, "usage: floe scan TABLE [--columns a,b.c] [--snapshot ID | --as-of MS | --ref NAME] [--from-snapshot A [--to-snapshot B] [--changelog]] [--limit N] [--batch-size N] [--threads N] [--filter EXPR] [--format jsonl|csv|table|parquet] [--output FILE.parquet|.csv|.jsonl] [--stats] [--map PREFIX=TARGET]…")
	if err != nil {
		return err
	}
	so := scan.Options{SnapshotID: sel.SnapshotID, AsOfTimestamp: sel.AsOfMs, Ref: sel.Ref, VerifyCRC: a.bools["verify-crc"], CaseInsensitive: a.bools["ignore-case"]}
	// An incremental append scan: the rows the appends after A up to B
	// (default the snapshot chosen, else the current one) added.
	for flag, dst := range map[string]**int64{"from-snapshot": &so.FromSnapshotID, "to-snapshot": &so.ToSnapshotID} {
		if v, ok := a.last(flag); ok {
			id, err := parseSnapshotID("--"+flag, v)
			if err != nil {
				return err
			}
			*dst = &id
		}
	}
	if f, ok := a.last("filter"); ok {
		if so.Filter, err = expr.ParseFilter(f); err != nil {
			return err
		}
	}
	if v, ok := a.last("columns"); ok {
		so.Columns = []string{}
		for _, c := range strings.Split(v, ",") {
			if c = strings.TrimSpace(c); c != "" {
				so.Columns = append(so.Columns, c)
			}
		}
	}
	for flag, dst := range map[string]*int{"batch-size": &so.BatchSize, "threads": &so.Threads} {
		if v, ok := a.last(flag); ok {
			if *dst, err = strconv.Atoi(v); err != nil || *dst < 0 {
				return fmt.Errorf("--%s wants a non-negative number, got %q", flag, v)
			}
		}
	}
	if v, ok := a.last("memory-limit"); ok {
		if so.MemoryLimit, err = parseByteSize(v); err != nil {
			return fmt.Errorf("--memory-limit: %w", err)
		}
	}
	if v, ok := a.last("limit"); ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return fmt.Errorf("--limit wants a non-negative number, got %q", v)
		}
		so.Limit = &n
	}
	format, _ := a.last("format")
	output, toFile := a.last("output")
	if toFile {
		byExt, err := outputFormat(output)
		if err != nil {
			return err
		}
		if format != "" && format != byExt {
			return fmt.Errorf("--format %s and --output %s disagree; the file's extension picks its format", format, output)
		}
		format = byExt
	}
	if format == "" {
		format = "jsonl"
	}
	if a.bools["changelog"] {
		if a.bools["stats"] {
			return fmt.Errorf("--stats does not apply to --changelog: a changelog scan keeps no scan metrics")
		}
		so.Changelog = true
	}
	sc, rr, fields, err := openScanReader(ctx, t, so)
	if err != nil {
		return err
	}
	defer func() {
		if rr != nil {
			rr.Release()
		}
	}()
	var file *outputFile
	if toFile {
		if file, err = createOutput(output); err != nil {
			return err
		}
		defer file.discard() // nothing half-written stays at the path
		out = file
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
	case "parquet":
		if sink, err = newParquetSink(ctx, w, fields); err != nil {
			return err
		}
	default:
		return fmt.Errorf("--format must be jsonl, csv, table or parquet, not %q", format)
	}
	var status *statusLine
	if toFile && sc != nil { // with the data on stdout, a status line would mix into it
		status = startProgress(a, errOut, "scan", scanUnit(sc), func() progress.Sample { return scanProgress(sc.Metrics()) })
		defer status.finish() // on the error paths
	}
	for rr.Next() {
		if err := sink.batch(rr.RecordBatch()); err != nil {
			return err
		}
	}
	status.finish()
	if err := rr.Err(); err != nil {
		return err
	}
	if err := sink.finish(); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if file != nil {
		if err := file.publish(); err != nil {
			return err
		}
	}
	if a.bools["stats"] {
		// Released first: that stops the workers a limit left running, so
		// the counters are final.
		rr.Release()
		rr = nil
		// stderr, so that stdout stays the data and can be piped on.
		stats, err := json.Marshal(sc.Metrics())
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(errOut, "%s\n", stats); err != nil {
			return err
		}
	}
	return nil
}

type rowSink interface {
	batch(rec arrow.RecordBatch) error
	finish() error
}

// The text sinks print the columns fields name and type (a scan's
// projection, a metadata table's schema), in the batches' column order.
type jsonlSink struct {
	w      *bufio.Writer
	fields []iceberg.NestedField
	buf    []byte
}

func (s *jsonlSink) batch(rec arrow.RecordBatch) error {
	fields := s.fields
	for r := 0; r < int(rec.NumRows()); r++ {
		b := append(s.buf[:0], '{')
		for c, f := range fields {
			if c > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendQuote(b, f.Name)
			b = append(b, ':')
			var err error
			if b, err = appendJSONValue(b, f.Type, rec.Column(c), r); err != nil {
				return err
			}
		}
		b = append(b, '}', '\n')
		s.buf = b
		if _, err := s.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

func (s *jsonlSink) finish() error { return nil }

type csvSink struct {
	w      *csv.Writer
	fields []iceberg.NestedField
}

func newCSVSink(w io.Writer, fields []iceberg.NestedField) *csvSink {
	s := &csvSink{w: csv.NewWriter(w), fields: fields}
	header := make([]string, len(fields))
	for i, f := range fields {
		header[i] = f.Name
	}
	s.w.Write(header)
	return s
}

func (s *csvSink) batch(rec arrow.RecordBatch) error {
	fields := s.fields
	row := make([]string, len(fields))
	for r := 0; r < int(rec.NumRows()); r++ {
		for c, f := range fields {
			var err error
			if row[c], err = textValue(f.Type, rec.Column(c), r, ""); err != nil {
				return err
			}
		}
		if err := s.w.Write(row); err != nil {
			return err
		}
	}
	return nil
}

func (s *csvSink) finish() error {
	s.w.Flush()
	return s.w.Error()
}

// tableSink collects rows to align columns for people; it is meant for
// small results (use --limit).
type tableSink struct {
	w      *bufio.Writer
	fields []iceberg.NestedField
	rows   [][]string
}

func (s *tableSink) batch(rec arrow.RecordBatch) error {
	fields := s.fields
	for r := 0; r < int(rec.NumRows()); r++ {
		row := make([]string, len(fields))
		for c, f := range fields {
			var err error
			if row[c], err = textValue(f.Type, rec.Column(c), r, "NULL"); err != nil {
				return err
			}
		}
		s.rows = append(s.rows, row)
	}
	return nil
}

func (s *tableSink) finish() error {
	fields := s.fields
	widths := make([]int, len(fields))
	for i, f := range fields {
		widths[i] = utf8.RuneCountInString(f.Name)
	}
	for _, row := range s.rows {
		for i, v := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(v))
		}
	}
	line := func(cells []string) {
		for i, v := range cells {
			if i > 0 {
				s.w.WriteString(" | ")
			}
			s.w.WriteString(v)
			if i < len(cells)-1 {
				s.w.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(v)))
			}
		}
		s.w.WriteByte('\n')
	}
	header := make([]string, len(fields))
	rule := make([]string, len(fields))
	for i, f := range fields {
		header[i] = f.Name
		rule[i] = strings.Repeat("-", widths[i])
	}
	line(header)
	line(rule)
	for _, row := range s.rows {
		line(row)
	}
	fmt.Fprintf(s.w, "(%d rows)\n", len(s.rows))
	return nil
}

// scanProgress is how far a scan is: its tasks and the bytes they cover,
// and the rows returned.
func scanProgress(m scan.Metrics) progress.Sample {
	return progress.Sample{Files: m.TasksDone, FilesTotal: m.TasksPlanned, Bytes: m.TaskBytesDone, BytesTotal: m.TaskBytesPlanned, Rows: m.RowsReturned}
}

// scanUnit names what a scan's tasks are: whole files, or splits of them.
func scanUnit(sc *scan.Scan) string {
	if m := sc.Metrics(); m.TasksPlanned != m.FilesPlanned {
		return "splits"
	}
	return "files"
}

// parseByteSize reads a size: bytes, or a number with KiB, MiB, GiB (or
// K, M, G, KB, MB, GB, all powers of 1024).
func parseByteSize(v string) (int64, error) {
	s := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffixes []string
		mult     int64
	}{{[]string{"GiB", "GB", "G"}, 1 << 30}, {[]string{"MiB", "MB", "M"}, 1 << 20}, {[]string{"KiB", "KB", "K"}, 1 << 10}} {
		for _, suffix := range u.suffixes {
			if rest, ok := strings.CutSuffix(s, suffix); ok {
				s, mult = strings.TrimSpace(rest), u.mult
				break
			}
		}
		if mult != 1 {
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("want a size such as 268435456, 256MiB or 1GiB, got %q", v)
	}
	return n * mult, nil
}
