package maintain

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/puffin/theta"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
	"github.com/floedb/floe/internal/rowstest"
	"github.com/floedb/floe/reader/scan"
	"github.com/floedb/floe/writer/ops"
)

// The typed loops hash exactly what Iceberg's single-value binary
// encoder (package iceberg, the form of manifest bounds) gives for each
// value, as Java's sketch is fed Conversions.toByteBuffer: the sketch of
// every column, built both ways, serialises to the same bytes.
func TestColumnHashesAreTheBinaryForm(t *testing.T) {
	ctx := context.Background()
	fx, err := fixtures.Get("duckdb_lineitem_iceberg")
	if err != nil {
		t.Skip(err)
	}
	lineitem, err := table.Open(ctx, fx.Metadata, table.Options{LocationMap: fx.LocationMap})
	if err != nil {
		t.Fatal(err)
	}
	floe, err := table.Create(ctx, nil, filepath.Join(t.TempDir(), "tbl"), statsSchema(), nil, nil, nil, 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Append(ctx, floe, rowstest.Reader(t, statsSchema(), statsRows(0, 9000)), table.CommitOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tbl := range []*table.Table{lineitem, floe} {
		schema := tbl.Metadata.CurrentSchema()
		sc, err := scan.New(ctx, tbl, scan.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rr, err := sc.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		typed := make([]*theta.Sketch, len(schema.Fields))
		boxed := make([]*theta.Sketch, len(schema.Fields))
		for i := range typed {
			typed[i], boxed[i] = theta.New(), theta.New()
		}
		checked := 0
		for rr.Next() {
			rec := rr.Record()
			for i, f := range schema.Fields {
				arr := rec.Column(i)
				leaf, typ := arr, f.Type
				var valid []bool
				if st, ok := f.Type.(*iceberg.StructType); ok { // one level: info.code
					var err error
					if leaf, valid, err = columnArray(rec, []string{f.Name, st.Fields[0].Name}); err != nil {
						t.Fatal(err)
					}
					typ = st.Fields[0].Type
				}
				if err := hashColumn(typed[i], leaf, valid); err != nil {
					t.Fatalf("%s: %v", f.Name, err)
				}
				for r := 0; r < leaf.Len(); r++ {
					if valid != nil && !valid[r] {
						continue
					}
					v := rowstest.Canonical(leaf, r, typ)
					if v == nil {
						continue
					}
					b, err := iceberg.ValueToBytes(typ, v)
					if err != nil {
						t.Fatalf("%s: %v", f.Name, err)
					}
					boxed[i].Update(b)
					checked++
				}
			}
		}
		if err := rr.Err(); err != nil {
			t.Fatal(err)
		}
		rr.Release()
		if checked < 9000 {
			t.Fatalf("only %d values compared", checked)
		}
		for i, f := range schema.Fields {
			a, _ := typed[i].Compact().MarshalBinary()
			b, _ := boxed[i].Compact().MarshalBinary()
			if !bytes.Equal(a, b) {
				t.Errorf("column %s (%s): the typed loop's sketch (estimate %v) differs from the binary form's (%v)", f.Name, f.Type, typed[i].Estimate(), boxed[i].Estimate())
			}
		}
	}
}

func TestMinimalTwosComplement(t *testing.T) {
	for _, c := range []struct{ in, want []byte }{
		{[]byte{0, 0, 0, 0}, []byte{0}},
		{[]byte{0, 0, 0, 0x7f}, []byte{0x7f}},
		{[]byte{0, 0, 0, 0x80}, []byte{0, 0x80}},
		{[]byte{0xff, 0xff, 0xff, 0xff}, []byte{0xff}},
		{[]byte{0xff, 0xff, 0xff, 0x7f}, []byte{0xff, 0x7f}},
		{[]byte{0xff, 0xff, 0x80, 0x00}, []byte{0x80, 0x00}},
	} {
		if got := minimalTwosComplement(c.in); !bytes.Equal(got, c.want) {
			t.Errorf("% x: % x, want % x", c.in, got, c.want)
		}
	}
}
