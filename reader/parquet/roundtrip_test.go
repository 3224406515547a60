package parquet

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/encoding"
)

// Files written by parquet-go with every physical type, encoding, codec,
// page version, nullability and nesting we read, checked value by value
// against pqarrow.

type colSpec struct {
	name string
	node parquet.Node
	gen  func(r *rand.Rand, i int) any
}

func optional(name string, node parquet.Node, gen func(r *rand.Rand, i int) any) colSpec {
	return colSpec{name, parquet.Optional(node), func(r *rand.Rand, i int) any {
		if r.IntN(7) == 0 {
			return nil
		}
		return gen(r, i)
	}}
}

func required(name string, node parquet.Node, gen func(r *rand.Rand, i int) any) colSpec {
	return colSpec{name, node, gen}
}

func enc(node parquet.Node, e encoding.Encoding) parquet.Node { return parquet.Encoded(node, e) }

var words = []string{"", "a", "bb", "AIR", "MAIL", "REG AIR", "TRUCK", "deliver carefully", "ünïcödé", "x"}

func genInt32(r *rand.Rand, _ int) any { return int32(r.Uint32()) }
func genSmall32(r *rand.Rand, _ int) any {
	return int32(r.IntN(20) - 5)
}
func genInt64(r *rand.Rand, _ int) any { return int64(r.Uint64()) }
func genSeq64(_ *rand.Rand, i int) any { return int64(i*3 - 1000) }
func genFloat(r *rand.Rand, _ int) any {
	return float32(r.NormFloat64() * 1000)
}
func genDouble(r *rand.Rand, _ int) any { return r.NormFloat64() * 1e6 }
func genWord(r *rand.Rand, _ int) any   { return words[r.IntN(len(words))] }
func genText(r *rand.Rand, i int) any {
	return fmt.Sprintf("row %d %s %x", i, words[r.IntN(len(words))], r.Uint64()>>r.IntN(64))
}
func genBytes(r *rand.Rand, _ int) any {
	b := make([]byte, r.IntN(20))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}
func genFixed16(r *rand.Rand, _ int) any {
	b := make([]byte, 16)
	for i := range b {
		b[i] = byte(r.IntN(4)) // low entropy so dictionaries stay small
	}
	return b
}
func genBool(r *rand.Rand, _ int) any { return r.IntN(3) == 0 }

// genDecimalBytes is a big-endian two's complement unscaled value.
func genDecimalBytes(width int) func(r *rand.Rand, _ int) any {
	return func(r *rand.Rand, _ int) any {
		v := r.Int64N(2e15) - 1e15
		b := make([]byte, width)
		for i := width - 1; i >= 0; i-- {
			b[i] = byte(v)
			v >>= 8
		}
		return b
	}
}

