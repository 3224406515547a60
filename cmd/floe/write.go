package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/catalog"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/progress"
	"github.com/floedb/floe/writer/ops"
)

const (
	createUsage = "usage: floe create TABLE --schema SCHEMA.json [--partition COLUMN[:TRANSFORM]]… [--property K=V]… [--format-version N] [--create-namespace]"
	appendUsage = "usage: floe append TABLE FILE.parquet|FILE.jsonl [--token T] [--property K=V]… [--partition COLUMN[:TRANSFORM]]… [--evolve] [--create-namespace] [--branch NAME] [--wap-id ID] [--stage]"
	expireUsage = "usage: floe expire TABLE [--older-than 5d|36h|MS] [--retain-last N] [--keep-files]"
)

func runCreate(ctx context.Context, raw []string, out, _ io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "schema", "partition", "property", "format-version"}, []string{"create-namespace"})
	if err != nil {
		return err
	}
	schemaPath, ok := a.last("schema")
	if len(a.positional) != 1 || !ok {
		return errors.New(createUsage)
	}
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		return err
	}
	var schema iceberg.Schema
	if err := json.Unmarshal(data, &schema); err != nil {
		return fmt.Errorf("%s: %w", schemaPath, err)
	}
	version := 0
	if v, ok := a.last("format-version"); ok {
		if version, err = strconv.Atoi(v); err != nil {
			return fmt.Errorf("--format-version wants 1, 2 or 3, got %q", v)
		}
	}
	props, err := keyValues(a.values["property"], "--property")
	if err != nil {
		return err
	}
	t, err := createTable(ctx, a, &schema, props, version)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "created %s\n", t.Metadata.Location)
	return nil
}

// createTable creates the table the command names with schema, the
// --partition fields and table properties props.
func createTable(ctx context.Context, a *args, schema *iceberg.Schema, props map[string]string, version int) (*table.Table, error) {
	spec, err := partitionSpec(a.values["partition"], schema)
	if err != nil {
		return nil, err
	}
	opts, err := a.tableOptions()
	if err != nil {
		return nil, err
	}
	cat, err := a.catalog(ctx, opts)
	if err != nil {
		return nil, err
	}
	if cat != nil {
		// A catalog's namespace is made only when asked for: a mistyped
		// one must not quietly hold the new table.
		id, err := catalog.ParseIdentifier(a.positional[0])
		if err != nil {
			return nil, err
		}
		if err := ensureNamespace(ctx, cat, id.Namespace, a.bools["create-namespace"]); err != nil {
			return nil, err
		}
		return cat.CreateTable(ctx, id, schema, catalog.CreateOptions{Spec: spec, Properties: props, FormatVersion: version})
	}
	loc, err := tableLocation(a)
	if err != nil {
		return nil, err
	}
	return table.Create(ctx, nil, loc, schema, spec, nil, props, version)
}

// tableLocation is the command's TABLE: a location, or a dataset name
// "ns.table" under --warehouse / $FLOE_WAREHOUSE (when no such path
// exists here).
func tableLocation(a *args) (string, error) {
	name := a.positional[0]
	if strings.ContainsAny(name, `/\:`) || !strings.Contains(name, ".") || strings.HasSuffix(name, ".json") {
		return name, nil
	}
	if _, err := os.Stat(name); err == nil {
		return name, nil
	}
	warehouse, _ := a.last("warehouse")
	return table.WarehouseLocation(warehouse, name)
}

func keyValues(raw []string, flag string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range raw {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%s wants KEY=VALUE, got %q", flag, kv)
		}
		out[k] = v
	}
	return out, nil
}

// partitionSpec reads --partition COLUMN[:TRANSFORM] (identity by
// default; transforms in Iceberg form: day, bucket[16], truncate[4]).
// Partition fields are named as the reference implementation names them.
func partitionSpec(raw []string, schema *iceberg.Schema) (*iceberg.PartitionSpec, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if schema.HighestFieldID() == 0 {
		assignFieldIDs(schema)
	}
	spec := &iceberg.PartitionSpec{}
	for _, p := range raw {
		column, transform, _ := strings.Cut(p, ":")
		if transform == "" {
			transform = "identity"
		}
		field, ok := schema.FindFieldByName(column)
		if !ok {
			return nil, fmt.Errorf("--partition %s: no column %q", p, column)
		}
		tr, err := parseTransform(transform)
		if err != nil {
			return nil, fmt.Errorf("--partition %s: %w", p, err)
		}
		base, _, _ := strings.Cut(transform, "[")
		name := column + "_" + base
		switch base {
		case "identity":
			name = column
		case "truncate":
			name = column + "_trunc"
		case "void":
			name = column + "_null"
		}
		spec.Fields = append(spec.Fields, iceberg.PartitionField{SourceID: field.ID, Name: name, Transform: tr})
	}
	return spec, nil
}

