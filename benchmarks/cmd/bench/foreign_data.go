package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer/ops"
)

// The foreign data set: lineitem-like rows written by DuckDB (its default
// Parquet writer settings: row groups, encodings, dictionaries), with a
// text comment column of realistic length and vocabulary, registered in
// an Iceberg table with floe's add_files. It is what another engine's
// table looks like to floe, unlike the generator's files.

// foreignWords is the comment vocabulary: TPC-H's text grammar uses words
// of this kind, and comments of 3 to 12 of them are 10 to 80 characters.
var foreignWords = strings.Fields(`furiously carefully quickly slyly blithely fluffily ironic regular express final
	pending special bold unusual even silent idle daring ruthless deposits requests packages accounts
	instructions theodolites pinto beans foxes ideas dependencies excuses platelets asymptotes courts
	dolphins multipliers sauternes warthogs frets dinos attainments somas tithes sheaves grouches
	among along across against above after around according haggle sleep wake cajole nag boost use
	integrate detect affix engage are was print`)

// foreignSchema is the Iceberg schema of DuckDB's columns (as DuckDB
// writes them: BIGINT, INTEGER, DECIMAL(15,2), VARCHAR, DATE).
func foreignSchema() *iceberg.Schema {
	dec := iceberg.DecimalType{Precision: 15, Scale: 2}
	cols := []struct {
		name string
		t    iceberg.Type
	}{
		{"l_orderkey", iceberg.LongType{}}, {"l_partkey", iceberg.LongType{}}, {"l_suppkey", iceberg.LongType{}},
		{"l_linenumber", iceberg.IntType{}}, {"l_quantity", dec}, {"l_extendedprice", dec}, {"l_discount", dec},
		{"l_tax", dec}, {"l_returnflag", iceberg.StringType{}}, {"l_linestatus", iceberg.StringType{}},
		{"l_shipdate", iceberg.DateType{}}, {"l_commitdate", iceberg.DateType{}}, {"l_receiptdate", iceberg.DateType{}},
		{"l_shipinstruct", iceberg.StringType{}}, {"l_shipmode", iceberg.StringType{}}, {"l_comment", iceberg.StringType{}},
	}
	fields := make([]iceberg.NestedField, len(cols))
	for i, c := range cols {
		fields[i] = iceberg.NestedField{ID: i + 1, Name: c.name, Type: c.t}
	}
	return iceberg.NewSchema(0, fields)
}

// foreignTable is one codec's table.
type foreignTable struct {
	Codec        string
	Variant      string // its shape's name in the report
	RowGroups    int
	MetadataPath string
	Files        []string
	Rows         int64
	Bytes        int64
}

// writeForeign writes rows lineitem-like rows with DuckDB into files
// Parquet files under dir (sorted by l_orderkey, as lineitem is), unless
// they are there, and registers them with add_files.
func writeForeign(dir, codec string, rows int64, files int) (*foreignTable, error) {
	return writeForeignShape(dir, codec, foreignShape{Rows: rows, Files: files})
}

// foreignShape is how a foreign table's rows are laid out: in how many
// files, and in row groups of how many rows (0: DuckDB's default, 122,880
// rows).
type foreignShape struct {
	Rows         int64
	Files        int
	RowGroupRows int64
}

