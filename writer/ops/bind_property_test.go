package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/arrowschema"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/jsonlines"
	"github.com/floedb/floe/internal/rowstest"
)

// The property every write input holds: columns bind by name at every
// depth, whatever order they come in and whatever field ids they carry.
// Each random input (JSON lines, or Arrow batches with no field ids, the
// table's own ids, or ids that say something else) has its columns
// shuffled, some left out, renamed, added or given a narrower or a wrong
// type, at the top level and inside a struct, a list of structs and a
// map's struct values. An append either reads back exactly what the input
// holds, matched by name (left-out columns null, narrower values widened),
// or is refused as an invalid argument with the table's metadata unchanged
// and no file left under its directory. Which of the two is decided here
// by comparing names and types, independently of the writer.

// bindTableSchema is the table every input is appended to.
func bindTableSchema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}},
		{ID: 2, Name: "n", Type: iceberg.LongType{}},
		{ID: 3, Name: "x", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "s", Type: iceberg.StringType{}},
		{ID: 5, Name: "info", Type: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 6, Name: "city", Type: iceberg.StringType{}},
			{ID: 7, Name: "zip", Type: iceberg.LongType{}},
		}}},
		{ID: 8, Name: "items", Type: &iceberg.ListType{ElementID: 9, Element: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 10, Name: "qty", Type: iceberg.LongType{}},
			{ID: 11, Name: "price", Type: iceberg.DoubleType{}},
		}}}},
		{ID: 12, Name: "attrs", Type: &iceberg.MapType{KeyID: 13, Key: iceberg.StringType{}, ValueID: 14, Value: &iceberg.StructType{Fields: []iceberg.NestedField{
			{ID: 15, Name: "v", Type: iceberg.LongType{}},
			{ID: 16, Name: "w", Type: iceberg.StringType{}},
		}}, ValueRequired: false}},
	})
}

// inputGen derives random input schemas from the table's.
type inputGen struct {
	r      *rand.Rand
	ids    string // "none", "table" (the id of the column each came from) or "wrong"
	arrow  bool   // narrower types only where Arrow has them
	nextID int
}

// mutateFields is an input struct made from the table's fields: shuffled,
// some left out, renamed, added, retyped (narrower, or wrong).
func (g *inputGen) mutateFields(fields []iceberg.NestedField, top bool) []iceberg.NestedField {
	var out []iceberg.NestedField
	for _, f := range fields {
		if top && f.Name == "id" {
			out = append(out, g.withID(f, f.ID)) // rows are told apart by id
			continue
		}
		switch p := g.r.IntN(100); {
		case p < 12: // left out
			continue
		case p < 17: // renamed (the field id, when kept, still says which)
			f.Name += "_x"
		}
		f.Type = g.mutateType(f.Type)
		out = append(out, g.withID(f, f.ID))
	}
	if g.r.IntN(100) < 6 {
		out = append(out, g.withID(iceberg.NestedField{Name: "extra", Type: iceberg.LongType{}}, 900))
	}
	g.r.Shuffle(len(out), func(i, j int) { out[i], out[j] = out[j], out[i] })
	return out
}

func (g *inputGen) mutateType(t iceberg.Type) iceberg.Type {
	switch t := t.(type) {
	case *iceberg.StructType:
		return &iceberg.StructType{Fields: g.mutateFields(t.Fields, false)}
	case *iceberg.ListType:
		l := *t
		l.ElementID = g.id(t.ElementID)
		l.Element = g.mutateType(t.Element)
		return &l
	case *iceberg.MapType:
		m := *t
		m.KeyID, m.ValueID = g.id(t.KeyID), g.id(t.ValueID)
		m.Value = g.mutateType(t.Value)
		return &m
	case iceberg.LongType:
		switch p := g.r.IntN(100); {
		case p < 4:
			return iceberg.StringType{} // cannot be written as a long
		case p < 30 && g.arrow:
			return iceberg.IntType{} // an int32 promoted to long
		}
	case iceberg.DoubleType:
		if g.arrow && g.r.IntN(100) < 30 {
			return iceberg.FloatType{} // a float32 promoted to double
		}
	}
	return t
}

func (g *inputGen) withID(f iceberg.NestedField, tableID int) iceberg.NestedField {
	f.ID = g.id(tableID)
	return f
}

