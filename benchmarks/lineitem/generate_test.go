package lineitem

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/reader/scan"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/format"
)

var smallParams = Params{Rows: 20_000, Files: 2, RowGroupsPerFile: 3, Seed: 7}

func generateSmall(t *testing.T) *Table {
	t.Helper()
	tbl, err := Generate(t.TempDir(), smallParams, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	return tbl
}

func TestParquetLayout(t *testing.T) {
	tbl := generateSmall(t)
	for _, path := range tbl.DataFiles {
		md := footer(t, path)
		if len(md.RowGroups) != smallParams.RowGroupsPerFile {
			t.Errorf("%s: %d row groups, want %d", path, len(md.RowGroups), smallParams.RowGroupsPerFile)
		}
		ids := map[string]int32{}
		for _, el := range md.Schema[1:] {
			if el.FieldID == 0 {
				t.Errorf("%s: column %s has no field id", path, el.Name)
			}
			ids[el.Name] = el.FieldID
		}
		for i, name := range ColumnNames {
			if ids[name] != int32(i+1) {
				t.Errorf("%s: %s has field id %d, want %d", path, name, ids[name], i+1)
			}
		}
		for _, rg := range md.RowGroups {
			for i, cc := range rg.Columns {
				if cc.MetaData.Codec != format.Snappy {
					t.Errorf("%s: %s is %v, not snappy", path, ColumnNames[i], cc.MetaData.Codec)
				}
				if cc.ColumnIndexOffset == 0 || cc.OffsetIndexOffset == 0 {
					t.Errorf("%s: %s has no page index", path, ColumnNames[i])
				}
			}
			flag := rg.Columns[IDReturnFlag-1].MetaData
			if flag.DictionaryPageOffset == 0 {
				t.Errorf("%s: l_returnflag is not dictionary encoded (encodings %v)", path, flag.Encoding)
			}
		}
	}
}

// TestManifestMetrics reads the table back through floe and checks each
// manifest entry's counts and bounds against values read from its file
// with parquet-go.
func TestManifestMetrics(t *testing.T) {
	tbl := generateSmall(t)
	ctx := context.Background()
	it, err := table.Open(ctx, tbl.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := it.PlanFiles(ctx, table.SnapshotSelector{})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Tasks) != smallParams.Files {
		t.Fatalf("%d data files planned, want %d", len(plan.Tasks), smallParams.Files)
	}
	schema := Schema()
	for _, task := range plan.Tasks {
		rows := readRows(t, task.Path)
		df := task.File
		if df.RecordCount != int64(len(rows)) {
			t.Errorf("%s: record_count %d, file has %d rows", task.Path, df.RecordCount, len(rows))
		}
		lo, hi := rowBounds(rows)
		for id := 1; id <= lastColumnID; id++ {
			if df.Metrics.Maps().ValueCounts[id] != int64(len(rows)) || df.Metrics.Maps().NullValueCounts[id] != 0 {
				t.Errorf("%s: column %d: value count %d, null count %d", task.Path, id, df.Metrics.Maps().ValueCounts[id], df.Metrics.Maps().NullValueCounts[id])
			}
			if df.Metrics.Maps().ColumnSizes[id] <= 0 {
				t.Errorf("%s: column %d: size %d", task.Path, id, df.Metrics.Maps().ColumnSizes[id])
			}
			typ := schema.Fields[id-1].Type
			gotLo, err1 := iceberg.ValueFromBytes(typ, df.Metrics.Maps().LowerBounds[id])
			gotHi, err2 := iceberg.ValueFromBytes(typ, df.Metrics.Maps().UpperBounds[id])
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: column %d bounds: %v %v", task.Path, id, err1, err2)
			}
			if id == IDComment {
				// truncate(16): a prefix of the minimum, and a 16-character
				// bound above the maximum.
				minC, maxC := lo[id].(string), hi[id].(string)
				if s := gotLo.(string); len(s) > boundLength || !strings.HasPrefix(minC, s) {
					t.Errorf("%s: l_comment lower bound %q for minimum %q", task.Path, s, minC)
				}
				if s := gotHi.(string); len(s) > boundLength || s < maxC[:min(len(maxC), boundLength)] {
					t.Errorf("%s: l_comment upper bound %q for maximum %q", task.Path, s, maxC)
				}
				continue
			}
			if iceberg.Compare(typ, gotLo, lo[id]) != 0 {
				t.Errorf("%s: column %d lower bound %v, data minimum %v", task.Path, id, gotLo, lo[id])
			}
			if iceberg.Compare(typ, gotHi, hi[id]) != 0 {
				t.Errorf("%s: column %d upper bound %v, data maximum %v", task.Path, id, gotHi, hi[id])
			}
		}
	}
}

