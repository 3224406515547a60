package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer"
)

// The write section (go run ./cmd/bench -writes) writes the same rows from
// memory as one Parquet file: floe's writer (package writer, an
// unpartitioned table of the foreign section's schema) from Arrow batches
// against DuckDB's COPY … TO of an in-memory table, zstd and snappy, at 1
// thread (CPU time) and 2 (wall time). Both write to the local disk. The
// rows are the foreign section's (foreign_data.go generates them with
// DuckDB); they are read into memory once, before anything is measured.
var (
	writesOnly = flag.Bool("writes", false, "run only the write section: floe's Parquet writer against DuckDB's COPY from memory")
	writesRows = flag.Int64("writes-rows", 6_000_000, "rows written by the write section")
	writesDir  = flag.String("writes-data", "data/writes", "where the write section's source rows are generated (reused when there) and its files written")
	writesJSON = flag.String("writes-json", "results/latest-writes.json", "where to write the write section's results (empty: nowhere)")
	writesProf = flag.String("writes-cpuprofile", "", "write a CPU profile of one extra one-thread floe write of each codec to <this>-<codec>.prof")
	// 6 is the lowest level giving files no larger than DuckDB's at its
	// default (level 3): at the writer's default (klauspost's
	// SpeedDefault, levels 3-5) floe's 6 M-row file was 175.4 MB against
	// DuckDB's 171.9, at 6 (SpeedBetterCompression) 170.4.
	writesLevel = flag.Int("writes-zstd-level", 6, "floe's zstd level (0: the writer's default); DuckDB writes at its default")
)

// writeConfig is what one run of the section needs (the flags, or a test's
// small values).
type writeConfig struct {
	Rows      int64
	Dir       string
	JSON      string
	Profile   string
	ZstdLevel int
	Repeat    int
}

// writeResult is one codec at one thread count.
type writeResult struct {
	Codec     string        `json:"codec"`
	Threads   int           `json:"threads"`
	Rows      int64         `json:"rows"`
	FloeCPU   time.Duration `json:"floe_cpu_ns"`
	DuckCPU   time.Duration `json:"duckdb_cpu_ns"`
	FloeWall  time.Duration `json:"floe_wall_ns"`
	DuckWall  time.Duration `json:"duckdb_wall_ns"`
	FloeBytes int64         `json:"floe_bytes"`
	DuckBytes int64         `json:"duckdb_bytes"`
	FloeFiles int           `json:"floe_files"`
	ZstdLevel int           `json:"floe_zstd_level,omitempty"`
	// Load is the machine's 1-minute load average before the runs: on a
	// shared 2-core machine another process's load takes the second core
	// from the 2-thread runs of both writers.
	Load string `json:"load_average"`
}

// writeSource is the rows in memory, for both writers.
type writeSource struct {
	batches []arrow.RecordBatch
	rows    int64
	duck    *sql.DB // one connection holding table t
}

func (s *writeSource) release() {
	for _, b := range s.batches {
		b.Release()
	}
	if s.duck != nil {
		s.duck.Close()
	}
}

func runWriteSection(repeat int, logf func(string, ...any)) bool {
	results, err := measureWrites(writeConfig{
		Rows: *writesRows, Dir: *writesDir, JSON: *writesJSON, Profile: *writesProf,
		ZstdLevel: *writesLevel, Repeat: repeat,
	}, logf)
	if err != nil {
		logf("writes: %v", err)
		return false
	}
	printWrites(results, logf)
	return true
}

