// Package varianttest writes Iceberg v3 tables whose variant column was
// written by another engine (arrow-go's pqarrow, unshredded or shredded),
// and describes variant values canonically so tests compare what floe
// returns with what was written.
package varianttest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/apache/arrow-go/v18/parquet/variant"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/google/uuid"
)

// Schema is the table's: a required long id (field 1) and an optional
// variant v (field 2).
func Schema() *iceberg.Schema {
	return iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "id", Type: iceberg.LongType{}, Required: true},
		{ID: 2, Name: "v", Type: iceberg.VariantType{}},
	})
}

// Values are the test rows' variants (nil: a SQL null row): objects that
// fit a shredding schema wholly, partly or not at all, scalars of every
// variant type, arrays, nesting, a variant null.
func Values() ([]*variant.Value, error) {
	texts := []string{
		`{"a": 1, "b": "x"}`,
		`{"a": "not an int", "b": "y", "extra": true}`,
		`{"b": "only b"}`,
		`42`,
		`"a string that is longer than a short string can hold, past sixty-four bytes"`,
		`null`,
		``,
		`[1, 2, 3]`,
		`{"a": 5, "arr": [1, "two", 3.5], "nested": {"x": 1.5, "y": [true, false, null]}}`,
		`{}`,
		`[]`,
		`[{"a": 1}, {"b": 2}]`,
		`-9223372036854775808`,
		`3.25`,
		`true`,
		`{"a": null, "b": null}`,
	}
	var out []*variant.Value
	for _, s := range texts {
		if s == "" {
			out = append(out, nil)
			continue
		}
		v, err := variant.ParseJSON(s, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s, err)
		}
		out = append(out, &v)
	}
	typed := []func(b *variant.Builder) error{
		func(b *variant.Builder) error { return b.AppendDecimal4(2, decimal.Decimal32(-12345)) },
		func(b *variant.Builder) error { return b.AppendDecimal8(4, decimal.Decimal64(123456789012)) },
		func(b *variant.Builder) error { return b.AppendDate(arrow.Date32(19000)) },
		func(b *variant.Builder) error {
			return b.AppendTimestamp(arrow.Timestamp(1700000000123456), true, true)
		},
		func(b *variant.Builder) error {
			return b.AppendTimestamp(arrow.Timestamp(1700000000123456), true, false)
		},
		func(b *variant.Builder) error {
			return b.AppendTimestamp(arrow.Timestamp(1700000000123456789), false, true)
		},
		func(b *variant.Builder) error { return b.AppendTimeMicro(arrow.Time64(3723000001)) },
		func(b *variant.Builder) error { return b.AppendBinary([]byte{0, 1, 2, 255}) },
		func(b *variant.Builder) error {
			return b.AppendUUID(uuid.MustParse("f81d4fae-7dec-11d0-a765-00a0c91e6bf6"))
		},
		func(b *variant.Builder) error { return b.AppendFloat32(1.5) },
		func(b *variant.Builder) error {
			// an object whose shredded fields hold typed values
			start := b.Offset()
			fields := []variant.FieldEntry{b.NextField(start, "a")}
			if err := b.AppendInt(7); err != nil {
				return err
			}
			fields = append(fields, b.NextField(start, "d"))
			if err := b.AppendDecimal4(2, decimal.Decimal32(314)); err != nil {
				return err
			}
			fields = append(fields, b.NextField(start, "t"))
			if err := b.AppendTimestamp(arrow.Timestamp(1), true, true); err != nil {
				return err
			}
			fields = append(fields, b.NextField(start, "u"))
			if err := b.AppendUUID(uuid.MustParse("00112233-4455-6677-8899-aabbccddeeff")); err != nil {
				return err
			}
			return b.FinishObject(start, fields)
		},
	}
	for _, f := range typed {
		var b variant.Builder
		if err := f(&b); err != nil {
			return nil, err
		}
		v, err := b.Build()
		if err != nil {
			return nil, err
		}
		out = append(out, &v)
	}
	return out, nil
}

// Shreddings are the layouts the tests write: unshredded, and shredded as
// an object and a scalar. Not arrays: arrow-go v18.8's VariantBuilder
// shreds them wrongly (a missing list field becomes a list of one empty
// element; elements that do not fit the typed element land in the next
// row), so its output is not what it was given.
func Shreddings() map[string]*extensions.VariantType {
	return map[string]*extensions.VariantType{
		"unshredded": extensions.NewDefaultVariantType(),
		"object": extensions.NewShreddedVariantType(arrow.StructOf(
			arrow.Field{Name: "a", Type: arrow.PrimitiveTypes.Int64},
			arrow.Field{Name: "b", Type: arrow.BinaryTypes.String},
			arrow.Field{Name: "d", Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
			arrow.Field{Name: "t", Type: &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}},
			arrow.Field{Name: "u", Type: extensions.NewUUIDType()},
			arrow.Field{Name: "nested", Type: arrow.StructOf(arrow.Field{Name: "x", Type: arrow.PrimitiveTypes.Float64})},
		)),
		"scalar": extensions.NewShreddedVariantType(arrow.PrimitiveTypes.Int64),
	}
}

