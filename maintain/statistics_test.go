package maintain

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/puffin"
	"github.com/floedb/floe/iceberg/puffin/theta"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

func statsSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "name", Type: iceberg.StringType{}},
		{ID: 3, Name: "price", Type: iceberg.DecimalType{Precision: 10, Scale: 2}},
		{ID: 4, Name: "day", Type: iceberg.DateType{}},
		{ID: 5, Name: "flag", Type: iceberg.BooleanType{}},
		{ID: 6, Name: "score", Type: iceberg.DoubleType{}},
		{ID: 7, Name: "info", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 8, Name: "code", Type: iceberg.IntType{}},
		}}},
	})
}

// statsRows are n rows whose columns have known distinct counts; nulls
// and empty strings (which Java's sketch ignores) mixed in.
func statsRows(first, n int) [][]any {
	rows := make([][]any, n)
	for r := range rows {
		i := first + r
		var name any = fmt.Sprintf("n%d", i%1500)
		switch {
		case i%7 == 0:
			name = nil
		case i%11 == 0:
			name = ""
		}
		var flag any = i%2 == 0
		if i%5 == 0 {
			flag = nil
		}
		var info any = []any{int32(i % 40)}
		if i%13 == 0 {
			info = nil
		}
		rows[r] = []any{int64(i), name, iceberg.DecimalFromInt64(int64(i%300)-150, 2), int32(i % 100), flag, float64(i%50) / 2, info}
	}
	return rows
}

// distinct counts the distinct non-null values of column col of rows,
// strings without "" as Java's sketch drops it; fmt's %v keys values.
func distinct(rows [][]any, col func(row []any) any) int64 {
	seen := map[string]bool{}
	for _, row := range rows {
		v := col(row)
		if v == nil || v == "" {
			continue
		}
		seen[fmt.Sprintf("%T %v", v, v)] = true
	}
	return int64(len(seen))
}