// measureWrites loads the rows, checks once that what floe writes reads
// back in DuckDB as the source, then measures both writers round-robin.
func measureWrites(cfg writeConfig, logf func(string, ...any)) ([]writeResult, error) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	src, err := loadWriteSource(cfg.Dir, cfg.Rows)
	if err != nil {
		return nil, err
	}
	defer src.release()
	logf("writes: %d rows in memory (%d Arrow batches; a DuckDB table)", src.rows, len(src.batches))
	out := filepath.Join(cfg.Dir, "out")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, err
	}
	var results []writeResult
	// zstd at the level giving files no larger than DuckDB's and, when
	// that is not it, at the writer's default; snappy has no level.
	runs := []struct {
		codec string
		level int
	}{{"zstd", cfg.ZstdLevel}}
	if cfg.ZstdLevel != 0 {
		runs = append(runs, struct {
			codec string
			level int
		}{"zstd", 0})
	}
	runs = append(runs, struct {
		codec string
		level int
	}{"snappy", 0})
	for _, run := range runs {
		codec, level := run.codec, run.level
		if err := checkFloeWrite(src, out, codec, level); err != nil {
			return nil, err
		}
		if cfg.Profile != "" && (codec != "zstd" || level == cfg.ZstdLevel) {
			path := fmt.Sprintf("%s-%s.prof", cfg.Profile, codec)
			if err := profileWrite(path, src, out, codec, level); err != nil {
				return nil, err
			}
			logf("writes: CPU profile of a one-thread floe %s write in %s", codec, path)
		}
		for _, threads := range []int{1, 2} {
			r := writeResult{Codec: codec, Threads: threads, Rows: src.rows, ZstdLevel: level, Load: loadAverage()}
			runs := []func() (sample, error){
				func() (sample, error) {
					runtime.GOMAXPROCS(threads)
					quiet()
					return measure(1, func() (checksum, error) {
						n, bytes, err := floeWrite(src, out, codec, level, threads)
						r.FloeFiles, r.FloeBytes = n, bytes
						return checksum{Rows: src.rows}, err
					})
				},
				func() (sample, error) {
					runtime.GOMAXPROCS(threads)
					if _, err := src.duck.Exec(fmt.Sprintf("SET threads = %d", threads)); err != nil {
						return sample{}, err
					}
					quiet()
					return measure(1, func() (checksum, error) {
						bytes, err := duckWrite(src, out, codec)
						r.DuckBytes = bytes
						return checksum{Rows: src.rows}, err
					})
				},
			}
			best, errs := roundRobin(cfg.Repeat, runs, betterAt(threads))
			for i, err := range errs {
				if err != nil {
					return nil, fmt.Errorf("%s %d threads, %s: %w", codec, threads, []string{"floe", "DuckDB"}[i], err)
				}
			}
			r.FloeCPU, r.FloeWall = best[0].CPU, best[0].Wall
			r.DuckCPU, r.DuckWall = best[1].CPU, best[1].Wall
			results = append(results, r)
		}
	}
	if cfg.JSON != "" {
		if err := writeJSON(cfg.JSON, results); err != nil {
			return results, err
		}
	}
	return results, nil
}

// loadWriteSource generates the rows (the foreign section's, one file
// written by DuckDB) unless they are there, and reads them into Arrow
// batches through floe's scan and into a DuckDB table.
func loadWriteSource(dir string, rows int64) (*writeSource, error) {
	ft, err := writeForeign(filepath.Join(dir, fmt.Sprintf("source-%d", rows)), "zstd", rows, 1)
	if err != nil {
		return nil, err
	}
	src := &writeSource{}
	ctx := context.Background()
	t, err := table.Open(ctx, ft.MetadataPath, table.Options{})
	if err != nil {
		return nil, err
	}
	sc, err := scan.New(ctx, t, scan.Options{Threads: 1})
	if err != nil {
		return nil, err
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		return nil, err
	}
	for rr.Next() {
		rec := rr.RecordBatch()
		rec.Retain()
		src.batches = append(src.batches, rec)
		src.rows += rec.NumRows()
	}
	rr.Release()
	if err := rr.Err(); err != nil {
		src.release()
		return nil, err
	}
	if src.rows != rows {
		src.release()
		return nil, fmt.Errorf("source holds %d rows, want %d", src.rows, rows)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		src.release()
		return nil, err
	}
	// One connection: the table and the settings belong to it.
	db.SetMaxOpenConns(1)
	src.duck = db
	for _, stmt := range []string{
		"SET preserve_insertion_order = true",
		// DuckDB's allocator frees memory on background threads after a
		// query returns (madvise through libc): 2.3 s of an 8 s profile
		// of floe's write, counted in floe's CPU time. Inline, it counts
		// in DuckDB's own queries.
		"SET allocator_background_threads = false",
		"CREATE TABLE t AS SELECT * FROM read_parquet(" + sqlString(ft.Files[0]) + ")",
	} {
		if _, err := db.Exec(stmt); err != nil {
			src.release()
			return nil, fmt.Errorf("duckdb %s: %w", stmt, err)
		}
	}
	return src, nil
}

func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// floeWriterOptions are the table's defaults but for the codec, the level
// and a target size no file of the section reaches (DuckDB writes one).
func floeWriterOptions(codec string, level, threads int) writer.Options {
	o := writer.DefaultOptions()
	o.Codec = codec
	o.CompressionLevel = level
	o.Parallelism = threads
	o.TargetFileSize = 1 << 40
	o.FilePrefix = "floe-" + codec
	return o
}

// floeWrite writes every batch with one writer and deletes the files
// afterwards; it returns how many there were and their bytes.
func floeWrite(src *writeSource, dir, codec string, level, threads int) (int, int64, error) {
	files, err := floeWriteKeep(src, dir, codec, level, threads)
	var bytes int64
	for _, f := range files {
		bytes += f.size
		os.Remove(f.path)
	}
	return len(files), bytes, err
}

type writtenFile struct {
	path string
	size int64
}

