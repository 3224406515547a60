package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// The maintenance data: rows DuckDB generates (maintRowsSQL), written as
// many small Parquet files by DuckDB itself, and the same rows as small
// files by floe's writer (each DuckDB file read by pqarrow and written by
// ops.WriteFiles, one file each). The upsert part has a base table of
// floe-written files and an input file of rows half of whose keys the
// base holds. Everything is generated once per shape and reused.

// maintParams is the data's shape; written next to it, so data of another
// shape in the same directory is not taken for this one.
type maintParams struct {
	Files       int   `json:"files"`
	RowsPerFile int64 `json:"rows_per_file"`
	UpsertBase  int64 `json:"upsert_base_rows"`
	UpsertKeys  int64 `json:"upsert_keys"`
	Version     int   `json:"version"`
}

const maintGeneratorVersion = 2

// maintData is the generated data.
type maintData struct {
	Params maintParams `json:"params"`
	// DuckFiles are the small files DuckDB wrote; FloeFiles the same rows
	// written by floe (in a table of their own, FloeSource).
	DuckFiles  []string `json:"duck_files"`
	FloeFiles  []string `json:"floe_files"`
	FloeSource string   `json:"floe_source"`
	// DuckBytes and FloeBytes are the files' total sizes.
	DuckBytes int64 `json:"duck_bytes"`
	FloeBytes int64 `json:"floe_bytes"`
	// UpsertBase is the base table's metadata file (UpsertBase rows, ids
	// 0..n-1, floe's files); UpsertBaseFiles its data files; UpsertInput
	// a Parquet file of UpsertKeys rows, ids n-k/2..n+k/2-1, other values;
	// UpsertSpreadInput as many rows whose existing half is every
	// (n/(k/2))-th id, reaching every file of the base, the other half
	// ids n..n+k/2-1.
	UpsertBase        string   `json:"upsert_base"`
	UpsertBaseFiles   []string `json:"upsert_base_files"`
	UpsertInput       string   `json:"upsert_input"`
	UpsertSpreadInput string   `json:"upsert_spread_input"`
}

// maintSchema is the Iceberg schema of the rows maintRowsSQL makes.
func maintSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}},
		{ID: 2, Name: "qty", Type: iceberg.IntType{}},
		{ID: 3, Name: "price", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "flag", Type: iceberg.StringType{}},
		{ID: 5, Name: "comment", Type: iceberg.StringType{}},
		{ID: 6, Name: "ship_date", Type: iceberg.DateType{}},
		{ID: 7, Name: "ts", Type: iceberg.TimestampType{}},
	})
}

// maintRowsSQL selects rows with ids in [from, to); variant changes every
// value but the id (the upsert's new versions of rows).
func maintRowsSQL(from, to int64, variant int) string {
	return maintRowsOfSQL(fmt.Sprintf("range(%d, %d)", from, to), variant)
}

// maintRowsOfSQL selects maintRowsSQL's rows for the ids of source, a
// table expression of one BIGINT column.
func maintRowsOfSQL(source string, variant int) string {
	return fmt.Sprintf(`SELECT i::BIGINT AS id, ((i * 7 + %[2]d) %% 50)::INTEGER AS qty,
		(((i * 37 + %[2]d) %% 100000) / 100.0)::DOUBLE AS price, (['A', 'N', 'R'])[((i + %[2]d) %% 3) + 1] AS flag,
		'note ' || md5((i + %[2]d)::VARCHAR)[1:(i %% 24) + 4] AS comment,
		DATE '2020-01-01' + (i %% 2000)::INTEGER AS ship_date, TIMESTAMP '2020-01-01' + to_microseconds(i * 1000 + %[2]d) AS ts
		FROM %[1]s t(i)`, source, variant)
}

// duckCopy writes the rows of query to path as one zstd Parquet file.
func duckCopy(db *sql.DB, query, path string) error {
	_, err := db.Exec(fmt.Sprintf("COPY (%s) TO %s (FORMAT parquet, COMPRESSION zstd)", query, sqlString(path)))
	return err
}

func sqlList(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = sqlString(p)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// parquetReader reads a Parquet file as Arrow batches (pqarrow), the
// caller releasing the reader and closing the file.
func parquetReader(ctx context.Context, path string) (array.RecordReader, func() error, error) {
	pf, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
	if err != nil {
		return nil, nil, err
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: 64 << 10}, memory.DefaultAllocator)
	if err != nil {
		pf.Close()
		return nil, nil, err
	}
	rr, err := fr.GetRecordReader(ctx, nil, nil)
	if err != nil {
		pf.Close()
		return nil, nil, err
	}
	return rr, pf.Close, nil
}

// createMaintTable creates an unpartitioned v2 table of maintSchema at loc.
func createMaintTable(ctx context.Context, loc string) (*table.Table, error) {
	return table.Create(ctx, fileio.Local{}, loc, maintSchema(), nil, nil, nil, 2)
}

// tableWithFiles creates a table at loc holding files (registered by
// add_files, not copied): each measurement gets a table of its own.
func tableWithFiles(ctx context.Context, loc string, files []string) (*table.Table, error) {
	t, err := createMaintTable(ctx, loc)
	if err != nil {
		return nil, err
	}
	if _, err := ops.AddFiles(ctx, t, files, table.CommitOptions{}); err != nil {
		return nil, err
	}
	return t, nil
}