func readStatisticsBlobs(t *testing.T, tbl *table.Table, f metadata.StatisticsFile) map[int]*theta.Compact {
	t.Helper()
	ctx := context.Background()
	in, err := tbl.IO.Open(ctx, f.StatisticsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if in.Size() != f.FileSizeInBytes {
		t.Fatalf("statistics file has %d bytes, metadata says %d", in.Size(), f.FileSizeInBytes)
	}
	footer, err := puffin.ReadFooter(in, in.Size())
	if err != nil {
		t.Fatal(err)
	}
	out := map[int]*theta.Compact{}
	for i, b := range footer.Blobs {
		if b.Type != puffin.BlobTypeThetaSketch || len(b.Fields) != 1 || b.CompressionCodec != puffin.CodecZstd {
			t.Fatalf("blob %+v", b)
		}
		raw, err := puffin.ReadBlob(in, b)
		if err != nil {
			t.Fatal(err)
		}
		c, err := theta.Unmarshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if got := strconv.FormatInt(int64(c.Estimate()), 10); b.Properties[PropertyNDV] != got || f.BlobMetadata[i].Properties[PropertyNDV] != got {
			t.Fatalf("blob of field %d: ndv %q in the file, %q in metadata, the sketch estimates %s", b.Fields[0], b.Properties[PropertyNDV], f.BlobMetadata[i].Properties[PropertyNDV], got)
		}
		out[int(b.Fields[0])] = c
	}
	return out
}

func TestComputeStatisticsOnAFloeTable(t *testing.T) {
	ctx := context.Background()
	schema := statsSchema()
	dir := filepath.Join(t.TempDir(), "tbl")
	tbl, err := table.Create(ctx, nil, dir, schema, nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	rows := append(statsRows(0, 12_000), statsRows(12_000, 8_000)...)
	for _, part := range [][][]any{rows[:12_000], rows[12_000:]} {
		if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, schema, part), table.CommitOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ComputeStatistics(ctx, tbl, StatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	snap := tbl.Metadata.CurrentSnapshotID
	if res.SnapshotID != *snap {
		t.Fatalf("sketched snapshot %d, current is %d", res.SnapshotID, *snap)
	}
	want := map[string]int64{
		"name":  distinct(rows, func(r []any) any { return r[1] }),
		"price": distinct(rows, func(r []any) any { return r[2].(iceberg.Decimal).String() }),
		"day":   distinct(rows, func(r []any) any { return r[3] }),
		"flag":  distinct(rows, func(r []any) any { return r[4] }),
		"score": distinct(rows, func(r []any) any { return r[5] }),
	}
	if want["name"] < 1000 || want["flag"] != 2 || want["price"] != 300 {
		t.Fatalf("test data: %v", want)
	}
	if len(res.NDV) != 6 {
		t.Fatalf("sketched %v: want the six top-level primitive columns", res.NDV)
	}
	for col, n := range want { // under k distinct: exact
		if res.NDV[col] != n {
			t.Errorf("column %s: ndv %d, %d distinct", col, res.NDV[col], n)
		}
	}
	if got := float64(res.NDV["id"]); math.Abs(got-20_000) > 0.05*20_000 {
		t.Errorf("id: ndv %v of 20,000 distinct", got)
	}

	// Registered in the metadata file a fresh open reads, and the blobs
	// read back as sketches whose estimates are the ndv properties.
	reopened, err := table.Open(ctx, dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := reopened.Metadata.Statistics
	if len(st) != 1 || st[0].SnapshotID != *snap || st[0].StatisticsPath != res.Path || st[0].FileFooterSizeInBytes <= 0 {
		t.Fatalf("statistics in metadata: %+v", st)
	}
	raw, err := os.ReadFile(reopened.MetadataLocation)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Statistics []struct {
			Path  string `json:"statistics-path"`
			Blobs []struct {
				Type   string            `json:"type"`
				Fields []int             `json:"fields"`
				Seq    int64             `json:"sequence-number"`
				Props  map[string]string `json:"properties"`
			} `json:"blob-metadata"`
		} `json:"statistics"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil || len(doc.Statistics) != 1 || len(doc.Statistics[0].Blobs) != 6 {
		t.Fatalf("metadata.json statistics: %v %+v", err, doc)
	}
	if b := doc.Statistics[0].Blobs[1]; b.Type != "apache-datasketches-theta-v1" || b.Fields[0] != 2 || b.Seq != 2 || b.Props["ndv"] != strconv.FormatInt(want["name"], 10) {
		t.Fatalf("name's blob in metadata.json: %+v", b)
	}
	sketches := readStatisticsBlobs(t, reopened, st[0])
	if sketches[1].Theta() >= math.MaxInt64 || sketches[2].Theta() != math.MaxInt64 {
		t.Errorf("id should be sketched in estimation mode, name exactly")
	}

	// Asked columns: a struct's field by dotted name; the snapshot's file
	// is replaced, and the earlier one's path no longer registered.
	res2, err := ComputeStatistics(ctx, reopened, StatisticsOptions{Columns: []string{"info.code", "name"}})
	if err != nil {
		t.Fatal(err)
	}
	codes := distinct(rows, func(r []any) any {
		if r[6] == nil {
			return nil
		}
		return r[6].([]any)[0]
	})
	if res2.NDV["info.code"] != codes || res2.NDV["name"] != want["name"] || len(res2.NDV) != 2 {
		t.Fatalf("ndv %v, want info.code %d", res2.NDV, codes)
	}
	if st := reopened.Metadata.Statistics; len(st) != 1 || st[0].StatisticsPath != res2.Path || st[0].BlobMetadata[0].Fields[0] != 8 {
		t.Fatalf("statistics after the second run: %+v", st)
	}
	if n := len(rowstest.ScanRows(t, reopened, scan.Options{})); n != len(rows) {
		t.Fatalf("the table scans %d rows, want %d", n, len(rows))
	}

	// An older snapshot is sketched from its own rows.
	first := reopened.Metadata.Snapshots[0].SnapshotID
	res3, err := ComputeStatistics(ctx, reopened, StatisticsOptions{SnapshotID: &first, Columns: []string{"day"}})
	if err != nil {
		t.Fatal(err)
	}
	if res3.SnapshotID != first || res3.NDV["day"] != 100 || len(reopened.Metadata.Statistics) != 2 {
		t.Fatalf("first snapshot: %+v, %d statistics files", res3, len(reopened.Metadata.Statistics))
	}
}

func TestComputeStatisticsRefusals(t *testing.T) {
	ctx := context.Background()
	tbl, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "tbl"), statsSchema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ComputeStatistics(ctx, tbl, StatisticsOptions{}); !errors.Is(err, errkind.InvalidArgument) {
		t.Fatalf("a table without snapshots: %v", err)
	}
	if _, err := ops.Append(ctx, tbl, rowstest.Reader(t, statsSchema(), statsRows(0, 10)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for cols, kind := range map[string]errkind.Kind{
		"nmae":        errkind.InvalidArgument,
		"info":        errkind.InvalidArgument,
		"info.cdoe":   errkind.InvalidArgument,
		"name,name":   errkind.InvalidArgument,
		"id.x":        errkind.Unsupported,
		"day,missing": errkind.InvalidArgument,
	} {
		if _, err := ComputeStatistics(ctx, tbl, StatisticsOptions{Columns: strings.Split(cols, ",")}); !errors.Is(err, kind) {
			t.Errorf("columns %s: %v, want %v", cols, err, kind)
		}
	}
	missing := int64(42)
	if _, err := ComputeStatistics(ctx, tbl, StatisticsOptions{SnapshotID: &missing}); !errors.Is(err, errkind.NotFound) {
		t.Errorf("unknown snapshot: %v", err)
	}
	if tbl.Metadata.Statistics != nil {
		t.Fatal("a refused run registered statistics")
	}
	stats, _ := filepath.Glob(filepath.Join(tbl.Metadata.Location, "metadata", "*.stats"))
	if len(stats) != 0 {
		t.Fatalf("refused runs left %v", stats)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// DuckDB's TPC-H lineitem table (written by Spark): every top-level
// column sketched, each estimate near the distinct count the test finds
// itself from the rows, registered so that the table reopens and scans.
func TestComputeStatisticsOnDuckDBLineitem(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "copy")
	copyTree(t, fx.Dir, dir)
	locations := map[string]string{}
	for prefix, target := range fx.LocationMap {
		locations[prefix] = strings.Replace(target, fx.Dir, dir, 1)
	}
	opts := table.Options{LocationMap: locations}
	tbl, err := table.Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	schema := tbl.Metadata.CurrentSchema()
	rows := rowstest.ScanRows(t, tbl, scan.Options{})
	res, err := ComputeStatistics(ctx, tbl, StatisticsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NDV) != len(schema.Fields) {
		t.Fatalf("sketched %d columns of %d", len(res.NDV), len(schema.Fields))
	}
	estimated := 0
	for j, f := range schema.Fields {
		n := distinct(rows, func(r []any) any {
			if d, ok := r[j].(iceberg.Decimal); ok {
				return d.String()
			}
			return r[j]
		})
		got := res.NDV[f.Name]
		if n < 4096 && got != n || math.Abs(float64(got-n)) > 0.05*float64(n) {
			t.Errorf("%s: ndv %d, %d distinct", f.Name, got, n)
		}
		if n >= 4096 {
			estimated++
		}
	}
	t.Logf("ndv %v", res.NDV)
	if estimated == 0 {
		t.Fatal("no column has more distinct values than k: estimation mode untested")
	}
	reopened, err := table.Open(ctx, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if st := reopened.Metadata.Statistics; len(st) != 1 || st[0].SnapshotID != res.SnapshotID || len(st[0].BlobMetadata) != len(schema.Fields) {
		t.Fatalf("statistics %+v", st)
	}
	readStatisticsBlobs(t, reopened, reopened.Metadata.Statistics[0])
	if got := rowstest.ScanRows(t, reopened, scan.Options{}); len(got) != len(rows) {
		t.Fatalf("scans %d rows after, %d before", len(got), len(rows))
	}
	if _, err := os.Stat(filepath.Join(fx.Dir, "metadata", "v3.metadata.json")); err == nil {
		t.Fatal("the shared fixture was written to")
	}
}