func primitiveSpecs() []colSpec {
	return []colSpec{
		optional("bool_plain", parquet.Leaf(parquet.BooleanType), genBool),
		required("bool_req", parquet.Leaf(parquet.BooleanType), genBool),
		optional("bool_rle", enc(parquet.Leaf(parquet.BooleanType), &parquet.RLE), genBool),
		optional("i32_plain", parquet.Int(32), genInt32),
		required("i32_req_plain", enc(parquet.Int(32), &parquet.Plain), genInt32),
		optional("i32_dict", enc(parquet.Int(32), &parquet.RLEDictionary), genSmall32),
		optional("i32_delta", enc(parquet.Int(32), &parquet.DeltaBinaryPacked), genInt32),
		required("i32_split", enc(parquet.Int(32), &parquet.ByteStreamSplit), genInt32),
		optional("i64_plain", parquet.Int(64), genInt64),
		required("i64_req_dict", enc(parquet.Int(64), &parquet.RLEDictionary), func(r *rand.Rand, i int) any { return int64(r.IntN(50)) }),
		optional("i64_delta", enc(parquet.Int(64), &parquet.DeltaBinaryPacked), genSeq64),
		optional("i64_split", enc(parquet.Int(64), &parquet.ByteStreamSplit), genInt64),
		optional("i8", parquet.Int(8), func(r *rand.Rand, _ int) any { return int32(int8(r.Uint32())) }),
		optional("i16", parquet.Int(16), func(r *rand.Rand, _ int) any { return int32(int16(r.Uint32())) }),
		optional("u8", parquet.Uint(8), func(r *rand.Rand, _ int) any { return int32(uint8(r.Uint32())) }),
		optional("u16", parquet.Uint(16), func(r *rand.Rand, _ int) any { return int32(uint16(r.Uint32())) }),
		optional("u32", parquet.Uint(32), func(r *rand.Rand, _ int) any { return int32(r.Uint32()) }),
		optional("u64", parquet.Uint(64), func(r *rand.Rand, _ int) any { return int64(r.Uint64()) }),
		optional("f32_plain", parquet.Leaf(parquet.FloatType), genFloat),
		required("f32_split", enc(parquet.Leaf(parquet.FloatType), &parquet.ByteStreamSplit), genFloat),
		optional("f32_dict", enc(parquet.Leaf(parquet.FloatType), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any { return float32(r.IntN(10)) / 4 }),
		optional("f64_plain", parquet.Leaf(parquet.DoubleType), genDouble),
		optional("f64_split", enc(parquet.Leaf(parquet.DoubleType), &parquet.ByteStreamSplit), genDouble),
		required("f64_dict", enc(parquet.Leaf(parquet.DoubleType), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any { return float64(r.IntN(10)) / 8 }),
		optional("str_plain", enc(parquet.String(), &parquet.Plain), genText),
		required("str_req_plain", enc(parquet.String(), &parquet.Plain), genText),
		optional("str_dict", enc(parquet.String(), &parquet.RLEDictionary), genWord),
		required("str_req_dict", enc(parquet.String(), &parquet.RLEDictionary), genWord),
		// dictionaries whose longest value is past 32 bytes (copied one
		// by one) and at most 32 (moved as 32-byte blocks: 30 to 32 bytes
		// included, the block's edge)
		optional("str_long_dict", enc(parquet.String(), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any {
			return strings.Repeat(words[r.IntN(len(words))], 1+r.IntN(5))
		}),
		optional("str_mid_dict", enc(parquet.String(), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any {
			return strings.Repeat("ab", 8)[:r.IntN(17)] + strings.Repeat("x", 16)[:r.IntN(17)]
		}),
		// up to 64 bytes (one or two 32-byte blocks), and up to 8 (one
		// word) from a dictionary shorter than a word: every value near
		// the dictionary's end reads its padding
		optional("str_upto64_dict", enc(parquet.String(), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any {
			return strings.Repeat("0123456789abcdef", 4)[:r.IntN(65)]
		}),
		optional("str_upto64_plain", enc(parquet.String(), &parquet.Plain), func(r *rand.Rand, _ int) any {
			return strings.Repeat("fedcba9876543210", 5)[:r.IntN(70)]
		}),
		required("str_flag_dict", enc(parquet.String(), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any {
			return []string{"A", "N", "R"}[r.IntN(3)]
		}),
		optional("str_delta", enc(parquet.String(), &parquet.DeltaByteArray), genText),
		optional("str_delta_len", enc(parquet.String(), &parquet.DeltaLengthByteArray), genText),
		optional("bin_plain", parquet.Leaf(parquet.ByteArrayType), genBytes),
		optional("fixed_plain", parquet.Leaf(parquet.FixedLenByteArrayType(16)), genFixed16),
		required("fixed_dict", enc(parquet.Leaf(parquet.FixedLenByteArrayType(16)), &parquet.RLEDictionary), genFixed16),
		optional("fixed_split", enc(parquet.Leaf(parquet.FixedLenByteArrayType(16)), &parquet.ByteStreamSplit), genFixed16),
		byIndex(optional("fixed_delta", enc(parquet.Leaf(parquet.FixedLenByteArrayType(16)), &parquet.DeltaByteArray), genFixed16)),
		byIndex(optional("fixed_delta_twin", parquet.Leaf(parquet.FixedLenByteArrayType(16)), genFixed16)),
		optional("uuid", parquet.UUID(), genFixed16),
		optional("dec_i32", parquet.Decimal(2, 9, parquet.Int32Type), func(r *rand.Rand, _ int) any { return int32(r.Int32N(2e9) - 1e9) }),
		optional("dec_i64", parquet.Decimal(2, 15, parquet.Int64Type), func(r *rand.Rand, _ int) any { return r.Int64N(2e15) - 1e15 }),
		optional("dec_i64_dict", enc(parquet.Decimal(2, 15, parquet.Int64Type), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any { return r.Int64N(30) - 10 }),
		optional("dec_flba", parquet.Decimal(3, 18, parquet.FixedLenByteArrayType(8)), genDecimalBytes(8)),
		optional("dec_flba_wide", parquet.Decimal(4, 38, parquet.FixedLenByteArrayType(16)), genDecimalBytes(16)),
		optional("dec_bytes", parquet.Decimal(2, 20, parquet.ByteArrayType), genDecimalBytes(9)),
		optional("date", parquet.Date(), func(r *rand.Rand, _ int) any { return int32(r.IntN(40000) - 10000) }),
		optional("time_ms", parquet.Time(parquet.Millisecond), func(r *rand.Rand, _ int) any { return int32(r.IntN(86400000)) }),
		optional("time_us", parquet.Time(parquet.Microsecond), func(r *rand.Rand, _ int) any { return r.Int64N(86400e6) }),
		optional("time_ns", parquet.Time(parquet.Nanosecond), func(r *rand.Rand, _ int) any { return r.Int64N(86400e9) }),
		optional("ts_ms_utc", parquet.Timestamp(parquet.Millisecond), func(r *rand.Rand, _ int) any { return r.Int64N(4e12) - 1e12 }),
		optional("ts_us_utc", parquet.Timestamp(parquet.Microsecond), func(r *rand.Rand, _ int) any { return r.Int64N(4e15) - 1e15 }),
		optional("ts_ns_utc", parquet.Timestamp(parquet.Nanosecond), func(r *rand.Rand, _ int) any { return r.Int64N(4e18) - 1e18 }),
		optional("ts_us_local", parquet.TimestampAdjusted(parquet.Microsecond, false), func(r *rand.Rand, _ int) any { return r.Int64N(4e15) - 1e15 }),
		optional("ts_ms_dict", enc(parquet.Timestamp(parquet.Millisecond), &parquet.RLEDictionary), func(r *rand.Rand, _ int) any { return int64(r.IntN(5)) * 3600000 }),
		optional("all_null", parquet.Int(64), func(*rand.Rand, int) any { return nil }),
		optional("all_null_twin", parquet.Compressed(parquet.Int(64), &parquet.Uncompressed), func(*rand.Rand, int) any { return nil }),
	}
}

// byIndex makes a column's values depend on the row index alone, so that a
// twin column holds the same values.
func byIndex(s colSpec) colSpec {
	gen := s.gen
	s.gen = func(_ *rand.Rand, i int) any { return gen(rand.New(rand.NewPCG(uint64(i), 99)), i) }
	return s
}

func listOf(n int, r *rand.Rand, gen func(r *rand.Rand, i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = gen(r, i)
	}
	return out
}

func maybeNull(r *rand.Rand, gen func(r *rand.Rand, i int) any) func(r *rand.Rand, i int) any {
	return func(r *rand.Rand, i int) any {
		if r.IntN(5) == 0 {
			return nil
		}
		return gen(r, i)
	}
}

func nestedSpecs() []colSpec {
	list32 := func(r *rand.Rand, i int) any { return listOf(r.IntN(5), r, maybeNull(r, genInt32)) }
	strList := func(r *rand.Rand, i int) any { return listOf(r.IntN(4), r, genWord) }
	return []colSpec{
		optional("list_i32", parquet.List(parquet.Optional(parquet.Int(32))), list32),
		required("list_req_str", parquet.List(parquet.String()), strList),
		optional("list_list_i64", parquet.List(parquet.Optional(parquet.List(parquet.Optional(parquet.Int(64))))), func(r *rand.Rand, i int) any {
			return listOf(r.IntN(4), r, maybeNull(r, func(r *rand.Rand, i int) any { return listOf(r.IntN(4), r, maybeNull(r, genInt64)) }))
		}),
		optional("map_str_i32", parquet.Map(parquet.String(), parquet.Optional(parquet.Int(32))), func(r *rand.Rand, i int) any {
			m := map[string]any{}
			for k := range r.IntN(4) {
				m[fmt.Sprintf("k%d", k)] = maybeNull(r, genInt32)(r, k)
			}
			return m
		}),
		optional("struct", parquet.Group{
			"x":    parquet.Optional(parquet.Leaf(parquet.DoubleType)),
			"name": parquet.String(),
			"tags": parquet.Optional(parquet.List(parquet.String())),
			"inner": parquet.Optional(parquet.Group{
				"d": parquet.Optional(parquet.Decimal(2, 15, parquet.Int64Type)),
			}),
		}, func(r *rand.Rand, i int) any {
			var inner any
			if r.IntN(3) > 0 {
				inner = map[string]any{"d": maybeNull(r, func(r *rand.Rand, _ int) any { return r.Int64N(1e6) })(r, i)}
			}
			var tags any
			if r.IntN(4) > 0 {
				tags = strList(r, i)
			}
			return map[string]any{"x": maybeNull(r, genDouble)(r, i), "name": genText(r, i), "tags": tags, "inner": inner}
		}),
		optional("list_struct", parquet.List(parquet.Optional(parquet.Group{
			"a": parquet.Optional(parquet.Int(32)),
			"b": parquet.String(),
		})), func(r *rand.Rand, i int) any {
			return listOf(r.IntN(4), r, maybeNull(r, func(r *rand.Rand, i int) any {
				return map[string]any{"a": maybeNull(r, genSmall32)(r, i), "b": genWord(r, i)}
			}))
		}),
		optional("map_str_struct", parquet.Map(parquet.String(), parquet.Optional(parquet.Group{
			"v": parquet.Optional(parquet.Leaf(parquet.FloatType)),
		})), func(r *rand.Rand, i int) any {
			m := map[string]any{}
			for k := range r.IntN(3) {
				m[words[k+1]] = maybeNull(r, func(r *rand.Rand, i int) any { return map[string]any{"v": genFloat(r, i)} })(r, k)
			}
			return m
		}),
	}
}

func writeSpecs(t testing.TB, specs []colSpec, rows int, seed uint64, opts ...parquet.WriterOption) []byte {
	t.Helper()
	group := parquet.Group{}
	for _, s := range specs {
		group[s.name] = s.node
	}
	schema := parquet.NewSchema("t", group)
	r := rand.New(rand.NewPCG(seed, 7))
	data := make([]map[string]any, rows)
	for i := range data {
		row := map[string]any{}
		for _, s := range specs {
			row[s.name] = s.gen(r, i)
		}
		data[i] = row
	}
	var buf bytes.Buffer
	w := parquet.NewGenericWriter[map[string]any](&buf, append([]parquet.WriterOption{schema}, opts...)...)
	if _, err := w.Write(data); err != nil {
		t.Fatalf("write: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	return buf.Bytes()
}

var testCodecs = []compress.Codec{&parquet.Uncompressed, &parquet.Snappy, &parquet.Gzip, &parquet.Zstd, &parquet.Lz4Raw, &parquet.Brotli}

func TestRoundTripMatchesPqarrow(t *testing.T) {
	specs := append(primitiveSpecs(), nestedSpecs()...)
	for _, version := range []int{1, 2} {
		for _, codec := range testCodecs {
			name := fmt.Sprintf("v%d/%s", version, codec)
			t.Run(name, func(t *testing.T) {
				data := writeSpecs(t, specs, 2500, uint64(version)*100+uint64(codec.CompressionCodec()),
					parquet.DataPageVersion(version), parquet.Compression(codec),
					parquet.PageBufferSize(2048), parquet.MaxRowsPerRowGroup(1100))
				f := openBytes(t, data)
				if len(f.RowGroups) < 2 {
					t.Fatalf("want several row groups, got %d", len(f.RowGroups))
				}
				crossCheck(t, name, data, 0)
				crossCheck(t, name+" batches of 333", data, 333)
				checkRowRanges(t, data)
			})
		}
	}
}

// checkRowRanges reads sub-ranges of each row group, which exercises page
// skipping, and compares them with the matching slice of pqarrow's arrays.
func checkRowRanges(t *testing.T, data []byte) {
	schema, ref := referenceColumns(t, "row ranges", data)
	defer releaseAll(ref)
	f := openBytes(t, data)
	cols := make([]Column, len(ref))
	for i, fld := range schema.Fields() {
		cols[i] = Column{Node: f.Root.Children[i], Type: floeTypeFor(fld.Type)}
	}
	r := rand.New(rand.NewPCG(1, 2))
	base := int64(0)
	for rg := range f.RowGroups {
		n := f.RowGroups[rg].NumRows
		for range 3 {
			start := r.Int64N(n)
			end := start + 1 + r.Int64N(n-start)
			br, err := f.NewBatchReader(ReadRequest{Columns: cols, RowGroup: rg, RowStart: start, RowEnd: end, BatchSize: 97})
			if err != nil {
				t.Fatal(err)
			}
			pos := base + start
			for {
				b, err := br.Next()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("row group %d rows [%d,%d): %v", rg, start, end, err)
				}
				for i, c := range b.Columns {
					want := array.NewSlice(ref[i], pos, pos+int64(b.NumRows))
					assertSameArrays(t, fmt.Sprintf("rg %d rows [%d,%d) column %s at %d", rg, start, end, schema.Field(i).Name, pos), want, c)
					want.Release()
				}
				pos += int64(b.NumRows)
				b.Release()
			}
			br.Close()
			if pos != base+end {
				t.Fatalf("row group %d rows [%d,%d): read up to %d", rg, start, end, pos-base)
			}
		}
		base += n
	}
}

// TestWideningConversions reads columns as wider or rescaled types than
// their storage and checks each value against pqarrow's natural reading.
func TestWideningConversions(t *testing.T) {
	specs := []colSpec{
		optional("i32", parquet.Int(32), genInt32),
		optional("u32", parquet.Uint(32), func(r *rand.Rand, _ int) any { return int32(r.Uint32()) }),
		optional("f32", parquet.Leaf(parquet.FloatType), genFloat),
		optional("dec", parquet.Decimal(2, 9, parquet.Int32Type), func(r *rand.Rand, _ int) any { return int32(r.Int32N(2e9) - 1e9) }),
		optional("ts_ms", parquet.Timestamp(parquet.Millisecond), func(r *rand.Rand, _ int) any { return r.Int64N(4e12) - 1e12 }),
		optional("ts_ns", parquet.Timestamp(parquet.Nanosecond), func(r *rand.Rand, _ int) any { return r.Int64N(4e18) - 1e18 }),
		optional("time_ms", parquet.Time(parquet.Millisecond), func(r *rand.Rand, _ int) any { return int32(r.IntN(86400000)) }),
		optional("time_ns", parquet.Time(parquet.Nanosecond), func(r *rand.Rand, _ int) any { return r.Int64N(86400e9) }),
		optional("date", parquet.Date(), func(r *rand.Rand, _ int) any { return int32(r.IntN(40000) - 10000) }),
		optional("s", enc(parquet.String(), &parquet.RLEDictionary), genWord),
		optional("u8", parquet.Uint(8), func(r *rand.Rand, _ int) any { return int32(uint8(r.Uint32())) }),
		optional("i16", parquet.Int(16), func(r *rand.Rand, _ int) any { return int32(int16(r.Uint32())) }),
		optional("u64", parquet.Uint(64), func(r *rand.Rand, _ int) any { return int64(r.Uint64()) }),
	}
	data := writeSpecs(t, specs, 3000, 5, parquet.PageBufferSize(4096))
	schema, ref := pqarrowColumns(t, data)
	defer releaseAll(ref)
	f := openBytes(t, data)
	byName := map[string]int{}
	for i, fld := range schema.Fields() {
		byName[fld.Name] = i
	}
	type conv struct {
		col  string
		typ  arrow.DataType
		want func(ref arrow.Array, i int) any
		got  func(a arrow.Array, i int) any
	}
	i64 := func(a arrow.Array, i int) any { return a.(*array.Int64).Value(i) }
	ts := func(a arrow.Array, i int) any { return int64(a.(*array.Timestamp).Value(i)) }
	t64 := func(a arrow.Array, i int) any { return int64(a.(*array.Time64).Value(i)) }
	floorDivAny := func(v, d int64) any { return FloorDiv(v, d) }
	convs := []conv{
		{"i32", arrow.PrimitiveTypes.Int64, func(r arrow.Array, i int) any { return int64(r.(*array.Int32).Value(i)) }, i64},
		{"u32", arrow.PrimitiveTypes.Int64, func(r arrow.Array, i int) any { return int64(r.(*array.Uint32).Value(i)) }, i64},
		{"f32", arrow.PrimitiveTypes.Float64, func(r arrow.Array, i int) any { return float64(r.(*array.Float32).Value(i)) },
			func(a arrow.Array, i int) any { return a.(*array.Float64).Value(i) }},
		{"dec", &arrow.Decimal128Type{Precision: 20, Scale: 4}, func(r arrow.Array, i int) any {
			v := r.(*array.Decimal128).Value(i)
			return v.Mul(decimal128.FromI64(100)).BigInt().String()
		}, func(a arrow.Array, i int) any { return a.(*array.Decimal128).Value(i).BigInt().String() }},
		{"ts_ms", arrow.FixedWidthTypes.Timestamp_us, func(r arrow.Array, i int) any { return int64(r.(*array.Timestamp).Value(i)) * 1000 }, ts},
		{"ts_ms", arrow.FixedWidthTypes.Timestamp_ns, func(r arrow.Array, i int) any { return int64(r.(*array.Timestamp).Value(i)) * 1e6 }, ts},
		{"ts_ns", arrow.FixedWidthTypes.Timestamp_us, func(r arrow.Array, i int) any { return floorDivAny(int64(r.(*array.Timestamp).Value(i)), 1000) }, ts},
		{"time_ms", arrow.FixedWidthTypes.Time64us, func(r arrow.Array, i int) any { return int64(r.(*array.Time32).Value(i)) * 1000 }, t64},
		{"time_ns", arrow.FixedWidthTypes.Time64us, func(r arrow.Array, i int) any { return floorDivAny(int64(r.(*array.Time64).Value(i)), 1000) }, t64},
		{"date", arrow.FixedWidthTypes.Timestamp_us, func(r arrow.Array, i int) any { return int64(r.(*array.Date32).Value(i)) * 86400e6 }, ts},
		{"u8", arrow.PrimitiveTypes.Int16, func(r arrow.Array, i int) any { return int64(r.(*array.Uint8).Value(i)) },
			func(a arrow.Array, i int) any { return int64(a.(*array.Int16).Value(i)) }},
		{"u8", arrow.PrimitiveTypes.Int32, func(r arrow.Array, i int) any { return int64(r.(*array.Uint8).Value(i)) },
			func(a arrow.Array, i int) any { return int64(a.(*array.Int32).Value(i)) }},
		{"i16", arrow.PrimitiveTypes.Int32, func(r arrow.Array, i int) any { return int64(r.(*array.Int16).Value(i)) },
			func(a arrow.Array, i int) any { return int64(a.(*array.Int32).Value(i)) }},
		{"i16", arrow.PrimitiveTypes.Int64, func(r arrow.Array, i int) any { return int64(r.(*array.Int16).Value(i)) }, i64},
		{"u64", arrow.PrimitiveTypes.Int64, func(r arrow.Array, i int) any { return int64(r.(*array.Uint64).Value(i)) }, i64},
		{"s", arrow.BinaryTypes.LargeString, func(r arrow.Array, i int) any { return r.(*array.String).Value(i) },
			func(a arrow.Array, i int) any { return a.(*array.LargeString).Value(i) }},
		{"s", arrow.BinaryTypes.Binary, func(r arrow.Array, i int) any { return r.(*array.String).Value(i) },
			func(a arrow.Array, i int) any { return string(a.(*array.Binary).Value(i)) }},
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	for _, c := range convs {
		idx := byName[c.col]
		b, err := f.ReadAll(ReadRequest{Columns: []Column{{Node: f.Lookup(c.col), Type: c.typ}}, Allocator: mem})
		if err != nil {
			t.Fatalf("%s as %s: %v", c.col, c.typ, err)
		}
		got, want := b.Columns[0], ref[idx]
		if got.Len() != want.Len() {
			t.Fatalf("%s as %s: %d rows, want %d", c.col, c.typ, got.Len(), want.Len())
		}
		for i := range want.Len() {
			if want.IsNull(i) != got.IsNull(i) {
				t.Fatalf("%s as %s row %d: null mismatch", c.col, c.typ, i)
			}
			if want.IsNull(i) {
				continue
			}
			if w, g := c.want(want, i), c.got(got, i); w != g {
				t.Fatalf("%s as %s row %d: got %v, want %v", c.col, c.typ, i, g, w)
			}
		}
		b.Release()
	}
}

func TestRefusedConversions(t *testing.T) {
	specs := []colSpec{
		optional("s", parquet.String(), genWord),
		optional("dec", parquet.Decimal(4, 9, parquet.Int32Type), genSmall32),
		optional("f64", parquet.Leaf(parquet.DoubleType), genDouble),
	}
	data := writeSpecs(t, specs, 10, 1)
	f := openBytes(t, data)
	for _, c := range []Column{
		{Node: f.Lookup("s"), Type: arrow.PrimitiveTypes.Int64},
		{Node: f.Lookup("dec"), Type: &arrow.Decimal128Type{Precision: 9, Scale: 2}},
		{Node: f.Lookup("f64"), Type: arrow.PrimitiveTypes.Float32},
		{Node: f.Lookup("f64"), Type: arrow.FixedWidthTypes.Boolean},
	} {
		if _, err := f.NewBatchReader(ReadRequest{Columns: []Column{c}}); err == nil {
			t.Errorf("reading %s as %s should fail", c.Node.Name, c.Type)
		}
	}
}
