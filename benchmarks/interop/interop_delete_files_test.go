package interop

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/writer"
)

// A position delete file written by floe's own writer, read by DuckDB:
// its rows in file_path then pos order, the reserved field ids on the
// columns and Java's iceberg.schema in the key-value metadata.
func TestPositionDeleteFileReadByDuckDB(t *testing.T) {
	var deletes []writer.FilePositions
	total, maxWant := 0, int64(0)
	for i := 9; i >= 0; i-- { // given out of order: the writer sorts
		bm := roaring64.New()
		for p := uint64(i); p < 50_000; p += uint64(3 + i) {
			bm.Add(p)
			total, maxWant = total+1, max(maxWant, int64(p))
		}
		deletes = append(deletes, writer.FilePositions{FilePath: fmt.Sprintf("s3://b/t/data/%05d.parquet", i), Positions: bm})
	}
	path := filepath.Join(t.TempDir(), "pos.parquet")
	if _, err := writer.WritePositionDeletes(context.Background(), fileio.Local{}, path, 0, nil, deletes, writer.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("duckdb", "")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lit := "'" + strings.ReplaceAll(path, "'", "''") + "'"
	var rows, unordered int
	var minPos, maxPos int64
	// Each row against the one before it in file order.
	err = db.QueryRow(`SELECT count(*), min(pos), max(pos),
		count(*) FILTER (WHERE prev_path IS NOT NULL AND (prev_path, prev_pos) >= (file_path, pos))
		FROM (SELECT file_path, pos, lag(file_path) OVER w AS prev_path, lag(pos) OVER w AS prev_pos
		      FROM read_parquet(`+lit+`, file_row_number = true) WINDOW w AS (ORDER BY file_row_number))`).Scan(&rows, &minPos, &maxPos, &unordered)
	if err != nil {
		t.Fatal(err)
	}
	if rows != total || unordered != 0 || minPos != 0 || maxPos != maxWant {
		t.Errorf("DuckDB reads %d rows (%d written), %d out of order, pos %d..%d", rows, total, unordered, minPos, maxPos)
	}
	ids := map[string]int64{}
	res, err := db.Query(`SELECT name, field_id FROM parquet_schema(` + lit + `) WHERE field_id IS NOT NULL`)
	if err != nil {
		t.Fatal(err)
	}
	for res.Next() {
		var name string
		var id int64
		if err := res.Scan(&name, &id); err != nil {
			t.Fatal(err)
		}
		ids[name] = id
	}
	res.Close()
	if ids["file_path"] != writer.FieldIDDeleteFilePath || ids["pos"] != writer.FieldIDDeletePos || len(ids) != 2 {
		t.Errorf("field ids %v", ids)
	}
	var schema string
	if err := db.QueryRow(`SELECT decode(value) FROM parquet_kv_metadata(` + lit + `) WHERE decode(key) = 'iceberg.schema'`).Scan(&schema); err != nil {
		t.Fatal(err)
	}
	if want := `{"type":"struct","schema-id":0,"fields":[{"id":2147483546,"name":"file_path","required":true,"type":"string"},{"id":2147483545,"name":"pos","required":true,"type":"long"}]}`; schema != want {
		t.Errorf("iceberg.schema %s", schema)
	}
}
