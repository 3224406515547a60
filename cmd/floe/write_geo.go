package main

import (
	"encoding/hex"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg"
)

// In jsonl, a geometry or geography value is a string: WKT, the form
// `floe scan` prints and the spec's JSON single-value form, or hex WKB,
// what other tools often export. WKT always starts with a letter, hex WKB
// with the digit of its byte order ("00" or "01"), so the first character
// tells them apart.

// geoColumns are the indexes of the schema's top-level geo columns. A geo
// value nested in a struct, list or map cannot be read from jsonl yet.
func geoColumns(schema *iceberg.Schema) ([]int, error) {
	var out []int
	for i, f := range schema.Fields {
		if iceberg.IsGeo(f.Type) {
			out = append(out, i)
			continue
		}
		if nested := findGeo(f.Type); nested != nil {
			return nil, fmt.Errorf("column %s holds a %s inside a %s: jsonl input supports geospatial columns only at the top level", f.Name, nested, f.Type)
		}
	}
	return out, nil
}

func findGeo(t iceberg.Type) iceberg.Type {
	var children []iceberg.Type
	switch t := t.(type) {
	case iceberg.GeometryType, iceberg.GeographyType:
		return t
	case *iceberg.StructType:
		for _, f := range t.Fields {
			children = append(children, f.Type)
		}
	case *iceberg.ListType:
		children = []iceberg.Type{t.Element}
	case *iceberg.MapType:
		children = []iceberg.Type{t.Key, t.Value}
	}
	for _, c := range children {
		if g := findGeo(c); g != nil {
			return g
		}
	}
	return nil
}

// geoValueWKB is the WKB of one jsonl geo value.
func geoValueWKB(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if s != "" && s[0] >= '0' && s[0] <= '9' {
		b, err := hex.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("geospatial value %q is neither WKT nor hex WKB", s)
		}
		if _, err := iceberg.ParseWKB(b); err != nil {
			return nil, err
		}
		return b, nil
	}
	return iceberg.WKTToWKB(s)
}

// geoInputReader turns the string columns the JSON reader gives for geo
// columns into WKB binary ones.
type geoInputReader struct {
	array.RecordReader
	cols   []int
	schema *arrow.Schema // the batches' schema once converted
	cur    arrow.RecordBatch
	err    error
	refs   atomic.Int64
}

// withGeoStrings is the schema the JSON reader decodes: geo columns as
// strings.
func withGeoStrings(as *arrow.Schema, cols []int) *arrow.Schema {
	fields := append([]arrow.Field(nil), as.Fields()...)
	for _, i := range cols {
		fields[i].Type = arrow.BinaryTypes.String
	}
	return arrow.NewSchema(fields, nil)
}

func newGeoInputReader(rdr array.RecordReader, want *arrow.Schema, cols []int) *geoInputReader {
	g := &geoInputReader{RecordReader: rdr, cols: cols, schema: want}
	g.refs.Store(1)
	return g
}

func (g *geoInputReader) Schema() *arrow.Schema { return g.schema }

func (g *geoInputReader) Retain() { g.refs.Add(1) }

func (g *geoInputReader) Release() {
	if g.refs.Add(-1) == 0 {
		if g.cur != nil {
			g.cur.Release()
			g.cur = nil
		}
		g.RecordReader.Release()
	}
}

func (g *geoInputReader) Next() bool {
	if g.cur != nil {
		g.cur.Release()
		g.cur = nil
	}
	if g.err != nil || !g.RecordReader.Next() {
		return false
	}
	rec := g.RecordReader.RecordBatch()
	cols := make([]arrow.Array, rec.NumCols())
	for i := range cols {
		cols[i] = rec.Column(i)
		cols[i].Retain()
	}
	defer func() {
		for _, c := range cols {
			c.Release()
		}
	}()
	for _, i := range g.cols {
		wkb, err := geoColumnWKB(rec.Column(i).(*array.String))
		if err != nil {
			g.err = fmt.Errorf("column %s: %w", g.schema.Field(i).Name, err)
			return false
		}
		cols[i].Release()
		cols[i] = wkb
	}
	g.cur = array.NewRecordBatch(g.schema, cols, rec.NumRows())
	return true
}

func geoColumnWKB(s *array.String) (arrow.Array, error) {
	b := array.NewBinaryBuilder(memory.DefaultAllocator, arrow.BinaryTypes.Binary)
	defer b.Release()
	for i := 0; i < s.Len(); i++ {
		if s.IsNull(i) {
			b.AppendNull()
			continue
		}
		wkb, err := geoValueWKB(s.Value(i))
		if err != nil {
			return nil, err
		}
		b.Append(wkb)
	}
	return b.NewArray(), nil
}

func (g *geoInputReader) RecordBatch() arrow.RecordBatch { return g.cur }

// Record is RecordBatch under its deprecated name.
func (g *geoInputReader) Record() arrow.RecordBatch { return g.cur }

func (g *geoInputReader) Err() error {
	if g.err != nil {
		return g.err
	}
	return g.RecordReader.Err()
}
