package iceberg

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

var binaryTestTypes = []Type{
	BooleanType{}, IntType{}, LongType{}, FloatType{}, DoubleType{}, DateType{}, TimeType{},
	TimestampType{}, TimestamptzType{}, TimestampNsType{}, TimestamptzNsType{}, StringType{},
	UUIDType{}, FixedType{Length: 4}, BinaryType{}, DecimalType{Precision: 9, Scale: 2},
	DecimalType{Precision: 38, Scale: 10},
}

func TestBinaryEncodingsOfSpecAppendixD(t *testing.T) {
	u, _ := ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	cases := []struct {
		typ  Type
		v    any
		want []byte
	}{
		{BooleanType{}, false, []byte{0}},
		{BooleanType{}, true, []byte{1}},
		{IntType{}, int32(34), []byte{34, 0, 0, 0}},
		{IntType{}, int32(-2), []byte{0xfe, 0xff, 0xff, 0xff}},
		{LongType{}, int64(34), []byte{34, 0, 0, 0, 0, 0, 0, 0}},
		{FloatType{}, float32(1), []byte{0, 0, 0x80, 0x3f}},
		{DoubleType{}, 1.0, []byte{0, 0, 0, 0, 0, 0, 0xf0, 0x3f}},
		{DateType{}, mustDate(t, "1970-01-02"), []byte{1, 0, 0, 0}},
		{TimeType{}, int64(1), []byte{1, 0, 0, 0, 0, 0, 0, 0}},
		{TimestampNsType{}, int64(-1), []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		{StringType{}, "iceberg", []byte("iceberg")},
		{StringType{}, "", []byte{}},
		// Appendix B note 4 gives the uuid's bytes.
		{UUIDType{}, u, []byte{0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7, 0x85, 0xE7}},
		{BinaryType{}, []byte{0, 1, 2, 3}, []byte{0, 1, 2, 3}},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "14.20", 2), []byte{0x05, 0x8c}},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "-0.01", 2), []byte{0xff}},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "1.28", 2), []byte{0x00, 0x80}},
		// A decimal with fewer fraction digits is written at the type's scale.
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "14.2", 1), []byte{0x05, 0x8c}},
	}
	for _, c := range cases {
		got, err := ValueToBytes(c.typ, c.v)
		if err != nil {
			t.Errorf("%v %v: %v", c.typ, c.v, err)
			continue
		}
		if !bytes.Equal(got, c.want) {
			t.Errorf("%v %v: % x, want % x", c.typ, c.v, got, c.want)
		}
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	u, _ := ParseUUID("8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4")
	values := map[string][]any{
		"boolean":         {true, false},
		"int":             {int32(0), int32(math.MinInt32), int32(math.MaxInt32)},
		"long":            {int64(0), int64(math.MinInt64), int64(math.MaxInt64)},
		"float":           {float32(0), float32(math.Copysign(0, -1)), float32(math.Inf(-1)), float32(math.NaN()), float32(math.SmallestNonzeroFloat32)},
		"double":          {0.0, math.Copysign(0, -1), math.Inf(1), math.NaN(), math.MaxFloat64},
		"date":            {int32(-719162), int32(2932896)},
		"time":            {int64(0), int64(86_399_999_999)},
		"timestamp":       {int64(math.MinInt64), int64(-1)},
		"timestamptz":     {int64(1)},
		"timestamp_ns":    {int64(math.MaxInt64)},
		"timestamptz_ns":  {int64(-123)},
		"string":          {"", "iceberg", "日本語😀"},
		"uuid":            {u, [16]byte{}},
		"fixed[4]":        {[]byte{1, 2, 3, 4}, []byte{0xff, 0, 0, 0}},
		"binary":          {[]byte{}, []byte{0, 0xff}},
		"decimal(9, 2)":   {mustDecimal(t, "0", 2), mustDecimal(t, "-9999999.99", 2), mustDecimal(t, "1.28", 2)},
		"decimal(38, 10)": {mustDecimal(t, "9999999999999999999999999999.9999999999", 10), mustDecimal(t, "-9999999999999999999999999999.9999999999", 10)},
	}
	for _, typ := range binaryTestTypes {
		vs := values[typ.String()]
		if len(vs) == 0 {
			t.Fatalf("no test values for %v", typ)
		}
		for _, v := range vs {
			b, err := ValueToBytes(typ, v)
			if err != nil {
				t.Fatalf("%v %v: %v", typ, v, err)
			}
			back, err := ValueFromBytes(typ, b)
			if err != nil {
				t.Fatalf("%v % x: %v", typ, b, err)
			}
			if err := CheckValue(typ, back); err != nil {
				t.Errorf("%v: decoded %v: %v", typ, back, err)
			}
			if Compare(typ, back, v) != 0 || (isFloat(typ) && !sameFloatBits(back, v)) {
				t.Errorf("%v: %v → % x → %v", typ, v, b, back)
			}
		}
	}
}