// writeForeignShape is writeForeign for any shape.
func writeForeignShape(dir, codec string, shape foreignShape) (*foreignTable, error) {
	rows, files := shape.Rows, shape.Files
	ft := &foreignTable{Codec: codec}
	dataDir := filepath.Join(dir, "data")
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return nil, err
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	quoted := make([]string, len(foreignWords))
	for i, w := range foreignWords {
		quoted[i] = "'" + w + "'"
	}
	words := "[" + strings.Join(quoted, ",") + "]"
	per := rows / int64(files)
	rowGroup := ""
	if shape.RowGroupRows > 0 {
		rowGroup = fmt.Sprintf(", ROW_GROUP_SIZE %d", shape.RowGroupRows)
	}
	for i := range files {
		path := filepath.Join(dataDir, fmt.Sprintf("lineitem-%s-%d.parquet", codec, i))
		ft.Files = append(ft.Files, filepath.ToSlash(path))
		if _, err := os.Stat(path); err == nil {
			continue
		}
		lo, hi := int64(i)*per, int64(i+1)*per
		if i == files-1 {
			hi = rows
		}
		// A fixed seed per file: the same data every time.
		if _, err := db.Exec(fmt.Sprintf("SELECT setseed(%f)", float64(i+1)/float64(files+2))); err != nil {
			return nil, err
		}
		q := fmt.Sprintf(`COPY (
			SELECT r // 4 + 1 AS l_orderkey,
				(hash(r * 7) %% 2000000 + 1)::BIGINT AS l_partkey,
				(hash(r * 11) %% 100000 + 1)::BIGINT AS l_suppkey,
				(r %% 7 + 1)::INTEGER AS l_linenumber,
				((hash(r * 13) %% 50 + 1)::DECIMAL(15,2)) AS l_quantity,
				((hash(r * 17) %% 10000000) / 100.0 + 900)::DECIMAL(15,2) AS l_extendedprice,
				((hash(r * 19) %% 11) / 100.0)::DECIMAL(15,2) AS l_discount,
				((hash(r * 23) %% 9) / 100.0)::DECIMAL(15,2) AS l_tax,
				['R','A','N'][(hash(r * 29) %% 3)::BIGINT + 1] AS l_returnflag,
				['O','F'][(hash(r * 31) %% 2)::BIGINT + 1] AS l_linestatus,
				(DATE '1992-01-02' + ((r * 2557) // %d)::INTEGER) AS l_shipdate,
				(DATE '1992-01-31' + ((r * 2557) // %d)::INTEGER + (hash(r * 37) %% 60)::INTEGER) AS l_commitdate,
				(DATE '1992-01-03' + ((r * 2557) // %d)::INTEGER + (hash(r * 41) %% 30)::INTEGER) AS l_receiptdate,
				['DELIVER IN PERSON','COLLECT COD','NONE','TAKE BACK RETURN'][(hash(r * 43) %% 4)::BIGINT + 1] AS l_shipinstruct,
				['REG AIR','AIR','RAIL','SHIP','TRUCK','MAIL','FOB'][(hash(r * 47) %% 7)::BIGINT + 1] AS l_shipmode,
				array_to_string(list_transform(range((hash(r * 53) %% 10 + 3)::BIGINT), k -> %s[(hash(r * 59 + k) %% %d)::BIGINT + 1]), ' ') AS l_comment
			FROM range(%d, %d) t(r)
			ORDER BY r
		) TO '%s' (FORMAT parquet, COMPRESSION %s%s)`, rows, rows, rows, words, len(foreignWords), lo, hi, strings.ReplaceAll(path, "'", "''"), codec, rowGroup)
		if _, err := db.Exec(q); err != nil {
			return nil, fmt.Errorf("duckdb: write %s: %w", path, err)
		}
	}
	for _, f := range ft.Files {
		if info, err := os.Stat(f); err == nil {
			ft.Bytes += info.Size()
		}
	}
	// The table: created and filled with add_files once; its metadata
	// file is found again afterwards.
	loc := filepath.ToSlash(filepath.Join(dir, "table"))
	ctx := context.Background()
	t, err := table.Open(ctx, loc, table.Options{})
	if err != nil {
		if t, err = table.Create(ctx, nil, loc, foreignSchema(), nil, nil, nil, 2); err != nil {
			return nil, err
		}
		if _, err := ops.AddFiles(ctx, t, ft.Files, table.CommitOptions{}); err != nil {
			return nil, fmt.Errorf("add_files: %w", err)
		}
		if t, err = table.Open(ctx, loc, table.Options{}); err != nil {
			return nil, err
		}
	}
	ft.MetadataPath = t.MetadataLocation
	plan, err := t.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		return nil, err
	}
	ft.Rows = plan.RecordCount()
	for _, task := range plan.Tasks {
		// add_files records each file's row-group offsets.
		ft.RowGroups += max(len(task.File.SplitOffsets), 1)
	}
	return ft, nil
}