// id is the field id an input field carries: its table column's, or any
// other (another table's ids mean nothing here).
func (g *inputGen) id(tableID int) int {
	if g.ids == "wrong" {
		return 1 + g.r.IntN(20)
	}
	g.nextID++
	if g.ids == "table" {
		return tableID
	}
	return 1000 + g.nextID
}

// genInputValue is a random value of an input type (canonical forms).
func genInputValue(r *rand.Rand, t iceberg.Type) any {
	if r.IntN(100) < 15 {
		return nil
	}
	switch t := t.(type) {
	case iceberg.LongType:
		return r.Int64N(1<<40) - 1<<39
	case iceberg.IntType:
		return int32(r.Uint32())
	case iceberg.DoubleType:
		return (r.Float64() - 0.5) * 1e6
	case iceberg.FloatType:
		return float32((r.Float64() - 0.5) * 1e3)
	case iceberg.StringType:
		return fmt.Sprintf("s%d", r.IntN(1000))
	case *iceberg.StructType:
		v := make([]any, len(t.Fields))
		for i, f := range t.Fields {
			v[i] = genInputValue(r, f.Type)
		}
		return v
	case *iceberg.ListType:
		v := []any{}
		for range r.IntN(4) {
			v = append(v, genInputValue(r, t.Element))
		}
		return v
	case *iceberg.MapType:
		m := iceberg.MapValue{}
		for k := range r.IntN(3) {
			m.Keys = append(m.Keys, fmt.Sprintf("k%d", k))
			m.Values = append(m.Values, genInputValue(r, t.Value))
		}
		return m
	}
	panic(fmt.Sprintf("genInputValue: %v", t))
}

// refusedSchema reports whether an Arrow input of schema in must be
// refused by a table of fields: a column (at any depth) the table lacks
// by name, or a type that is neither the table's nor narrower.
func refusedSchema(fields, in []iceberg.NestedField) bool {
	for _, f := range in {
		i := slices.IndexFunc(fields, func(tf iceberg.NestedField) bool { return tf.Name == f.Name })
		if i < 0 || refusedType(fields[i].Type, f.Type) {
			return true
		}
	}
	return false
}

func refusedType(table, in iceberg.Type) bool {
	switch t := table.(type) {
	case *iceberg.StructType:
		return refusedSchema(t.Fields, in.(*iceberg.StructType).Fields)
	case *iceberg.ListType:
		return refusedType(t.Element, in.(*iceberg.ListType).Element)
	case *iceberg.MapType:
		return refusedType(t.Value, in.(*iceberg.MapType).Value)
	case iceberg.LongType:
		return in != (iceberg.LongType{}) && in != (iceberg.IntType{})
	case iceberg.DoubleType:
		return in != (iceberg.DoubleType{}) && in != (iceberg.FloatType{})
	}
	return table != in
}

// refusedRow reports whether a JSON row must be refused: a key (written
// even when null) the table lacks, or a non-null value of a wrong type.
// Keys inside a null struct, list or map are never written.
func refusedRow(fields, in []iceberg.NestedField, row []any) bool {
	for k, f := range in {
		i := slices.IndexFunc(fields, func(tf iceberg.NestedField) bool { return tf.Name == f.Name })
		if i < 0 || refusedValue(fields[i].Type, f.Type, row[k]) {
			return true
		}
	}
	return false
}

func refusedValue(table, in iceberg.Type, v any) bool {
	if v == nil {
		return false
	}
	switch t := table.(type) {
	case *iceberg.StructType:
		return refusedRow(t.Fields, in.(*iceberg.StructType).Fields, v.([]any))
	case *iceberg.ListType:
		for _, e := range v.([]any) {
			if refusedValue(t.Element, in.(*iceberg.ListType).Element, e) {
				return true
			}
		}
		return false
	case *iceberg.MapType:
		for _, e := range v.(iceberg.MapValue).Values {
			if refusedValue(t.Value, in.(*iceberg.MapType).Value, e) {
				return true
			}
		}
		return false
	}
	return refusedType(table, in)
}

