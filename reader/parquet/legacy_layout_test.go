package parquet

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/internal/fixtures"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/deprecated"
)

// convertedAs annotates a node with a legacy converted type only, the way
// parquet-mr and Hive wrote 2-level lists and MAP_KEY_VALUE maps.
type convertedAs struct {
	parquet.Node
	ct deprecated.ConvertedType
}

type convertedType struct {
	parquet.Type
	ct deprecated.ConvertedType
}

func (n convertedAs) Type() parquet.Type { return convertedType{n.Node.Type(), n.ct} }

func (t convertedType) ConvertedType() *deprecated.ConvertedType { return &t.ct }

func legacyList(inner parquet.Group) parquet.Node {
	return parquet.Optional(convertedAs{inner, deprecated.List})
}

func genLegacy(r *rand.Rand, inner func(r *rand.Rand) any) any {
	if r.IntN(6) == 0 {
		return nil
	}
	items := make([]any, r.IntN(4))
	for i := range items {
		items[i] = inner(r)
	}
	return items
}

func TestLegacyListLayoutsMatchPqarrow(t *testing.T) {
	i32 := func(r *rand.Rand) any { return int32(r.IntN(100)) }
	specs := []colSpec{
		// rule 1: repeated primitive inside LIST
		{"prim_array", legacyList(parquet.Group{"array": parquet.Repeated(parquet.Int(32))}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, i32)
			if v == nil {
				return nil
			}
			return map[string]any{"array": v}
		}},
		// rule 3: a one-field repeated group named "array" is the element
		{"group_array", legacyList(parquet.Group{"array": parquet.Repeated(parquet.Group{"str": parquet.String()})}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, func(r *rand.Rand) any { return map[string]any{"str": words[r.IntN(len(words))]} })
			if v == nil {
				return nil
			}
			return map[string]any{"array": v}
		}},
		// rule 3: <name>_tuple
		{"tup", legacyList(parquet.Group{"tup_tuple": parquet.Repeated(parquet.Group{"x": parquet.Int(32)})}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, func(r *rand.Rand) any { return map[string]any{"x": i32(r)} })
			if v == nil {
				return nil
			}
			return map[string]any{"tup_tuple": v}
		}},
		// rule 4: Hive's bag/array_element
		{"bag_list", legacyList(parquet.Group{"bag": parquet.Repeated(parquet.Group{"array_element": parquet.Optional(parquet.Int(64))})}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, func(r *rand.Rand) any {
				if r.IntN(4) == 0 {
					return map[string]any{"array_element": nil}
				}
				return map[string]any{"array_element": r.Int64()}
			})
			if v == nil {
				return nil
			}
			return map[string]any{"bag": v}
		}},
		// rule 2: a repeated group of several fields is the element
		{"pairs", legacyList(parquet.Group{"pair": parquet.Repeated(parquet.Group{"a": parquet.Int(32), "b": parquet.Optional(parquet.String())})}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, func(r *rand.Rand) any {
				var b any
				if r.IntN(3) > 0 {
					b = words[r.IntN(len(words))]
				}
				return map[string]any{"a": i32(r), "b": b}
			})
			if v == nil {
				return nil
			}
			return map[string]any{"pair": v}
		}},
		// bare repeated fields: required lists of required elements
		{"bare_prim", parquet.Repeated(parquet.Int(32)), func(r *rand.Rand, _ int) any {
			v, _ := genLegacy(r, i32).([]any)
			if v == nil {
				v = []any{}
			}
			return v
		}},
		{"bare_group", parquet.Repeated(parquet.Group{"k": parquet.String(), "n": parquet.Optional(parquet.Int(32))}), func(r *rand.Rand, _ int) any {
			v, _ := genLegacy(r, func(r *rand.Rand) any { return map[string]any{"k": words[r.IntN(len(words))], "n": i32(r)} }).([]any)
			if v == nil {
				v = []any{}
			}
			return v
		}},
		{"holder", parquet.Optional(parquet.Group{"ids": parquet.Repeated(parquet.Int(64)), "label": parquet.Optional(parquet.String())}), func(r *rand.Rand, _ int) any {
			if r.IntN(5) == 0 {
				return nil
			}
			ids := make([]any, r.IntN(3))
			for i := range ids {
				ids[i] = r.Int64()
			}
			return map[string]any{"ids": ids, "label": words[r.IntN(len(words))]}
		}},
		// MAP_KEY_VALUE on the outer group, as old writers did
		{"kv_map", parquet.Optional(convertedAs{parquet.Group{"map": parquet.Repeated(parquet.Group{"key": parquet.String(), "value": parquet.Optional(parquet.Int(32))})}, deprecated.MapKeyValue}), func(r *rand.Rand, _ int) any {
			v := genLegacy(r, func(r *rand.Rand) any { return map[string]any{"key": words[r.IntN(len(words))], "value": i32(r)} })
			if v == nil {
				return nil
			}
			return map[string]any{"map": v}
		}},
	}
	for _, version := range []int{1, 2} {
		data := writeSpecs(t, specs, 1500, uint64(version), parquet.DataPageVersion(version), parquet.PageBufferSize(1024), parquet.MaxRowsPerRowGroup(600))
		f := openBytes(t, data)
		for _, want := range []struct {
			name string
			kind NodeKind
			elem string
		}{
			{"prim_array", KindList, "array"},
			{"group_array", KindList, "array"},
			{"tup", KindList, "tup_tuple"},
			{"bag_list", KindList, "array_element"},
			{"pairs", KindList, "pair"},
			{"bare_prim", KindList, "element"},
			{"bare_group", KindList, "element"},
			{"kv_map", KindMap, ""},
		} {
			n := f.Lookup(want.name)
			if n == nil || n.Kind != want.kind {
				t.Fatalf("%s: got %v", want.name, n)
			}
			if want.elem != "" && n.ListElement().Name != want.elem {
				t.Errorf("%s: element %s, want %s", want.name, n.ListElement().Name, want.elem)
			}
		}
		crossCheck(t, fmt.Sprintf("legacy v%d", version), data, 0)
		crossCheck(t, fmt.Sprintf("legacy v%d batches of 50", version), data, 50)
		checkRowRanges(t, data)
	}
}