func isFloat(t Type) bool { return t == (FloatType{}) || t == (DoubleType{}) }

func sameFloatBits(a, b any) bool {
	switch x := a.(type) {
	case float32:
		return math.Float32bits(x) == math.Float32bits(b.(float32))
	case float64:
		return math.Float64bits(x) == math.Float64bits(b.(float64))
	}
	return false
}

// Bounds are not rewritten when a column is promoted: the old width says
// what was written.
func TestValueFromBytesReadsPromotedBounds(t *testing.T) {
	cases := []struct {
		typ  Type
		b    []byte
		want any
	}{
		{LongType{}, []byte{0xfe, 0xff, 0xff, 0xff}, int64(-2)},
		{LongType{}, []byte{34, 0, 0, 0}, int64(34)},
		{DoubleType{}, []byte{0, 0, 0xc0, 0x3f}, 1.5},
		{TimestampType{}, []byte{1, 0, 0, 0}, int64(86_400_000_000)},
		{TimestamptzType{}, []byte{0xff, 0xff, 0xff, 0xff}, int64(-86_400_000_000)},
		{TimestampNsType{}, []byte{1, 0, 0, 0}, int64(86_400_000_000_000)},
		{DecimalType{Precision: 20, Scale: 2}, []byte{0x05, 0x8c}, mustDecimal(t, "14.20", 2)},
		// A longer two's complement form than needed still reads.
		{DecimalType{Precision: 38, Scale: 0}, append(bytes.Repeat([]byte{0xff}, 17), 0xfe), mustDecimal(t, "-2", 0)},
		{BooleanType{}, []byte{7}, true},
		{FixedType{Length: 16}, []byte{1, 2}, []byte{1, 2}}, // a truncated bound
	}
	for _, c := range cases {
		got, err := ValueFromBytes(c.typ, c.b)
		if err != nil {
			t.Errorf("%v % x: %v", c.typ, c.b, err)
			continue
		}
		if Compare(c.typ, got, c.want) != 0 {
			t.Errorf("%v % x: %v, want %v", c.typ, c.b, got, c.want)
		}
	}
	// A date bound of a column promoted to timestamp_ns beyond its range.
	if _, err := ValueFromBytes(TimestampNsType{}, []byte{0, 0, 0, 0x7f}); err == nil {
		t.Error("a date far outside the nanosecond range must not read as timestamp_ns")
	}
}