// parseTransform reads a transform as the spec writes it; one floe
// cannot apply is refused, naming those it can.
func parseTransform(s string) (iceberg.Transform, error) {
	tr, err := iceberg.ParseTransform(s)
	if _, unknown := tr.(iceberg.UnknownTransform); err != nil || unknown {
		return nil, fmt.Errorf("unknown transform %q (identity, year, month, day, hour, bucket[N], truncate[W], void)", s)
	}
	return tr, nil
}

// assignFieldIDs numbers a schema without ids as a new table would: the
// fields of a struct first, then what each of them holds.
func assignFieldIDs(s *iceberg.Schema) {
	next := 0
	st := &iceberg.StructType{Fields: s.Fields}
	numberStruct(st, &next)
	*s = *iceberg.NewSchema(s.ID, st.Fields)
}

func numberStruct(st *iceberg.StructType, next *int) {
	for i := range st.Fields {
		*next++
		st.Fields[i].ID = *next
	}
	for i := range st.Fields {
		st.Fields[i].Type = numberType(st.Fields[i].Type, next)
	}
}

func numberType(t iceberg.Type, next *int) iceberg.Type {
	switch x := t.(type) {
	case *iceberg.StructType:
		c := &iceberg.StructType{Fields: append([]iceberg.NestedField(nil), x.Fields...)}
		numberStruct(c, next)
		return c
	case *iceberg.ListType:
		c := *x
		*next++
		c.ElementID = *next
		c.Element = numberType(x.Element, next)
		return &c
	case *iceberg.MapType:
		c := *x
		*next++
		c.KeyID = *next
		*next++
		c.ValueID = *next
		c.Key = numberType(x.Key, next)
		c.Value = numberType(x.Value, next)
		return &c
	}
	return t
}

func runAppend(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, append([]string{"warehouse", "partition", "map"}, writeFlags...), append([]string{"no-relocate", "create-namespace", "evolve"}, writeBools...))
	if err != nil {
		return err
	}
	if len(a.positional) != 2 {
		return errors.New(appendUsage)
	}
	opts, err := writeOptions(a)
	if err != nil {
		return err
	}
	in, err := openInput(a.positional[1])
	if err != nil {
		return err
	}
	defer in.close()
	t, created, err := openOrCreate(ctx, a, in)
	if err != nil {
		return err
	}
	token := opts.Token
	// Columns bind by name, and one the table lacks is refused unless
	// asked for: --evolve adds them (by name, at any depth) in the same
	// commit as the rows (ops.AppendEvolving). A retry whose token is
	// already committed changes nothing, its schema included.
	var wanted *iceberg.Schema
	if a.bools["evolve"] && !created {
		if wanted, err = in.evolveSchema(t.Metadata.CurrentSchema()); err != nil {
			return err
		}
	}
	var rowsRead atomic.Int64
	total := in.rows()
	status := startProgress(a, errOut, "append", "files", func() progress.Sample {
		return progress.Sample{Rows: rowsRead.Load(), RowsTotal: total}
	})
	res, err := appendInput(ctx, t, in, wanted, &rowsRead, opts)
	status.finish()
	if err != nil {
		return err
	}
	statisticsOnCommit(ctx, t, errOut)
	if created {
		fmt.Fprintf(out, "created %s\n", t.Metadata.Location)
	}
	if res.TokenFound {
		fmt.Fprintf(out, "%s: token %q was already committed; nothing appended\n", snapshotLabel(t, opts, res.SnapshotID), token)
		return nil
	}
	var rows int64
	for _, f := range res.Files {
		rows += f.RecordCount
	}
	fmt.Fprintf(out, "%s: %d rows in %d files\n", snapshotLabel(t, opts, res.SnapshotID), rows, len(res.Files))
	return nil
}

// openOrCreate opens the command's table, creating it with the input's
// schema when there is none.
func openOrCreate(ctx context.Context, a *args, in input) (*table.Table, bool, error) {
	name := a.positional[0]
	if loc, err := tableLocation(a); err == nil && !a.hasCatalog() {
		name = loc
	}
	t, err := a.loadTable(ctx, name)
	if err == nil || !(errors.Is(err, fs.ErrNotExist) || errors.Is(err, catalog.ErrNoSuchTable)) {
		return t, false, err
	}
	schema, err := in.schema()
	if err != nil {
		return nil, false, err
	}
	t, err = createTable(ctx, a, schema, nil, 0)
	if errors.Is(err, table.ErrTableExists) { // another process created it first
		t, err = a.loadTable(ctx, name)
		return t, false, err
	}
	return t, err == nil, err
}