func TestScanThroughFloe(t *testing.T) {
	tbl := generateSmall(t)
	ctx := context.Background()
	it, err := table.Open(ctx, tbl.Location, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scan.New(ctx, it, scan.Options{Columns: []string{"l_orderkey"}})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := sc.Reader(ctx, memory.DefaultAllocator)
	if err != nil {
		t.Fatal(err)
	}
	defer rr.Release()
	var n int64
	prev := int64(-1)
	for rr.Next() {
		keys := rr.RecordBatch().Column(0).(*array.Int64)
		for _, k := range keys.Int64Values() {
			if k < prev {
				t.Fatalf("l_orderkey %d after %d: not sorted", k, prev)
			}
			prev = k
		}
		n += int64(keys.Len())
	}
	if rr.Err() != nil {
		t.Fatal(rr.Err())
	}
	if n != smallParams.Rows {
		t.Errorf("scanned %d rows, want %d", n, smallParams.Rows)
	}
}

func TestGenerateSkipsSameParameters(t *testing.T) {
	dir := t.TempDir()
	first, err := Generate(dir, smallParams, t.Logf)
	if err != nil || !first.Generated {
		t.Fatalf("first run: %v, generated %v", err, first != nil && first.Generated)
	}
	again, err := Generate(dir, smallParams, t.Logf)
	if err != nil || again.Generated || again.MetadataPath != first.MetadataPath {
		t.Fatalf("same parameters: %v, generated %v", err, again != nil && again.Generated)
	}
	other := smallParams
	other.Seed++
	changed, err := Generate(dir, other, t.Logf)
	if err != nil || !changed.Generated {
		t.Fatalf("new seed: %v, generated %v", err, changed != nil && changed.Generated)
	}
}

func footer(t *testing.T, path string) *format.FileMetaData {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, _ := f.Stat()
	pf, err := parquet.OpenFile(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	return pf.Metadata()
}

func readRows(t *testing.T, path string) []Row {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := parquet.NewGenericReader[Row](f)
	defer r.Close()
	var rows []Row
	buf := make([]Row, 1024)
	for {
		n, err := r.Read(buf)
		rows = append(rows, buf[:n]...)
		if err == io.EOF {
			return rows
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// rowBounds gives each column's minimum and maximum in canonical form.
func rowBounds(rows []Row) (lo, hi map[int]any) {
	lo, hi = map[int]any{}, map[int]any{}
	schema := Schema()
	for _, r := range rows {
		vals := map[int]any{
			IDOrderKey: r.OrderKey, IDPartKey: r.PartKey, IDSuppKey: r.SuppKey,
			IDQuantity:      iceberg.DecimalFromInt64(r.Quantity, QuantityScale),
			IDExtendedPrice: r.ExtendedPrice, IDDiscount: r.Discount,
			IDReturnFlag: r.ReturnFlag, IDShipDate: r.ShipDate, IDComment: r.Comment,
		}
		for id, v := range vals {
			typ := schema.Fields[id-1].Type
			if cur, ok := lo[id]; !ok || less(typ, v, cur) {
				lo[id] = v
			}
			if cur, ok := hi[id]; !ok || less(typ, cur, v) {
				hi[id] = v
			}
		}
	}
	return lo, hi
}

func less(t iceberg.Type, a, b any) bool {
	return iceberg.Compare(t, a, b) < 0
}

// TestEncodings checks the layout Spark would write: v1 data pages and
// PLAIN strings, dictionaries on the low-cardinality columns.
func TestEncodings(t *testing.T) {
	tbl := generateSmall(t)
	md := footer(t, tbl.DataFiles[0])
	dict := map[int]bool{IDQuantity: true, IDDiscount: true, IDReturnFlag: true, IDShipDate: true}
	for i, cc := range md.RowGroups[0].Columns {
		id := i + 1
		if got := cc.MetaData.DictionaryPageOffset != 0; got != dict[id] {
			t.Errorf("%s: dictionary %v, want %v", ColumnNames[i], got, dict[id])
		}
		for _, enc := range cc.MetaData.Encoding {
			if enc != format.Plain && enc != format.RLE && enc != format.RLEDictionary {
				t.Errorf("%s: encoding %v", ColumnNames[i], enc)
			}
		}
		if len(cc.MetaData.EncodingStats) == 0 {
			t.Errorf("%s: no encoding stats to tell the page version by", ColumnNames[i])
		}
		for _, st := range cc.MetaData.EncodingStats {
			if st.PageType == format.DataPageV2 {
				t.Errorf("%s: v2 data pages", ColumnNames[i])
			}
		}
	}
}