func TestBinaryErrors(t *testing.T) {
	bad := []struct {
		typ Type
		b   []byte
	}{
		{BooleanType{}, nil},
		{BooleanType{}, []byte{0, 0}},
		{IntType{}, []byte{1, 2, 3}},
		{IntType{}, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{LongType{}, []byte{1, 2}},
		{TimeType{}, []byte{1, 2, 3, 4}},
		{DateType{}, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{FloatType{}, []byte{1, 2, 3, 4, 5, 6, 7, 8}},
		{DoubleType{}, []byte{1}},
		{UUIDType{}, make([]byte, 15)},
		{FixedType{Length: 2}, []byte{1, 2, 3}},
		{DecimalType{Precision: 9, Scale: 2}, nil},
		{DecimalType{Precision: 38, Scale: 2}, append([]byte{0x01}, make([]byte, 16)...)},
		{DecimalType{Precision: 38, Scale: 2}, append([]byte{0x00}, bytes.Repeat([]byte{0xff}, 16)...)},
		{UnknownType{}, []byte{}},
		{&StructType{}, []byte{}},
	}
	for _, c := range bad {
		if v, err := ValueFromBytes(c.typ, c.b); err == nil {
			t.Errorf("%v % x: decoded %v, want an error", c.typ, c.b, v)
		}
	}
	badValues := []struct {
		typ Type
		v   any
	}{
		{IntType{}, nil},
		{IntType{}, int64(1)},
		{StringType{}, []byte("x")},
		{FixedType{Length: 2}, []byte{1, 2, 3}},
		{DecimalType{Precision: 9, Scale: 1}, mustDecimal(t, "1.25", 2)},
		{&ListType{ElementID: 1, Element: IntType{}}, []any{}},
	}
	for _, c := range badValues {
		if b, err := ValueToBytes(c.typ, c.v); err == nil {
			t.Errorf("%v %v: encoded % x, want an error", c.typ, c.v, b)
		}
	}
}

func TestValueFromBytesDoesNotAlias(t *testing.T) {
	b := []byte{1, 2, 3}
	v, _ := ValueFromBytes(BinaryType{}, b)
	b[0] = 9
	if v.([]byte)[0] != 1 {
		t.Error("decoded binary shares the input's memory")
	}
}

func TestAppendValueBytesAppends(t *testing.T) {
	buf := []byte("prefix")
	buf, err := AppendValueBytes(buf, IntType{}, int32(1))
	if err != nil || string(buf) != "prefix\x01\x00\x00\x00" {
		t.Errorf("got %q, %v", buf, err)
	}
}

// Every bound every engine wrote into the fixture manifests decodes, orders
// lower ≤ upper, and encodes back to the same bytes.
func TestFixtureBoundsDecode(t *testing.T) {
	decoded := 0
	for _, f := range loadFixtureFiles(t) {
		for id, lo := range f.lower {
			typ, ok := f.types[id]
			hi, hasHi := f.upper[id]
			if !ok || !hasHi || strings.Contains(f.path, "iceberg_migrated_complex_test") {
				// The migrated table's bounds use its name mapping's ids,
				// which differ from its schema's (INDEX.md quirk 4).
				continue
			}
			l, err := ValueFromBytes(typ, lo)
			if err != nil {
				t.Fatalf("%s: lower bound of %d (%v): %v", f.path, id, typ, err)
			}
			u, err := ValueFromBytes(typ, hi)
			if err != nil {
				t.Fatalf("%s: upper bound of %d (%v): %v", f.path, id, typ, err)
			}
			if Compare(typ, l, u) > 0 {
				t.Errorf("%s: column %d (%v): lower %v > upper %v", f.path, id, typ, l, u)
			}
			for _, p := range []struct {
				raw []byte
				v   any
			}{{lo, l}, {hi, u}} {
				again, err := ValueToBytes(typ, p.v)
				if err != nil || !bytes.Equal(again, p.raw) {
					t.Errorf("%s: column %d (%v): % x → %v → % x, %v", f.path, id, typ, p.raw, p.v, again, err)
				}
			}
			decoded++
		}
	}
	t.Logf("decoded %d bound pairs", decoded)
	if decoded < 300 {
		t.Errorf("decoded only %d bound pairs", decoded)
	}
}

// Decoded bounds against the values INDEX.md lists for the fixture rows.
func TestFixtureBoundsHoldTheRowValues(t *testing.T) {
	files := loadFixtureFiles(t)
	find := func(pathPart string) []fixtureFile {
		var out []fixtureFile
		for _, f := range files {
			if strings.Contains(f.path, pathPart) {
				out = append(out, f)
			}
		}
		if len(out) == 0 {
			t.Fatalf("no fixture file matches %q", pathPart)
		}
		return out
	}
	bound := func(f fixtureFile, id int, upper bool) any {
		raw := f.lower[id]
		if upper {
			raw = f.upper[id]
		}
		v, err := ValueFromBytes(f.types[id], raw)
		if err != nil {
			t.Fatalf("%s: %v", f.path, err)
		}
		return v
	}

	// impala_iceberg_v3_all_types, row 2 (its only row in that file).
	for _, f := range find("iceberg_v3_all_types/data/00000-7-") {
		want := map[int]any{
			1: int32(2), 2: true, 3: int32(42), 4: int64(9999999999), 5: float32(3.14), 6: 2.71828,
			7: mustDecimal(t, "999.99", 2), 8: "explicit", 9: mustDate(t, "2024-12-25"),
			10: mustTimestamp(t, "2024-12-25 10:30:45.123456", false),
		}
		for id, w := range want {
			for _, upper := range []bool{false, true} {
				if got := bound(f, id, upper); Compare(f.types[id], got, w) != 0 {
					t.Errorf("all_types column %d: bound %v, row value %v", id, got, w)
				}
			}
		}
	}

	// impala_iceberg_timestamptz_part: rows -2 and -1 share the 1969 file.
	for _, f := range find("ts_hour=1969-01-01-00/") {
		if got, want := bound(f, 2, false), mustTimestamp(t, "1969-01-01 00:00:00", false); got != want {
			t.Errorf("1969 lower bound %v, want %v", got, want)
		}
		if got, want := bound(f, 2, true), mustTimestamp(t, "1969-01-01 00:15:00", false); got != want {
			t.Errorf("1969 upper bound %v, want %v", got, want)
		}
		if got, want := bound(f, 1, false), int32(-2); got != want {
			t.Errorf("1969 lower i %v, want %v", got, want)
		}
	}

	// duckdb_lineitem_iceberg: the current file survived
	// DELETE … WHERE l_extendedprice < 10000.
	for _, f := range find("lineitem_iceberg/data/00000-5-") {
		if low := bound(f, 6, false); Compare(f.types[6], low, mustDecimal(t, "10000.00", 2)) < 0 {
			t.Errorf("l_extendedprice lower bound %v is below the delete's 10000", low)
		}
	}

	// duckdb_uuid: each file's bounds are its smallest and largest uuid
	// (as unsigned bytes) among the ten INDEX.md lists.
	var all [][16]byte
	for _, s := range []string{"8dc314d8-3fd4-4b3a-8bf5-c008f363c2e4", "a217c09f-06fa-4e91-8315-ff44753c4a54",
		"abd6f939-9b99-4e1d-9cda-0dc8ce60a161", "e6218567-354b-4a9c-8cd7-3d4b6a2470f8",
		"f9f28465-51cf-45f1-8985-e01d9a82253c", "1571effb-facd-42a3-90e9-0af522e9b6c2",
		"160a53fe-3d8b-443d-bd36-ad66287f585a", "37afa09a-f496-48a8-89a9-61ea7ccd85d5",
		"3ef257b8-e9c6-4c53-9c22-973729e1043f", "7fae299c-cf05-4777-9b42-57a52e1415ed"} {
		u, _ := ParseUUID(s)
		all = append(all, u)
	}
	for _, f := range find("uuid/data/") {
		lo, hi := bound(f, 1, false).([16]byte), bound(f, 1, true).([16]byte)
		if !slices.Contains(all, lo) || !slices.Contains(all, hi) {
			t.Errorf("%s: bounds %s..%s are not uuids of the table", f.path, FormatUUID(lo), FormatUUID(hi))
		}
		inside := 0
		for _, u := range all {
			if Compare(UUIDType{}, lo, u) <= 0 && Compare(UUIDType{}, u, hi) <= 0 {
				inside++
			}
		}
		if inside != 5 {
			t.Errorf("%s: %d of the table's uuids fall in %s..%s, want the file's 5", f.path, inside, FormatUUID(lo), FormatUUID(hi))
		}
	}
}

// FuzzValueFromBytes: decoding never panics, and whatever decodes is
// canonical and survives an encode/decode round trip unchanged.
func FuzzValueFromBytes(f *testing.F) {
	for _, file := range loadFixtureFiles(f) {
		for id, b := range file.lower {
			if typ, ok := file.types[id]; ok {
				f.Add(typeIndex(typ), b)
			}
		}
		for id, b := range file.upper {
			if typ, ok := file.types[id]; ok {
				f.Add(typeIndex(typ), b)
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, b []byte) {
		typ := binaryTestTypes[int(which)%len(binaryTestTypes)]
		v, err := ValueFromBytes(typ, b)
		if err != nil {
			return
		}
		if typ == (FixedType{Length: 4}) && len(b) < 4 {
			return // a truncated fixed bound is not a full value
		}
		if err := CheckValue(typ, v); err != nil {
			t.Fatalf("%v % x decoded to a non-canonical %v: %v", typ, b, v, err)
		}
		again, err := ValueToBytes(typ, v)
		if err != nil {
			t.Fatalf("%v: %v decoded from % x does not encode: %v", typ, v, b, err)
		}
		back, err := ValueFromBytes(typ, again)
		if err != nil || Compare(typ, v, back) != 0 || (isFloat(typ) && !sameFloatBits(v, back)) {
			t.Fatalf("%v: % x → %v → % x → %v, %v", typ, b, v, again, back, err)
		}
	})
}

func typeIndex(t Type) uint8 {
	for i, bt := range binaryTestTypes {
		if bt.String() == t.String() {
			return uint8(i)
		}
	}
	// Types with other parameters fuzz as the nearest listed one.
	switch t.(type) {
	case DecimalType:
		return uint8(len(binaryTestTypes) - 1)
	case FixedType:
		return 13
	}
	return 0
}