// writeFloeCopy writes the rows of a Parquet file with floe's writer into
// t's data directory (uncommitted).
func writeFloeCopy(ctx context.Context, t *table.Table, path string) ([]manifest.DataFile, error) {
	rr, closeFile, err := parquetReader(ctx, path)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	defer rr.Release()
	return ops.WriteFiles(ctx, t, rr)
}

func fileBytes(paths []string) int64 {
	var n int64
	for _, p := range paths {
		if info, err := os.Stat(p); err == nil {
			n += info.Size()
		}
	}
	return n
}

// generateMaint writes the data under dir/<shape>, or reuses it.
func generateMaint(ctx context.Context, dir string, p maintParams, logf func(string, ...any)) (*maintData, error) {
	p.Version = maintGeneratorVersion
	loc, err := filepath.Abs(filepath.Join(dir, fmt.Sprintf("f%d-r%d-u%d-k%d", p.Files, p.RowsPerFile, p.UpsertBase, p.UpsertKeys)))
	if err != nil {
		return nil, err
	}
	marker := filepath.Join(loc, "maintenance-data.json")
	if data, err := os.ReadFile(marker); err == nil {
		var d maintData
		if json.Unmarshal(data, &d) == nil && d.Params == p {
			logf("reusing the maintenance data at %s", loc)
			return &d, nil
		}
	}
	if err := os.RemoveAll(loc); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(loc, "duckdb"), 0o755); err != nil {
		return nil, err
	}
	start := time.Now()
	logf("writing %d small files of %d rows with DuckDB and with floe to %s ...", p.Files, p.RowsPerFile, loc)
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	d := &maintData{Params: p}
	for f := range p.Files {
		path := filepath.Join(loc, "duckdb", fmt.Sprintf("part-%05d.parquet", f))
		from := int64(f) * p.RowsPerFile
		if err := duckCopy(db, maintRowsSQL(from, from+p.RowsPerFile, 0), path); err != nil {
			return nil, fmt.Errorf("duckdb writing %s: %w", path, err)
		}
		d.DuckFiles = append(d.DuckFiles, path)
	}
	d.FloeSource = filepath.Join(loc, "floe")
	src, err := createMaintTable(ctx, d.FloeSource)
	if err != nil {
		return nil, err
	}
	var floeFiles []manifest.DataFile
	for _, path := range d.DuckFiles {
		files, err := writeFloeCopy(ctx, src, path)
		if err != nil {
			return nil, fmt.Errorf("floe copy of %s: %w", path, err)
		}
		floeFiles = append(floeFiles, files...)
	}
	if _, err := ops.AppendFiles(ctx, src, floeFiles, table.CommitOptions{}); err != nil {
		return nil, err
	}
	for _, f := range floeFiles {
		d.FloeFiles = append(d.FloeFiles, f.FilePath)
	}
	d.DuckBytes, d.FloeBytes = fileBytes(d.DuckFiles), fileBytes(d.FloeFiles)

	if p.UpsertBase > 0 {
		logf("writing the upsert base table of %d rows and an input of %d keys ...", p.UpsertBase, p.UpsertKeys)
		if err := generateUpsert(ctx, db, loc, p, d); err != nil {
			return nil, err
		}
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(marker, out, 0o644); err != nil {
		return nil, err
	}
	logf("maintenance data written in %s", time.Since(start).Round(time.Second))
	return d, nil
}

// upsertChunkRows is the rows of one DuckDB staging file of the base.
const upsertChunkRows = 1 << 20

func generateUpsert(ctx context.Context, db *sql.DB, loc string, p maintParams, d *maintData) error {
	stage := filepath.Join(loc, "upsert-stage")
	if err := os.MkdirAll(stage, 0o755); err != nil {
		return err
	}
	base, err := createMaintTable(ctx, filepath.Join(loc, "upsert-base"))
	if err != nil {
		return err
	}
	var files []manifest.DataFile
	for from := int64(0); from < p.UpsertBase; from += upsertChunkRows {
		path := filepath.Join(stage, fmt.Sprintf("base-%d.parquet", from))
		if err := duckCopy(db, maintRowsSQL(from, min(from+upsertChunkRows, p.UpsertBase), 0), path); err != nil {
			return err
		}
		written, err := writeFloeCopy(ctx, base, path)
		if err != nil {
			return err
		}
		files = append(files, written...)
		os.Remove(path)
	}
	if _, err := ops.AppendFiles(ctx, base, files, table.CommitOptions{}); err != nil {
		return err
	}
	d.UpsertBase = base.MetadataLocation
	for _, f := range files {
		d.UpsertBaseFiles = append(d.UpsertBaseFiles, f.FilePath)
	}
	d.UpsertInput = filepath.Join(loc, "upsert-input.parquet")
	half := p.UpsertKeys / 2
	if err := duckCopy(db, maintRowsSQL(p.UpsertBase-half, p.UpsertBase-half+p.UpsertKeys, 1), d.UpsertInput); err != nil {
		return err
	}
	d.UpsertSpreadInput = filepath.Join(loc, "upsert-input-spread.parquet")
	step := max(1, p.UpsertBase/max(1, half))
	spread := fmt.Sprintf("(SELECT * FROM (SELECT * FROM range(0, %d, %d) LIMIT %d) UNION ALL SELECT * FROM range(%d, %d))",
		p.UpsertBase, step, half, p.UpsertBase, p.UpsertBase+p.UpsertKeys-half)
	return duckCopy(db, maintRowsOfSQL(spread, 1), d.UpsertSpreadInput)
}