// floeWriteKeep is floeWrite leaving the files in place.
func floeWriteKeep(src *writeSource, dir, codec string, level, threads int) ([]writtenFile, error) {
	ctx := context.Background()
	w, err := writer.New(ctx, fileio.Local{}, filepath.ToSlash(dir), foreignSchema(), nil, floeWriterOptions(codec, level, threads))
	if err != nil {
		return nil, err
	}
	for _, rec := range src.batches {
		if err := w.Write(rec); err != nil {
			w.Abort()
			return nil, err
		}
	}
	done, err := w.Close()
	if err != nil {
		w.Abort()
		return nil, err
	}
	var files []writtenFile
	var rows int64
	for _, df := range done {
		files = append(files, writtenFile{path: df.FilePath, size: df.FileSizeInBytes})
		rows += df.RecordCount
	}
	if rows != src.rows {
		return files, fmt.Errorf("floe wrote %d rows of %d", rows, src.rows)
	}
	return files, nil
}

// duckWrite copies table t to one file at DuckDB's defaults, returns its
// size and deletes it.
func duckWrite(src *writeSource, dir, codec string) (int64, error) {
	path := filepath.Join(dir, "duckdb-"+codec+".parquet")
	defer os.Remove(path)
	if _, err := src.duck.Exec(fmt.Sprintf("COPY t TO %s (FORMAT parquet, COMPRESSION %s)", sqlString(path), codec)); err != nil {
		return 0, err
	}
	info, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

// checkFloeWrite writes the rows once with floe and has DuckDB compare
// the file with table t, row for row in order (the writer keeps the
// order of its batches): a faster writer that writes wrong files would
// not be measured.
func checkFloeWrite(src *writeSource, dir, codec string, level int) error {
	files, err := floeWriteKeep(src, dir, codec, level, 2)
	defer func() {
		for _, f := range files {
			os.Remove(f.path)
		}
	}()
	if err != nil {
		return err
	}
	list := make([]string, len(files))
	for i, f := range files {
		list[i] = sqlString(f.path)
	}
	q := `SELECT count(*), count(*) FILTER (WHERE a IS DISTINCT FROM b) FROM (
		SELECT row_number() OVER () AS rn, f AS a FROM read_parquet([` + strings.Join(list, ",") + `]) f) x
		FULL JOIN (SELECT row_number() OVER () AS rn, t AS b FROM t) y USING (rn)`
	var n, differ int64
	if err := src.duck.QueryRow(q).Scan(&n, &differ); err != nil {
		return fmt.Errorf("duckdb check of floe's %s file: %w", codec, err)
	}
	if n != src.rows || differ != 0 {
		return fmt.Errorf("floe's %s file read by DuckDB: %d rows, %d differ from the source's %d", codec, n, differ, src.rows)
	}
	return nil
}

// quiet waits, up to 10 s, until the process uses under 2 % of a core
// over 200 ms. DuckDB's threads go on working after a query returns: a
// profile of floe's write taken right after the check query (a join of
// the 6 M rows) held 6.3 s of DuckDB's libc code next to floe's 16 s,
// which would count as the next run's CPU time.
func quiet() {
	for range 50 {
		u0, s0 := processCPU()
		time.Sleep(200 * time.Millisecond)
		u1, s1 := processCPU()
		if u1-u0+s1-s0 < 4*time.Millisecond {
			return
		}
	}
}

func profileWrite(path string, src *writeSource, dir, codec string, level int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	quiet()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	_, _, err = floeWrite(src, dir, codec, level, 1)
	pprof.StopCPUProfile()
	return err
}

func printWrites(results []writeResult, logf func(string, ...any)) {
	logf("\n%-8s %12s %10s %10s %8s %10s %10s %10s %10s %9s", "codec", "rows", "floe MB", "DuckDB MB", "size", "CPU 1T", "wall 2T", "floe 2T", "DuckDB 2T", "load 2T")
	logf("%-8s %12s %10s %10s %8s %21s %21s", "", "", "", "", "floe÷D", "floe÷DuckDB", "speedup over 1T")
	ratio := func(a, b time.Duration) string {
		if b <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f×", float64(a)/float64(b))
	}
	for i := 0; i+1 < len(results); i += 2 {
		one, two := results[i], results[i+1]
		label := one.Codec
		if one.Codec == "zstd" {
			label = fmt.Sprintf("zstd %d", one.ZstdLevel)
			if one.ZstdLevel == 0 {
				label = "zstd def"
			}
		}
		logf("%-8s %12d %10.1f %10.1f %7.3f× %10s %10s %10s %10s %9s", label, one.Rows,
			float64(one.FloeBytes)/1e6, float64(one.DuckBytes)/1e6, float64(one.FloeBytes)/float64(max(one.DuckBytes, 1)),
			ratio(one.FloeCPU, one.DuckCPU), ratio(two.FloeWall, two.DuckWall),
			ratio(one.FloeWall, two.FloeWall), ratio(one.DuckWall, two.DuckWall), two.Load)
	}
}