// TestMigratedComplexFixture reads the Hive-written file pqarrow rejects
// (UNKNOWN logical type on MAP_KEY_VALUE groups). The reference values are
// parquet-go's leaf values for its single row, and Impala's expected
// answer ('A', 0.5) for struct_1_col.string_col and
// struct_2_col.struct_3_col.float_col.
func TestMigratedComplexFixture(t *testing.T) {
	data, err := os.ReadFile(fixtures.Path("impala_iceberg_migrated_complex_test", "000000_0"))
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(bytesReaderAt(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rows := make([]parquet.Row, 2)
	n, _ := pf.RowGroups()[0].Rows().ReadRows(rows)
	if n != 1 {
		t.Fatalf("parquet-go reads %d rows", n)
	}
	leafValues := map[int]string{}
	for _, v := range rows[0] {
		leafValues[v.Column()] = v.String()
	}
	want := map[int]string{0: "0", 1: "A", 2: "true", 3: "1", 4: "2", 5: "3", 6: "0.5", 7: "B", 8: "1.5", 9: "4", 10: "5", 11: "6"}
	for col, v := range want {
		if leafValues[col] != v {
			t.Fatalf("parquet-go leaf %d is %q; the expectations below assume %q", col, leafValues[col], v)
		}
	}

	f := openBytes(t, data)
	for _, n := range f.Nodes {
		if n.HasFieldID {
			t.Errorf("%s has a field id; the file has none", n.DottedPath())
		}
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	defer mem.AssertSize(t, 0)
	var cols []Column
	for _, n := range f.Root.Children {
		cols = append(cols, Column{Node: n})
	}
	b, err := f.ReadAll(ReadRequest{Columns: cols, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Release()
	got := make([]string, len(b.Columns))
	for i, c := range b.Columns {
		j, err := c.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		got[i] = strings.ReplaceAll(string(j), "\n", "")
	}
	wantJSON := []string{
		`[{"bool_int_map_col":[{"key":true,"value":1}],"int_array_col":[0],"string_col":"A"}]`,
		`[[{"key":2,"value":3}]]`,
		`[{"int_int_map_col":[{"key":5,"value":6}],"struct_3_col":{"bigint_array_col":[4],"float_col":0.5,"string_double_map_col":[{"key":"B","value":1.5}]}}]`,
	}
	for i := range wantJSON {
		if got[i] != wantJSON[i] {
			t.Errorf("column %s:\n got %s\nwant %s", f.Root.Children[i].Name, got[i], wantJSON[i])
		}
	}

	// Sub-path selection decodes only the chosen leaves.
	s2 := f.Lookup("struct_2_col")
	br, err := f.NewBatchReader(ReadRequest{Columns: []Column{
		{Node: f.Lookup("struct_1_col"), Children: []Column{{Node: f.Lookup("struct_1_col", "string_col")}}},
		{Node: s2, Children: []Column{{Node: f.Lookup("struct_2_col", "struct_3_col"), Children: []Column{{Node: f.Lookup("struct_2_col", "struct_3_col", "float_col"), Type: arrow.PrimitiveTypes.Float64}}}}},
	}, Allocator: mem})
	if err != nil {
		t.Fatal(err)
	}
	defer br.Close()
	if len(br.Leaves) != 2 {
		t.Errorf("sub-path selection prepared %d leaf readers, want 2", len(br.Leaves))
	}
	sb, err := br.Next()
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Release()
	s1 := sb.Columns[0].(*array.Struct).Field(0).(*array.String).Value(0)
	fl := sb.Columns[1].(*array.Struct).Field(0).(*array.Struct).Field(0).(*array.Float64).Value(0)
	if s1 != "A" || fl != 0.5 {
		t.Errorf("got (%q, %v), Impala expects ('A', 0.5)", s1, fl)
	}
}

// TestInt96Timestamps writes legacy INT96 timestamps (as Hive, Impala and
// Spark do) and reads them as timestamp[ns] and timestamp[us].
func TestInt96Timestamps(t *testing.T) {
	type row struct {
		TS  deprecated.Int96  `parquet:"ts"`
		Opt *deprecated.Int96 `parquet:"opt,optional"`
	}
	instants := []time.Time{
		time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 123456789, time.UTC),
		time.Date(2024, 2, 29, 13, 45, 1, 999999999, time.UTC),
		time.Date(1900, 1, 1, 0, 0, 0, 1, time.UTC),
		time.Date(2200, 4, 11, 0, 0, 0, 0, time.UTC),
	}
	toInt96 := func(ts time.Time) deprecated.Int96 {
		day := ts.Unix()/86400 + julianDayOfUnixEpoch
		if ts.Unix()%86400 < 0 {
			day--
		}
		midnight := time.Unix((day-julianDayOfUnixEpoch)*86400, 0).UTC()
		nanos := ts.Sub(midnight).Nanoseconds()
		var b [12]byte
		binary.LittleEndian.PutUint64(b[:8], uint64(nanos))
		binary.LittleEndian.PutUint32(b[8:], uint32(day))
		return deprecated.Int96{binary.LittleEndian.Uint32(b[0:]), binary.LittleEndian.Uint32(b[4:]), binary.LittleEndian.Uint32(b[8:])}
	}
	rows := make([]row, 0, 1000)
	for i := range 1000 {
		ts := instants[i%len(instants)].Add(time.Duration(i) * time.Hour)
		r := row{TS: toInt96(ts)}
		if i%3 != 0 {
			v := toInt96(ts.Add(-time.Minute))
			r.Opt = &v
		}
		rows = append(rows, r)
	}
	for _, version := range []int{1, 2} {
		var buf = new(bytes.Buffer)
		w := parquet.NewGenericWriter[row](buf, parquet.DataPageVersion(version), parquet.PageBufferSize(1024))
		if _, err := w.Write(rows); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		data := buf.Bytes()
		crossCheck(t, "int96", data, 0)
		f := openBytes(t, data)
		b, err := f.ReadAll(ReadRequest{Columns: []Column{{Node: f.Lookup("ts"), Type: arrow.FixedWidthTypes.Timestamp_us}}})
		if err != nil {
			t.Fatal(err)
		}
		got := b.Columns[0].(*array.Timestamp)
		for i := range rows {
			want := instants[i%len(instants)].Add(time.Duration(i) * time.Hour)
			if int64(got.Value(i)) != FloorDiv(want.UnixNano(), 1000) {
				t.Fatalf("row %d: got %d µs, want %s", i, got.Value(i), want)
			}
		}
		b.Release()
	}
}
