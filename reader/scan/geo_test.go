package scan

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"io"
	"testing"

	"github.com/floedb/floe/internal/parquettest"

	"github.com/apache/arrow-go/v18/arrow/array"
	arrowpq "github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/schema"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/reader/parquet"
)

// A file whose GEOMETRY and GEOGRAPHY annotations (with CRS and edge
// algorithm, thrift LogicalType members 17 and 18) come from arrow-go's
// writer, not parquet-go's: floe reads the annotations and the WKB.
func TestReadGeoColumnsWrittenByArrowGo(t *testing.T) {
	point, _ := hex.DecodeString("01010000000000000000003e400000000000002440") // POINT (30 10)
	line, err := iceberg.WKTToWKB("LINESTRING Z (1 2 3, 4 5 6)")
	if err != nil {
		t.Fatal(err)
	}
	geom, err := schema.NewPrimitiveNodeLogical("g", arrowpq.Repetitions.Optional, schema.GeometryLogicalType{Crs: "EPSG:4326"}, arrowpq.Types.ByteArray, -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	geog, err := schema.NewPrimitiveNodeLogical("h", arrowpq.Repetitions.Optional,
		schema.GeographyLogicalType{Algorithm: schema.GeographyEdgeVincenty}, arrowpq.Types.ByteArray, -1, 2)
	if err != nil {
		t.Fatal(err)
	}
	root, err := schema.NewGroupNode("schema", arrowpq.Repetitions.Required, schema.FieldList{geom, geog}, -1)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := file.NewParquetWriter(&buf, root)
	rg := w.AppendRowGroup()
	values := [][]arrowpq.ByteArray{{point, line}, {line}}
	defs := [][]int16{{1, 0, 1}, {0, 1, 0}}
	for c := range 2 {
		cw, err := rg.NextColumn()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cw.(*file.ByteArrayColumnChunkWriter).WriteBatch(values[c], defs[c], nil); err != nil {
			t.Fatal(err)
		}
		cw.Close()
	}
	rg.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	f := parquettest.OpenBytes(t, buf.Bytes())
	g, h := f.NodeByFieldID(1), f.NodeByFieldID(2)
	if g == nil || h == nil || g.Logical.Kind != parquet.LogicalGeometry || h.Logical.Kind != parquet.LogicalGeography {
		t.Fatalf("annotations read as %+v and %+v", g, h)
	}
	br, err := f.NewBatchReader(parquet.ReadRequest{Columns: []parquet.Column{{Node: g}, {Node: h}}})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	batch, err := br.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Release()
	want := [][][]byte{{point, nil, line}, {nil, line, nil}}
	for c := range 2 {
		a := batch.Columns[c].(*array.Binary)
		for i, v := range want[c] {
			if (v == nil) != a.IsNull(i) || v != nil && !bytes.Equal(a.Value(i), v) {
				t.Errorf("column %d row %d: %x (null %v), want %x", c, i, a.Value(i), a.IsNull(i), v)
			}
		}
	}
	if _, err := br.Next(); err != io.EOF {
		t.Errorf("after the rows: %v", err)
	}
}

func TestGeoArrowFields(t *testing.T) {
	for _, c := range []struct {
		typ  iceberg.Type
		meta string
	}{
		{iceberg.GeometryType{}, `{"crs":"OGC:CRS84"}`},
		{iceberg.GeometryType{CRS: "projjson:my_crs"}, `{"crs":"projjson:my_crs"}`},
		{iceberg.GeographyType{CRS: "EPSG:4326", Algorithm: iceberg.EdgeAndoyer}, `{"crs":"EPSG:4326","edges":"andoyer"}`},
	} {
		f, err := arrowschema.ArrowField(iceberg.NestedField{ID: 7, Name: "g", Type: c.typ})
		if err != nil {
			t.Fatal(err)
		}
		if f.Type.String() != "binary" {
			t.Errorf("%v: Arrow type %s", c.typ, f.Type)
		}
		if id, _ := f.Metadata.GetValue(arrowschema.FieldIDKey); id != "7" {
			t.Errorf("%v: field id %q", c.typ, id)
		}
		name, _ := f.Metadata.GetValue(arrowschema.ExtensionNameKey)
		meta, _ := f.Metadata.GetValue(arrowschema.ExtensionMetadataKey)
		var got, want any
		_ = json.Unmarshal([]byte(meta), &got)
		_ = json.Unmarshal([]byte(c.meta), &want)
		if name != arrowschema.GeoArrowWKB || !jsonEqual(got, want) {
			t.Errorf("%v: extension %q %s, want %s %s", c.typ, name, meta, arrowschema.GeoArrowWKB, c.meta)
		}
	}
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
