package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/iceberg-go"
	icebergtable "github.com/apache/iceberg-go/table"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
)

// The foreign section (go run ./cmd/bench -foreign) scans files another
// engine wrote: the lineitem-like table DuckDB writes (foreign_data.go),
// zstd and snappy, registered with add_files. Every query runs on floe
// (an Iceberg scan through its Go API) and on DuckDB (read_parquet with
// the same predicate) and on iceberg-go (its scan of the same table), at
// 1 and 2 threads; the report gives CPU time at 1 thread and wall time at
// 2, floe ÷ each peer, from one run. DuckDB must return as many rows as
// floe; an iceberg-go that fails or differs is reported, not fatal.
var (
	foreignOnly      = flag.Bool("foreign", false, "run only the foreign section: floe and DuckDB on the table DuckDB writes")
	foreignRows      = flag.Int64("foreign-rows", 6_000_000, "rows of the foreign table")
	foreignFiles     = flag.Int("foreign-files", 6, "files of the foreign table")
	foreignDir       = flag.String("foreign-data", "data/foreign", "where the foreign tables are written (reused when there)")
	foreignJSON      = flag.String("foreign-json", "results/latest-foreign.json", "where to write the foreign section's results (empty: nowhere)")
	foreignOnlyQuery = flag.String("foreign-query", "", "run only the foreign queries (and SQL queries) whose name contains this: a quicker loop while working on one")
	foreignProf      = flag.String("foreign-cpuprofile", "", "write a CPU profile of one extra one-thread floe run of each query to <this>-<table>-<n>.prof")
	foreignShapes    = flag.Bool("foreign-variants", true, "also run the file-size variants (foreignVariants) at zstd: floe and DuckDB at 1 and 2 threads")
)

// foreignVariant is a foreign table laid out otherwise than the main one,
// since what a second thread buys depends on file and row-group sizes,
// which users' tables vary: each runs every query on floe and DuckDB (not
// iceberg-go) at zstd, for the 1 → 2-thread report.
type foreignVariant struct {
	Name  string // as the report prints it
	Dir   string // under -foreign-data
	Shape foreignShape
}

func foreignVariants() []foreignVariant {
	return []foreignVariant{
		{Name: "500k rows/file", Dir: "500k-a-file", Shape: foreignShape{Rows: 3_000_000, Files: 6}},
		{Name: "1 file, 10k-row groups", Dir: "small-row-groups", Shape: foreignShape{Rows: 1_000_000, Files: 1, RowGroupRows: 10_000}},
	}
}

// mainForeignName names the main table in the 1 → 2-thread report.
func mainForeignName(rows int64, files int) string {
	per := rows / int64(max(files, 1))
	if per%1_000_000 == 0 {
		return fmt.Sprintf("%dM rows/file", per/1_000_000)
	}
	return fmt.Sprintf("%dk rows/file", per/1000)
}

// foreignQuery is one query of the section.
type foreignQuery struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns,omitempty"` // nil: all
	Filter  string   `json:"filter,omitempty"`  // floe's row_filter text; DuckDB's WHERE too
	Limit   int64    `json:"limit,omitempty"`
	Count   bool     `json:"count,omitempty"`
	// icebergGo is the filter in iceberg-go's form.
	icebergGo iceberg.BooleanExpression
}