// expectedRow is what the table must hold for an input row: each table
// column's value taken from the input column of its name, widened; null
// where the input has none.
func expectedRow(fields, in []iceberg.NestedField, row []any) []any {
	out := make([]any, len(fields))
	for i, f := range fields {
		k := slices.IndexFunc(in, func(x iceberg.NestedField) bool { return x.Name == f.Name })
		if k >= 0 {
			out[i] = expectedValue(f.Type, in[k].Type, row[k])
		}
	}
	return out
}

func expectedValue(table, in iceberg.Type, v any) any {
	if v == nil {
		return nil
	}
	switch t := table.(type) {
	case *iceberg.StructType:
		return expectedRow(t.Fields, in.(*iceberg.StructType).Fields, v.([]any))
	case *iceberg.ListType:
		out := []any{}
		for _, e := range v.([]any) {
			out = append(out, expectedValue(t.Element, in.(*iceberg.ListType).Element, e))
		}
		return out
	case *iceberg.MapType:
		m := v.(iceberg.MapValue)
		out := iceberg.MapValue{Keys: m.Keys}
		for _, e := range m.Values {
			out.Values = append(out.Values, expectedValue(t.Value, in.(*iceberg.MapType).Value, e))
		}
		return out
	}
	switch x := v.(type) {
	case int32:
		return int64(x)
	case float32:
		return float64(x)
	}
	return v
}

// jsonRow writes an input row as a JSON object (maps as key/value
// entries, as Arrow's JSON form has them).
func jsonRow(buf *bytes.Buffer, fields []iceberg.NestedField, row []any) {
	buf.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(f.Name)
		buf.Write(key)
		buf.WriteByte(':')
		jsonValue(buf, f.Type, row[i])
	}
	buf.WriteByte('}')
}

func jsonValue(buf *bytes.Buffer, t iceberg.Type, v any) {
	if v == nil {
		buf.WriteString("null")
		return
	}
	switch t := t.(type) {
	case *iceberg.StructType:
		jsonRow(buf, t.Fields, v.([]any))
	case *iceberg.ListType:
		buf.WriteByte('[')
		for i, e := range v.([]any) {
			if i > 0 {
				buf.WriteByte(',')
			}
			jsonValue(buf, t.Element, e)
		}
		buf.WriteByte(']')
	case *iceberg.MapType:
		m := v.(iceberg.MapValue)
		buf.WriteByte('[')
		for i := range m.Keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteString(`{"key":`)
			jsonValue(buf, t.Key, m.Keys[i])
			buf.WriteString(`,"value":`)
			jsonValue(buf, t.Value, m.Values[i])
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
	default:
		switch x := v.(type) {
		case float64:
			buf.WriteString(strconv.FormatFloat(x, 'g', -1, 64))
		default:
			b, _ := json.Marshal(x)
			buf.Write(b)
		}
	}
}

// withoutIDs is rec with no field id metadata at any depth.
func withoutIDs(rec arrow.RecordBatch) arrow.RecordBatch {
	fields := make([]arrow.Field, rec.NumCols())
	cols := make([]arrow.Array, rec.NumCols())
	for i, f := range rec.Schema().Fields() {
		fields[i] = arrow.Field{Name: f.Name, Type: bareType(f.Type), Nullable: f.Nullable}
		d := retyped(rec.Column(i).Data(), fields[i].Type)
		cols[i] = array.MakeFromData(d)
		d.Release()
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), cols, rec.NumRows())
}

func bareType(dt arrow.DataType) arrow.DataType {
	bare := func(f arrow.Field) arrow.Field {
		return arrow.Field{Name: f.Name, Type: bareType(f.Type), Nullable: f.Nullable}
	}
	switch t := dt.(type) {
	case *arrow.StructType:
		fs := make([]arrow.Field, t.NumFields())
		for i, f := range t.Fields() {
			fs[i] = bare(f)
		}
		return arrow.StructOf(fs...)
	case *arrow.MapType:
		return arrow.MapOfFields(bare(t.KeyField()), bare(t.ItemField()))
	case *arrow.ListType:
		return arrow.ListOfField(bare(t.ElemField()))
	}
	return dt
}