// appendInput writes the input's rows as data files of t and commits them
// in one append (ops.Append: the files go unless they are in the table).
// rowsRead counts the input's rows as the writer takes them.
func appendInput(ctx context.Context, t *table.Table, in input, wanted *iceberg.Schema, rowsRead *atomic.Int64, opts table.CommitOptions) (ops.Result, error) {
	batches := func(schema *iceberg.Schema) (array.RecordReader, error) {
		rdr, err := in.batches(ctx, schema)
		if err != nil {
			return nil, err
		}
		return &panicSafeReader{RecordReader: &countingReader{RecordReader: rdr, rows: rowsRead}}, nil
	}
	if wanted != nil {
		return ops.AppendEvolving(ctx, t, wanted, batches, opts)
	}
	rdr, err := batches(t.Metadata.CurrentSchema())
	if err != nil {
		return ops.Result{}, err
	}
	defer rdr.Release()
	return ops.Append(ctx, t, rdr, opts)
}

// panicSafeReader turns a panic of the reader it wraps into its error:
// arrow-go's JSON reader can panic on rows that do not fit the table's
// schema (a number where a struct is), which is bad input, not a crash.
// countingReader adds each batch's rows to rows as it passes one on.
type countingReader struct {
	array.RecordReader
	rows *atomic.Int64
}

func (r *countingReader) Next() bool {
	if !r.RecordReader.Next() {
		return false
	}
	r.rows.Add(r.RecordReader.RecordBatch().NumRows())
	return true
}

type panicSafeReader struct {
	array.RecordReader
	err error
}

func (r *panicSafeReader) Next() (ok bool) {
	if r.err != nil {
		return false
	}
	defer func() {
		if p := recover(); p != nil {
			r.err, ok = fmt.Errorf("reading the input: %v", p), false
		}
	}()
	if r.RecordReader.Next() {
		return true
	}
	if testHookInputRead != nil {
		testHookInputRead()
	}
	return false
}

func (r *panicSafeReader) Err() error {
	if r.err != nil {
		return r.err
	}
	return r.RecordReader.Err()
}

// testHookInputRead, set only by this package's tests, runs when an
// append has handed the writer its last row, before its files are
// closed and committed.
var testHookInputRead func()

func runExpire(ctx context.Context, raw []string, out, errOut io.Writer) error {
	a, err := parseArgs(raw, []string{"warehouse", "map", "older-than", "retain-last"}, []string{"keep-files", "no-relocate"})
	if err != nil {
		return err
	}
	if len(a.positional) != 1 {
		return errors.New(expireUsage)
	}
	var olderThan *int64
	if v, ok := a.last("older-than"); ok {
		ms, err := parseOlderThan(v, time.Now())
		if err != nil {
			return err
		}
		olderThan = &ms
	}
	var retain *int
	if v, ok := a.last("retain-last"); ok {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("--retain-last wants a number of snapshots (at least 1), got %q", v)
		}
		retain = &n
	}
	t, _, err := a.openTable(ctx, expireUsage)
	if err != nil {
		return err
	}
	meter := &progress.Meter{}
	status := startProgress(a, errOut, "expire", "files deleted", meter.Sample)
	res, err := t.ExpireSnapshots(progress.With(ctx, meter), olderThan, retain, table.ExpireOptions{KeepFiles: a.bools["keep-files"]})
	status.finish()
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "expired %d snapshots, deleted %d files", len(res.ExpiredSnapshots), len(res.DeletedFiles))
	if res.FailedDeletes > 0 {
		fmt.Fprintf(out, " (%d could not be deleted)", res.FailedDeletes)
	}
	if len(res.Outside) > 0 {
		fmt.Fprintf(out, "; left %d files outside the table's location", len(res.Outside))
	}
	fmt.Fprintln(out)
	return nil
}

// parseOlderThan reads an age ("5d", "36h", "90m", any Go duration) or
// a time in milliseconds since the epoch, and returns the cutoff in ms.
func parseOlderThan(v string, now time.Time) (int64, error) {
	if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
		return ms, nil
	}
	if days, ok := strings.CutSuffix(v, "d"); ok {
		n, err := strconv.Atoi(days)
		if err == nil && n >= 0 {
			return now.Add(-time.Duration(n) * 24 * time.Hour).UnixMilli(), nil
		}
	} else if d, err := time.ParseDuration(v); err == nil && d >= 0 {
		return now.Add(-d).UnixMilli(), nil
	}
	return 0, fmt.Errorf("--older-than wants an age (5d, 36h) or milliseconds since the epoch, got %q", v)
}