func foreignQueries(rows int64) []foreignQuery {
	// l_orderkey = r/4 + 1 rises through the table: 1 % of the rows is a
	// range of rows/400 keys.
	lo := rows / 8
	hi := lo + rows/400
	clustered := fmt.Sprintf("l_orderkey >= %d and l_orderkey < %d", lo, hi)
	ref := func(name string) iceberg.Reference { return iceberg.Reference(name) }
	dec := func(unscaled int64) iceberg.Decimal {
		return iceberg.Decimal{Val: decimal128.FromI64(unscaled), Scale: 2}
	}
	day := func(y, m, d int) iceberg.Date {
		return iceberg.Date(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
	}
	return []foreignQuery{
		{Name: "all columns"},
		{Name: "2 columns (bigint, decimal)", Columns: []string{"l_partkey", "l_extendedprice"}},
		{Name: "text column", Columns: []string{"l_comment"}},
		{Name: "count(*)", Count: true},
		{Name: "unclustered 1%", Filter: "l_partkey <= 20000", icebergGo: iceberg.LessThanEqual(ref("l_partkey"), int64(20000))},
		{Name: "string equality 14%", Filter: "l_shipmode = 'AIR'", icebergGo: iceberg.EqualTo(ref("l_shipmode"), "AIR")},
		{Name: "TPC-H Q6 shape", Columns: []string{"l_extendedprice", "l_discount"},
			Filter: "l_shipdate >= '1994-01-01' and l_shipdate < '1995-01-01' and l_discount >= 0.05 and l_discount <= 0.07 and l_quantity < 24",
			icebergGo: iceberg.NewAnd(iceberg.GreaterThanEqual(ref("l_shipdate"), day(1994, 1, 1)), iceberg.LessThan(ref("l_shipdate"), day(1995, 1, 1)),
				iceberg.GreaterThanEqual(ref("l_discount"), dec(5)), iceberg.LessThanEqual(ref("l_discount"), dec(7)), iceberg.LessThan(ref("l_quantity"), dec(2400)))},
		{Name: "clustered 1%", Filter: clustered,
			icebergGo: iceberg.NewAnd(iceberg.GreaterThanEqual(ref("l_orderkey"), lo), iceberg.LessThan(ref("l_orderkey"), hi))},
		{Name: "limit 1000", Limit: 1000},
	}
}

// foreignResult is one query on one table at one thread count.
type foreignResult struct {
	Table string `json:"table"`
	// Variant names the table's shape (foreignVariant.Name, or the main
	// table's mainForeignName).
	Variant   string        `json:"variant"`
	RowGroups int           `json:"row_groups"` // in all the table's files
	Query     string        `json:"query"`
	Threads   int           `json:"threads"`
	Rows      int64         `json:"rows"`
	FloeCPU   time.Duration `json:"floe_cpu_ns"`
	DuckCPU   time.Duration `json:"duckdb_cpu_ns"`
	FloeWal   time.Duration `json:"floe_wall_ns"`
	DuckWal   time.Duration `json:"duckdb_wall_ns"`
	// iceberg-go's, when it ran the query (GoErr when it failed).
	GoCPU time.Duration `json:"iceberggo_cpu_ns,omitempty"`
	GoWal time.Duration `json:"iceberggo_wall_ns,omitempty"`
	GoErr string        `json:"iceberggo_error,omitempty"`
	// FloorCPU is the decompression-only pass over the columns q returns
	// (foreign_floor.go), for the full scans at 1 thread.
	FloorCPU time.Duration `json:"floor_cpu_ns,omitempty"`
}

func runForeignSection(repeat int, logf func(string, ...any)) bool {
	ok := true
	var results []foreignResult
	var sqlResults []sqlResult
	var codecFloors []codecFloor
	mainName := mainForeignName(*foreignRows, *foreignFiles)
	for _, codec := range []string{"zstd", "snappy"} {
		ft, err := writeForeign(filepath.Join(*foreignDir, codec), codec, *foreignRows, *foreignFiles)
		if err != nil {
			logf("foreign %s: %v", codec, err)
			return false
		}
		ft.Variant = mainName
		logf("foreign %s: %d rows in %d files, %.1f MB, written by DuckDB, registered with add_files", codec, ft.Rows, len(ft.Files), float64(ft.Bytes)/1e6)
		if codec == "zstd" {
			cf, err := measureCodecFloor(ft, repeat)
			switch {
			case err != nil:
				logf("foreign zstd codec floor: %v", err)
			case cf.LibError != "":
				logf("foreign zstd codec floor: libzstd (the zstd tool) did not run: %s", cf.LibError)
			default:
				logf("foreign zstd pages: %d frames, %.1f MB decompressed: klauspost/compress %.0f ms CPU, libzstd %.0f ms (%.2f×)",
					cf.Frames, float64(cf.Bytes)/1e6, ms(cf.GoCPU), ms(cf.LibZstd), float64(cf.GoCPU)/float64(cf.LibZstd))
			}
			codecFloors = append(codecFloors, cf)
		}
		for n, q := range foreignQueries(ft.Rows) {
			if !strings.Contains(q.Name, *foreignOnlyQuery) {
				continue
			}
			if *foreignThreadProf != "" {
				if err := profileForeignThreads(*foreignThreadProf, ft, n, q, logf); err != nil {
					logf("foreign thread profile: %v", err)
					ok = false
				}
				continue
			}
			if *foreignProf != "" {
				if err := profileForeign(fmt.Sprintf("%s-%s-%d.prof", *foreignProf, codec, n), ft, q); err != nil {
					logf("foreign profile: %v", err)
				}
			}
			for _, threads := range []int{1, 2} {
				r, err := runForeignQuery(ft, q, threads, repeat, true)
				if err != nil {
					logf("foreign %s %q %d threads: %v", codec, q.Name, threads, err)
					ok = false
					continue
				}
				if threads == 1 && slices.Contains(floorQueries, q.Name) {
					if r.FloorCPU, err = measureFloor(ft, q, repeat); err != nil {
						logf("foreign %s %q floor: %v", codec, q.Name, err)
						ok = false
					}
				}
				results = append(results, r)
			}
		}
		for _, q := range sqlQueries {
			if !sqlAvailable {
				break
			}
			if !strings.Contains(q.Name, *foreignOnlyQuery) {
				continue
			}
			for _, threads := range []int{1, 2} {
				r, err := runSQLQuery(ft, q, threads, repeat)
				if err != nil {
					logf("foreign %s %s %d threads: %v", codec, q.Name, threads, err)
					ok = false
					continue
				}
				sqlResults = append(sqlResults, r)
			}
		}
	}
	var variantResults []foreignResult
	if *foreignShapes && *foreignThreadProf == "" {
		var vok bool
		variantResults, vok = runForeignVariants(repeat, logf)
		ok = ok && vok
	}
	logf("\n%-8s %-28s %12s %10s %10s %14s %14s %10s %10s", "table", "query", "rows", "CPU 1T", "wall 2T", "CPU 1T", "wall 2T", "floe", "DuckDB")
	logf("%-8s %-28s %12s %21s %29s %21s", "", "", "", "floe÷DuckDB", "floe÷iceberg-go", "CPU 1T ÷ floor")
	ratio := func(a, b time.Duration) string {
		if b <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", float64(a)/float64(b))
	}
	for i := 0; i+1 < len(results); i += 2 {
		one, two := results[i], results[i+1]
		logf("%-8s %-28s %12d %10s %10s %14s %14s %10s %10s", one.Table, one.Query, one.Rows,
			ratio(one.FloeCPU, one.DuckCPU), ratio(two.FloeWal, two.DuckWal), ratio(one.FloeCPU, one.GoCPU), ratio(two.FloeWal, two.GoWal),
			ratio(one.FloeCPU, one.FloorCPU), ratio(one.DuckCPU, one.FloorCPU))
		if one.GoErr != "" {
			logf("         iceberg-go: %s", one.GoErr)
		}
	}
	printSQLResults(sqlResults, logf)
	all := append(slices.Clone(results), variantResults...)
	printForeignThreads(all, logf)
	for _, p := range foreignThreadProblems(all, len(variantResults) > 0) {
		logf("%s", p)
		ok = false
	}
	if !sqlAvailable {
		logf("\nTPC-H Q1/Q6 through DuckDB SQL left out: built without the duckdb_arrow tag")
	}
	if *foreignJSON != "" {
		data, _ := json.MarshalIndent(struct {
			Queries    []foreignResult `json:"queries"`
			SQL        []sqlResult     `json:"sql,omitempty"`
			CodecFloor []codecFloor    `json:"codec_floor,omitempty"`
		}{all, sqlResults, codecFloors}, "", "  ")
		if err := os.WriteFile(*foreignJSON, append(data, '\n'), 0o644); err != nil {
			logf("foreign: %v", err)
		}
	}
	return ok
}

func profileForeign(path string, ft *foreignTable, q foreignQuery) error {
	return profileFloe(path, func() (checksum, error) { return floeForeign(ft, q, 1) })
}

// runForeignQuery measures q on floe and DuckDB at threads, and on
// iceberg-go too when withIcebergGo.
func runForeignQuery(ft *foreignTable, q foreignQuery, threads, repeat int, withIcebergGo bool) (foreignResult, error) {
	r := foreignResult{Table: ft.Codec, Variant: ft.Variant, RowGroups: ft.RowGroups, Query: q.Name, Threads: threads}
	duck, err := openDuckDBThreads(ft.Files, threads)
	if err != nil {
		return r, err
	}
	defer duck.Close()
	runs := []func() (sample, error){
		func() (sample, error) {
			return measure(1, func() (checksum, error) { return floeForeign(ft, q, threads) })
		},
		func() (sample, error) {
			return measure(1, func() (checksum, error) { return duckForeign(duck, ft, q) })
		},
	}
	best, errs := roundRobin(repeat, runs, betterAt(threads))
	for _, err := range errs {
		if err != nil {
			return r, err
		}
	}
	if best[0].Result.Rows != best[1].Result.Rows {
		return r, fmt.Errorf("floe returned %d rows, DuckDB %d", best[0].Result.Rows, best[1].Result.Rows)
	}
	r.Rows = best[0].Result.Rows
	r.FloeCPU, r.FloeWal = best[0].CPU, best[0].Wall
	r.DuckCPU, r.DuckWal = best[1].CPU, best[1].Wall
	if !withIcebergGo {
		return r, nil
	}
	// iceberg-go last and once per round, since it is the slowest; its
	// failure is reported, not fatal (it is the peer, not the subject).
	goBest, goErrs := roundRobin(repeat, []func() (sample, error){
		func() (sample, error) {
			return measure(1, func() (checksum, error) { return icebergGoForeign(ft, q, threads) })
		},
	}, betterAt(threads))
	switch {
	case goErrs[0] != nil:
		r.GoErr = goErrs[0].Error()
	case goBest[0].Result.Rows != r.Rows:
		r.GoErr = fmt.Sprintf("returned %d rows, not %d", goBest[0].Result.Rows, r.Rows)
	default:
		r.GoCPU, r.GoWal = goBest[0].CPU, goBest[0].Wall
	}
	return r, nil
}

// icebergGoForeign runs q through iceberg-go's scan (the static table at
// the same metadata file), touching every value returned.
func icebergGoForeign(ft *foreignTable, q foreignQuery, threads int) (checksum, error) {
	opts := []icebergtable.ScanOption{icebergtable.WithMaxConcurrency(threads)}
	if q.Columns != nil {
		opts = append(opts, icebergtable.WithSelectedFields(q.Columns...))
	}
	if q.icebergGo != nil {
		opts = append(opts, icebergtable.WithRowFilter(q.icebergGo))
	}
	if q.Limit > 0 {
		opts = append(opts, icebergtable.WithLimit(q.Limit))
	}
	var sum checksum
	var sink int64
	err := icebergGoRecords(ft.MetadataPath, opts, func(rec arrow.RecordBatch) {
		sum.Rows += rec.NumRows()
		if !q.Count {
			for _, col := range rec.Columns() {
				sink += touch(col)
			}
		}
	})
	_ = sink
	return sum, err
}

// foreignAlloc is the allocator floe's batches come from: the C API's
// (C memory, recycled), as every host reading through libfloe gets them.
var foreignAlloc = newMallocator()

// floeForeign runs q through floe's scan, touching every value returned.
func floeForeign(ft *foreignTable, q foreignQuery, threads int) (checksum, error) {
	ctx := context.Background()
	t, err := table.Open(ctx, ft.MetadataPath, table.Options{})
	if err != nil {
		return checksum{}, err
	}
	opts := scan.Options{Threads: threads, Columns: q.Columns}
	if q.Filter != "" {
		if opts.Filter, err = expr.ParseFilter(q.Filter); err != nil {
			return checksum{}, err
		}
	}
	if q.Limit > 0 {
		opts.Limit = &q.Limit
	}
	sc, err := scan.New(ctx, t, opts)
	if err != nil {
		return checksum{}, err
	}
	if q.Count {
		n, err := sc.Count(ctx)
		return checksum{Rows: n}, err
	}
	rr, err := sc.Reader(ctx, foreignAlloc)
	if err != nil {
		return checksum{}, err
	}
	defer rr.Release()
	var sum checksum
	var sink int64
	for rr.Next() {
		rec := rr.RecordBatch()
		sum.Rows += rec.NumRows()
		for _, col := range rec.Columns() {
			sink += touch(col)
		}
	}
	_ = sink
	return sum, rr.Err()
}

// touch reads every value of a column, as a consumer would.
func touch(a arrow.Array) int64 {
	var s int64
	switch c := a.(type) {
	case *array.Int64:
		for _, v := range c.Int64Values() {
			s += v
		}
	case *array.Int32:
		for _, v := range c.Int32Values() {
			s += int64(v)
		}
	case *array.Date32:
		for _, v := range c.Date32Values() {
			s += int64(v)
		}
	case *array.Decimal128:
		for i := 0; i < c.Len(); i++ {
			s += int64(c.Value(i).LowBits())
		}
	case *array.String:
		for i := 0; i < c.Len(); i++ {
			s += int64(len(c.Value(i)))
		}
	case *array.LargeString:
		for i := 0; i < c.Len(); i++ {
			s += int64(len(c.Value(i)))
		}
	}
	return s
}

// duckForeign runs q as an aggregate over the selected columns, so DuckDB
// decodes every value it returns, and counts the rows.
func duckForeign(d *duckDB, ft *foreignTable, q foreignQuery) (checksum, error) {
	cols := q.Columns
	if cols == nil {
		for _, f := range foreignSchema().Fields {
			cols = append(cols, f.Name)
		}
	}
	aggs := []string{"count(*)"}
	if !q.Count {
		schema := foreignSchema()
		for _, c := range cols {
			f, _ := schema.FindFieldByName(c)
			switch f.Type.String() {
			case "string":
				aggs = append(aggs, "sum(length("+c+"))")
			case "date":
				aggs = append(aggs, "max("+c+")")
			default:
				aggs = append(aggs, "sum("+c+")")
			}
		}
	}
	from := "read_parquet(" + d.files + ")"
	inner := "SELECT " + strings.Join(cols, ", ") + " FROM " + from
	if q.Filter != "" {
		inner += " WHERE " + duckWhere(q.Filter)
	}
	if q.Limit > 0 {
		inner += fmt.Sprintf(" LIMIT %d", q.Limit)
	}
	query := "SELECT " + strings.Join(aggs, ", ") + " FROM (" + inner + ")"
	if q.Limit == 0 {
		query = "SELECT " + strings.Join(aggs, ", ") + " FROM " + from
		if q.Filter != "" {
			query += " WHERE " + duckWhere(q.Filter)
		}
	}
	dest := make([]any, len(aggs))
	var rows int64
	dest[0] = &rows
	for i := 1; i < len(dest); i++ {
		var v any
		dest[i] = &v
	}
	if err := d.db.QueryRow(query).Scan(dest...); err != nil {
		return checksum{}, err
	}
	return checksum{Rows: rows}, nil
}

// duckWhere is floe's filter text as DuckDB SQL: the same, with quoted
// dates cast.
func duckWhere(filter string) string {
	for _, d := range []string{"'1994-01-01'", "'1995-01-01'"} {
		filter = strings.ReplaceAll(filter, d, "DATE "+d)
	}
	return filter
}