func retyped(d arrow.ArrayData, dt arrow.DataType) arrow.ArrayData {
	var childTypes []arrow.DataType
	switch t := dt.(type) {
	case *arrow.StructType:
		for _, f := range t.Fields() {
			childTypes = append(childTypes, f.Type)
		}
	case *arrow.MapType:
		childTypes = []arrow.DataType{t.Elem()}
	case arrow.ListLikeType:
		childTypes = []arrow.DataType{t.Elem()}
	}
	children := make([]arrow.ArrayData, len(d.Children()))
	for i, c := range d.Children() {
		children[i] = retyped(c, childTypes[i])
	}
	out := array.NewData(dt, d.Len(), d.Buffers(), children, d.NullN(), d.Offset())
	for _, c := range children {
		c.Release()
	}
	return out
}

func TestWriteBindsByNameProperty(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(27, 1))
	forms := []string{"jsonl", "arrow/none", "arrow/table", "arrow/wrong"}
	counts := map[string][2]int{}
	for iter := range 160 {
		form := forms[iter%len(forms)]
		tableSchema := bindTableSchema()
		g := &inputGen{r: r, arrow: form != "jsonl"}
		if ids, ok := strings.CutPrefix(form, "arrow/"); ok {
			g.ids = ids
		}
		in := iceberg.NewSchema(0, g.mutateFields(tableSchema.Fields, true))
		rows := make([][]any, 1+r.IntN(6))
		for i := range rows {
			rows[i] = make([]any, len(in.Fields))
			for k, f := range in.Fields {
				rows[i][k] = genInputValue(r, f.Type)
			}
			rows[i][slices.IndexFunc(in.Fields, func(f iceberg.NestedField) bool { return f.Name == "id" })] = int64(i)
		}
		var data array.RecordReader
		refused := false
		if form == "jsonl" {
			var buf bytes.Buffer
			for _, row := range rows {
				jsonRow(&buf, in.Fields, row)
				buf.WriteByte('\n')
				refused = refused || refusedRow(tableSchema.Fields, in.Fields, row)
			}
			as, err := arrowschema.ArrowSchema(tableSchema.Fields)
			if err != nil {
				t.Fatal(err)
			}
			data = jsonlines.NewReader(&buf, as, 1+r.IntN(4), nil)
		} else {
			rec := rowstest.BuildRecord(t, in, rows)
			if g.ids == "none" {
				bare := withoutIDs(rec)
				rec.Release()
				rec = bare
			}
			var err error
			if data, err = array.NewRecordReader(rec.Schema(), []arrow.RecordBatch{rec}); err != nil {
				t.Fatal(err)
			}
			rec.Release()
			refused = refusedSchema(tableSchema.Fields, in.Fields)
		}
		what := fmt.Sprintf("iteration %d (%s), input %s", iter, form, in.AsStruct())

		loc := filepath.Join(t.TempDir(), "t")
		tbl, err := table.Create(ctx, nil, loc, tableSchema, nil, nil, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		before, metaBefore := filesUnderDir(t, loc), tbl.MetadataLocation
		_, err = Append(ctx, tbl, data, table.CommitOptions{})
		data.Release()
		c := counts[form]
		if refused {
			c[1]++
			if err == nil {
				t.Fatalf("%s: appended, want it refused", what)
			}
			if !errors.Is(err, errkind.InvalidArgument) {
				t.Errorf("%s: error %v is not an invalid argument", what, err)
			}
			again, oerr := table.Open(ctx, loc, table.Options{})
			if oerr != nil {
				t.Fatal(oerr)
			}
			if again.MetadataLocation != metaBefore {
				t.Errorf("%s: refused, yet the table moved to %s", what, again.MetadataLocation)
			}
			if after := filesUnderDir(t, loc); !slices.Equal(after, before) {
				t.Errorf("%s: refused, yet files changed: %v, was %v", what, after, before)
			}
		} else {
			c[0]++
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			want := make([][]any, len(rows))
			for i, row := range rows {
				want[i] = expectedRow(tableSchema.Fields, in.Fields, row)
			}
			rowstest.SortRows(tableSchema, want)
			rowstest.CompareRows(t, what, tableSchema, want, tableRows(t, loc, table.Options{}))
		}
		counts[form] = c
	}
	// Both outcomes must have been exercised by every form, or the
	// property says little.
	for _, form := range forms {
		if c := counts[form]; c[0] < 5 || c[1] < 5 {
			t.Errorf("%s: %d appended, %d refused: too few of one to mean anything", form, c[0], c[1])
		}
	}
}