// Record builds the id/v batch of values in layout vt (ids 0..n-1), its
// fields carrying the table's field ids.
func Record(vt *extensions.VariantType, values []*variant.Value) (arrow.RecordBatch, error) {
	mem := memory.DefaultAllocator
	ids := array.NewInt64Builder(mem)
	defer ids.Release()
	vb := extensions.NewVariantBuilder(mem, vt)
	defer vb.Release()
	for i, v := range values {
		ids.Append(int64(i))
		if v == nil {
			vb.AppendNull()
		} else {
			vb.Append(*v)
		}
	}
	idArr, vArr := ids.NewArray(), vb.NewArray()
	defer idArr.Release()
	defer vArr.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})},
		{Name: "v", Type: vt, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2"})},
	}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{idArr, vArr}, int64(len(values))), nil
}

// WriteParquet writes rec with pqarrow, in row groups of rowGroup rows,
// decimals of up to 18 digits as INT32/INT64 (so shredded decimal4 and
// decimal8 keep their physical widths).
func WriteParquet(path string, rec arrow.RecordBatch, rowGroup int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w, err := pqarrow.NewFileWriter(rec.Schema(), f, parquet.NewWriterProperties(parquet.WithMaxRowGroupLength(rowGroup), parquet.WithStoreDecimalAsInteger(true)), pqarrow.DefaultWriterProps())
	if err != nil {
		f.Close()
		return err
	}
	if err := w.Write(rec); err != nil {
		w.Close()
		return err
	}
	return w.Close()
}

// Table creates a v3 table at dir holding one pqarrow-written file per
// layout named, each with values, and returns it opened.
func Table(ctx context.Context, dir string, values []*variant.Value, layouts ...string) (*table.Table, error) {
	recs := map[string]arrow.RecordBatch{}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	for _, name := range layouts {
		vt, ok := Shreddings()[name]
		if !ok {
			return nil, fmt.Errorf("no layout %q", name)
		}
		rec, err := Record(vt, values)
		if err != nil {
			return nil, err
		}
		recs[name] = rec
	}
	return TableOf(ctx, dir, recs)
}

// TableOf creates a v3 table at dir (Schema) holding one pqarrow-written
// file per batch, named for its key, and returns it opened.
func TableOf(ctx context.Context, dir string, recs map[string]arrow.RecordBatch) (*table.Table, error) {
	tbl, err := table.Create(ctx, nil, dir, Schema(), nil, nil, nil, 3)
	if err != nil {
		return nil, err
	}
	var files []manifest.DataFile
	for name, rec := range recs {
		path := filepath.Join(dir, "data", name+".parquet")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return nil, err
		}
		if err := WriteParquet(path, rec, 7); err != nil {
			return nil, err
		}
		st, err := os.Stat(path)
		if err != nil {
			return nil, err
		}
		files = append(files, manifest.DataFile{Content: manifest.ContentData, FilePath: path, FileFormat: "PARQUET",
			RecordCount: rec.NumRows(), FileSizeInBytes: st.Size()})
	}
	if _, err := tbl.Append(ctx, files, table.CommitOptions{}); err != nil {
		return nil, err
	}
	return table.Open(ctx, dir, table.Options{})
}

// ShreddedArrays is a batch whose variants are shredded as arrays of
// longs, laid out by hand as VariantShredding.md specifies (arrow-go's
// builder gets arrays wrong), and the JSON texts of its rows ("" for a
// SQL null): elements typed, elements left in value (a string, a variant
// null, nested arrays and objects), a row that is not an array, an empty
// array.
func ShreddedArrays() (arrow.RecordBatch, []string, error) {
	texts := []string{`[1,2,3]`, `[1,"two",null]`, `"not a list"`, ``, `[]`, `[[1],{"k":1}]`, `[7]`}
	mem := memory.DefaultAllocator
	elem := arrow.StructOf(
		arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
		arrow.Field{Name: "typed_value", Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	storage := arrow.StructOf(
		arrow.Field{Name: "metadata", Type: arrow.BinaryTypes.Binary},
		arrow.Field{Name: "value", Type: arrow.BinaryTypes.Binary, Nullable: true},
		arrow.Field{Name: "typed_value", Type: arrow.ListOfField(arrow.Field{Name: "element", Type: elem}), Nullable: true})
	vt, err := extensions.NewVariantType(storage)
	if err != nil {
		return nil, nil, err
	}
	sb := array.NewStructBuilder(mem, storage)
	defer sb.Release()
	meta := sb.FieldBuilder(0).(*array.BinaryBuilder)
	value := sb.FieldBuilder(1).(*array.BinaryBuilder)
	typed := sb.FieldBuilder(2).(*array.ListBuilder)
	eb := typed.ValueBuilder().(*array.StructBuilder)
	ev := eb.FieldBuilder(0).(*array.BinaryBuilder)
	et := eb.FieldBuilder(1).(*array.Int64Builder)
	enc := func(s string) variant.Value {
		v, err2 := variant.ParseJSON(s, false)
		if err2 != nil {
			err = err2
		}
		return v
	}
	typedElem := func(n int64) { eb.Append(true); ev.AppendNull(); et.Append(n) }
	valueElem := func(b []byte) { eb.Append(true); ev.Append(b); et.AppendNull() }
	empty := variant.EmptyMetadataBytes[:]
	// [1,2,3]
	sb.Append(true)
	meta.Append(empty)
	value.AppendNull()
	typed.Append(true)
	typedElem(1)
	typedElem(2)
	typedElem(3)
	// [1,"two",null]
	sb.Append(true)
	meta.Append(empty)
	value.AppendNull()
	typed.Append(true)
	typedElem(1)
	valueElem(enc(`"two"`).Bytes())
	valueElem(enc(`null`).Bytes())
	// "not a list"
	sb.Append(true)
	meta.Append(empty)
	value.Append(enc(`"not a list"`).Bytes())
	typed.AppendNull()
	// SQL null
	sb.AppendNull()
	// []
	sb.Append(true)
	meta.Append(empty)
	value.AppendNull()
	typed.Append(true)
	// [[1],{"k":1}]: the row's metadata holds the object's key
	obj := enc(`{"k":1}`)
	sb.Append(true)
	meta.Append(obj.Metadata().Bytes())
	value.AppendNull()
	typed.Append(true)
	valueElem(enc(`[1]`).Bytes())
	valueElem(obj.Bytes())
	// [7]
	sb.Append(true)
	meta.Append(empty)
	value.AppendNull()
	typed.Append(true)
	typedElem(7)
	if err != nil {
		return nil, nil, err
	}
	st := sb.NewArray()
	defer st.Release()
	col := array.NewExtensionArrayWithStorage(vt, st)
	defer col.Release()
	ids := array.NewInt64Builder(mem)
	defer ids.Release()
	for i := range texts {
		ids.Append(int64(i))
	}
	idArr := ids.NewArray()
	defer idArr.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "id", Type: arrow.PrimitiveTypes.Int64, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"1"})},
		{Name: "v", Type: vt, Nullable: true, Metadata: arrow.NewMetadata([]string{"PARQUET:field_id"}, []string{"2"})},
	}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{idArr, col}, int64(len(texts))), texts, nil
}

// Describe writes a variant value out with its types, so that two values
// compare equal exactly when they hold the same data. Integers of every
// width describe alike, as do short and long strings, and decimals of
// every width with the same unscaled value and scale: the variant spec
// counts each group as one logical type, and a shredding writer may pick
// another physical width.
func Describe(v variant.Value) string {
	var sb strings.Builder
	describe(&sb, v)
	return sb.String()
}

func describe(sb *strings.Builder, v variant.Value) {
	switch x := v.Value().(type) {
	case variant.ObjectValue:
		type kv struct {
			k string
			v variant.Value
		}
		var fields []kv
		for k, fv := range x.Values() {
			fields = append(fields, kv{k, fv})
		}
		sort.Slice(fields, func(i, j int) bool { return fields[i].k < fields[j].k })
		sb.WriteString("{")
		for i, f := range fields {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(sb, "%q: ", f.k)
			describe(sb, f.v)
		}
		sb.WriteString("}")
	case variant.ArrayValue:
		sb.WriteString("[")
		i := 0
		for ev := range x.Values() {
			if i > 0 {
				sb.WriteString(", ")
			}
			describe(sb, ev)
			i++
		}
		sb.WriteString("]")
	case nil:
		sb.WriteString("null")
	case int8:
		fmt.Fprintf(sb, "int(%d)", x)
	case int16:
		fmt.Fprintf(sb, "int(%d)", x)
	case int32:
		fmt.Fprintf(sb, "int(%d)", x)
	case int64:
		fmt.Fprintf(sb, "int(%d)", x)
	case string:
		fmt.Fprintf(sb, "string(%q)", x)
	case variant.DecimalValue[decimal.Decimal32]:
		describeDecimal(sb, x.Scale, 9, func() string { return x.Value.ToString(int32(x.Scale)) })
	case variant.DecimalValue[decimal.Decimal64]:
		describeDecimal(sb, x.Scale, 18, func() string { return x.Value.ToString(int32(x.Scale)) })
	case variant.DecimalValue[decimal.Decimal128]:
		describeDecimal(sb, x.Scale, 38, func() string { return x.Value.ToString(int32(x.Scale)) })
	default:
		fmt.Fprintf(sb, "type%d(%v)", v.Type(), x)
	}
}

// describeDecimal writes a decimal, or its invalid scale: a fuzzed value
// can claim any scale, and arrow-go's decimal128 formatting panics past 38
// (FuzzVariant found it).
func describeDecimal(sb *strings.Builder, scale uint8, max int, text func() string) {
	if int(scale) > max {
		fmt.Fprintf(sb, "decimal(invalid scale %d)", scale)
		return
	}
	fmt.Fprintf(sb, "decimal(%s)", text())
}
