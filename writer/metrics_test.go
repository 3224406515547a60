package writer

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
)

// expectedLeaf is what the test computes for one leaf column from the rows
// themselves.
type expectedLeaf struct {
	field      iceberg.NestedField
	inRepeated bool
	slots      []any // one per value: elements for leaves in lists and maps
}

// expectedLeaves collects every leaf's values from rows: a leaf outside
// lists and maps gets one slot per row (null when it or a parent is null);
// a leaf inside gets one per element of its innermost list or map.
func expectedLeaves(schema *iceberg.Schema, rows [][]any) map[int]*expectedLeaf {
	out := map[int]*expectedLeaf{}
	var declare func(f iceberg.NestedField, rep bool)
	declare = func(f iceberg.NestedField, rep bool) {
		switch t := f.Type.(type) {
		case *iceberg.StructType:
			for _, c := range t.Fields {
				declare(c, rep)
			}
		case *iceberg.ListType:
			declare(iceberg.NestedField{ID: t.ElementID, Name: "element", Type: t.Element}, true)
		case *iceberg.MapType:
			declare(iceberg.NestedField{ID: t.KeyID, Name: "key", Type: t.Key}, true)
			declare(iceberg.NestedField{ID: t.ValueID, Name: "value", Type: t.Value}, true)
		default:
			out[f.ID] = &expectedLeaf{field: f, inRepeated: rep}
		}
	}
	for _, f := range schema.Fields {
		declare(f, false)
	}
	var walk func(t iceberg.Type, id int, v any)
	walk = func(t iceberg.Type, id int, v any) {
		switch t := t.(type) {
		case *iceberg.StructType:
			for i, c := range t.Fields {
				var cv any
				if v != nil {
					cv = v.([]any)[i]
				}
				walk(c.Type, c.ID, cv)
			}
		case *iceberg.ListType:
			if v != nil {
				for _, e := range v.([]any) {
					walk(t.Element, t.ElementID, e)
				}
			}
		case *iceberg.MapType:
			if v != nil {
				mv := v.(iceberg.MapValue)
				for i := range mv.Keys {
					walk(t.Key, t.KeyID, mv.Keys[i])
					walk(t.Value, t.ValueID, mv.Values[i])
				}
			}
		default:
			out[id].slots = append(out[id].slots, v)
		}
	}
	for _, row := range rows {
		for j, f := range schema.Fields {
			walk(f.Type, f.ID, row[j])
		}
	}
	return out
}

func isNaNValue(v any) bool {
	switch f := v.(type) {
	case float32:
		return f != f
	case float64:
		return f != f
	}
	return false
}

// refLowerString and refUpperString are the truncation rules written
// plainly over runes, to check the writer's byte-level version.
func refLowerString(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

func refUpperString(s string, n int) (string, bool) {
	r := []rune(s)
	if len(r) <= n {
		return s, true
	}
	r = r[:n]
	for i := n - 1; i >= 0; i-- {
		c := r[i] + 1
		if c >= 0xD800 && c <= 0xDFFF {
			c = 0xE000
		}
		if c <= 0x10FFFF {
			return string(r[:i]) + string(c), true
		}
	}
	return "", false
}

func refUpperBinary(b []byte, n int) ([]byte, bool) {
	if len(b) <= n {
		return b, true
	}
	for i := n - 1; i >= 0; i-- {
		if b[i] != 0xff {
			out := append([]byte{}, b[:i]...)
			return append(out, b[i]+1), true
		}
	}
	return nil, false
}

// checkMetrics compares df's metrics with values computed from the rows.
func checkMetrics(t *testing.T, schema *iceberg.Schema, rows [][]any, df manifest.DataFile, modeOf func(id int) MetricsMode) {
	t.Helper()
	for id, e := range expectedLeaves(schema, rows) {
		mode := modeOf(id)
		name := fmt.Sprintf("%s (id %d, %s)", e.field.Name, id, mode)
		if mode.Kind == MetricsNone {
			for what, m := range map[string]map[int]int64{"column size": df.Metrics.Maps().ColumnSizes, "value count": df.Metrics.Maps().ValueCounts, "null count": df.Metrics.Maps().NullValueCounts, "nan count": df.Metrics.Maps().NaNValueCounts} {
				if _, ok := m[id]; ok {
					t.Errorf("%s: has a %s in mode none", name, what)
				}
			}
			if df.Metrics.Maps().LowerBounds[id] != nil || df.Metrics.Maps().UpperBounds[id] != nil {
				t.Errorf("%s: has bounds in mode none", name)
			}
			continue
		}
		var nulls, nans int64
		var lower, upper any
		for _, v := range e.slots {
			switch {
			case v == nil:
				nulls++
			case isNaNValue(v):
				nans++
			default:
				if lower == nil || iceberg.Compare(e.field.Type, v, lower) < 0 {
					lower = v
				}
				if upper == nil || iceberg.Compare(e.field.Type, v, upper) > 0 {
					upper = v
				}
			}
		}
		if got, ok := df.Metrics.Maps().ValueCounts[id]; !ok || got != int64(len(e.slots)) {
			t.Errorf("%s: value count %d (present %v), want %d", name, got, ok, len(e.slots))
		}
		if got, ok := df.Metrics.Maps().NullValueCounts[id]; !ok || got != nulls {
			t.Errorf("%s: null count %d (present %v), want %d", name, got, ok, nulls)
		}
		if _, ok := df.Metrics.Maps().ColumnSizes[id]; !ok {
			t.Errorf("%s: no column size", name)
		}
		switch e.field.Type.(type) {
		case iceberg.FloatType, iceberg.DoubleType:
			if got, ok := df.Metrics.Maps().NaNValueCounts[id]; !ok || got != nans {
				t.Errorf("%s: NaN count %d (present %v), want %d", name, got, ok, nans)
			}
		default:
			if _, ok := df.Metrics.Maps().NaNValueCounts[id]; ok {
				t.Errorf("%s: NaN count for a type that has no NaN", name)
			}
		}
		wantBounds := mode.Kind >= MetricsTruncate && !e.inRepeated && lower != nil
		if !wantBounds {
			if df.Metrics.Maps().LowerBounds[id] != nil || df.Metrics.Maps().UpperBounds[id] != nil {
				t.Errorf("%s: has bounds, want none", name)
			}
			continue
		}
		wantUpper := true
		if mode.Kind == MetricsTruncate {
			switch e.field.Type.(type) {
			case iceberg.StringType:
				lower = refLowerString(lower.(string), mode.Length)
				upper, wantUpper = refUpperString(upper.(string), mode.Length)
			case iceberg.BinaryType:
				if b := lower.([]byte); len(b) > mode.Length {
					lower = b[:mode.Length]
				}
				upper, wantUpper = refUpperBinary(upper.([]byte), mode.Length)
			}
		}
		lb, _ := iceberg.ValueToBytes(e.field.Type, lower)
		if !bytes.Equal(df.Metrics.Maps().LowerBounds[id], lb) {
			t.Errorf("%s: lower bound %x, want %x (%v)", name, df.Metrics.Maps().LowerBounds[id], lb, lower)
		}
		if !wantUpper {
			if df.Metrics.Maps().UpperBounds[id] != nil {
				t.Errorf("%s: upper bound %x, want none", name, df.Metrics.Maps().UpperBounds[id])
			}
			continue
		}
		ub, _ := iceberg.ValueToBytes(e.field.Type, upper)
		if !bytes.Equal(df.Metrics.Maps().UpperBounds[id], ub) {
			t.Errorf("%s: upper bound %x, want %x (%v)", name, df.Metrics.Maps().UpperBounds[id], ub, upper)
		}
	}
}

// checkFooterMetrics checks column sizes and split offsets against the
// footer as arrow-go reads it.
func checkFooterMetrics(t *testing.T, df manifest.DataFile) {
	t.Helper()
	pr, err := file.OpenParquetFile(df.FilePath, false)
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	md := pr.MetaData()
	sizes := map[int]int64{}
	var splits []int64
	for rg := 0; rg < md.NumRowGroups(); rg++ {
		rgm := md.RowGroup(rg)
		for c := 0; c < rgm.NumColumns(); c++ {
			cc, err := rgm.ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			id := int(md.Schema.Column(c).SchemaNode().FieldID())
			sizes[id] += cc.TotalCompressedSize()
			if c == 0 {
				start := cc.DataPageOffset()
				if cc.HasDictionaryPage() && cc.DictionaryPageOffset() < start {
					start = cc.DictionaryPageOffset()
				}
				splits = append(splits, start)
			}
		}
	}
	for id, size := range df.Metrics.Maps().ColumnSizes {
		if sizes[id] != size {
			t.Errorf("column %d: size %d, footer says %d", id, size, sizes[id])
		}
	}
	if fmt.Sprint(splits) != fmt.Sprint(df.SplitOffsets) {
		t.Errorf("split offsets %v, row groups start at %v", df.SplitOffsets, splits)
	}
}

func TestMetricsAllTypes(t *testing.T) {
	schema := allTypesSchema()
	rows := genRows(rand.New(rand.NewPCG(3, 4)), schema, 2500)
	opts := DefaultOptions()
	opts.RowGroupSize = 48 << 10
	files := writeRows(t, t.TempDir(), schema, nil, opts, rows, 600)
	if len(files[0].SplitOffsets) < 2 {
		t.Fatalf("want several row groups, got split offsets %v", files[0].SplitOffsets)
	}
	checkMetrics(t, schema, rows, files[0], func(int) MetricsMode { return DefaultMetricsMode })
	checkFooterMetrics(t, files[0])
}

func TestMetricsModes(t *testing.T) {
	schema := allTypesSchema()
	rows := genRows(rand.New(rand.NewPCG(5, 6)), schema, 800)
	find := func(name string) int {
		f, ok := schema.FindFieldByName(name)
		if !ok {
			t.Fatalf("no column %s", name)
		}
		return f.ID
	}
	// Column 14 is string, 18 binary, 4 double (see primitiveTypes).
	props := map[string]string{
		PropMetricsDefault:                    "counts",
		PropMetricsColumnPrefix + "opt_14":    "full",
		PropMetricsColumnPrefix + "req_14":    "truncate(3)",
		PropMetricsColumnPrefix + "opt_18":    "truncate(2)",
		PropMetricsColumnPrefix + "req_4":     "none",
		PropMetricsColumnPrefix + "s.inner.x": "full",
		PropMetricsColumnPrefix + "l.element": "full", // in a list: counts only, whatever the mode
		PropMetricsColumnPrefix + "no_such":   "full",
		PropMetricsColumnPrefix + "opt_1":     "bogus", // falls back to the default, as Java does
	}
	opts, err := OptionsFromProperties(props, schema)
	if err != nil {
		t.Fatal(err)
	}
	files := writeRows(t, t.TempDir(), schema, nil, opts, rows, 300)
	modes := map[int]MetricsMode{
		find("opt_14"):    {Kind: MetricsFull},
		find("req_14"):    {Kind: MetricsTruncate, Length: 3},
		find("opt_18"):    {Kind: MetricsTruncate, Length: 2},
		find("req_4"):     {Kind: MetricsNone},
		find("s.inner.x"): {Kind: MetricsFull},
		find("l.element"): {Kind: MetricsFull},
	}
	checkMetrics(t, schema, rows, files[0], func(id int) MetricsMode {
		if m, ok := modes[id]; ok {
			return m
		}
		return MetricsMode{Kind: MetricsCounts}
	})
}

func TestMetricsInferredLimit(t *testing.T) {
	b := &schemaBuilder{}
	var fields []iceberg.NestedField
	for i := range 5 {
		fields = append(fields, b.field(fmt.Sprintf("c%d", i), iceberg.LongType{}, false))
	}
	schema := iceberg.NewSchema(0, fields)
	opts, err := OptionsFromProperties(map[string]string{PropMetricsMaxInferred: "3"}, schema)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range fields {
		got := opts.metricsFor(f.ID)
		want := DefaultMetricsMode
		if i >= 3 {
			want = MetricsMode{Kind: MetricsNone}
		}
		if got != want {
			t.Errorf("%s: mode %v, want %v", f.Name, got, want)
		}
	}
	// An explicit default applies to every column.
	opts, _ = OptionsFromProperties(map[string]string{PropMetricsMaxInferred: "3", PropMetricsDefault: "full"}, schema)
	if got := opts.metricsFor(fields[4].ID); got.Kind != MetricsFull {
		t.Errorf("explicit default: %v, want full", got)
	}
}

// TestBoundTruncation checks the truncation edge cases against the plain
// rune-level reference, and a few by hand.
func TestBoundTruncation(t *testing.T) {
	cases := []struct {
		s     string
		n     int
		lower string
		upper string
		ok    bool
	}{
		{"abc", 5, "abc", "abc", true},
		{"abcdef", 3, "abc", "abd", true},
		{"日本語テキスト", 2, "日本", "日札", true}, // U+672C + 1 = U+672D
		{"a\U0010FFFFb", 2, "a\U0010FFFF", "b", true},
		{"\U0010FFFF\U0010FFFFx", 2, "\U0010FFFF\U0010FFFF", "", false},
		{"a\uD7FFz", 2, "a\uD7FF", "a\uE000", true},
		{"éééé", 1, "é", "ê", true},
		{"😀😀", 1, "😀", "😁", true},
		{"\x7f\x7fz", 2, "\x7f\x7f", "\x7f\u0080", true},
	}
	for _, c := range cases {
		if got := truncateLowerString(c.s, c.n); got != c.lower {
			t.Errorf("lower(%q, %d) = %q, want %q", c.s, c.n, got, c.lower)
		}
		got, ok := truncateUpperString(c.s, c.n)
		if got != c.upper || ok != c.ok {
			t.Errorf("upper(%q, %d) = %q %v, want %q %v", c.s, c.n, got, ok, c.upper, c.ok)
		}
		if ok && c.ok && got < c.s && len(c.s) > len(got) && c.s[:len(got)] != got {
			t.Errorf("upper(%q, %d) = %q sorts below the value", c.s, c.n, got)
		}
	}
	r := rand.New(rand.NewPCG(7, 8))
	alphabet := []rune{'a', 'z', 0x7f, 0x80, 0x7ff, 0x800, 0xD7FF, 0xE000, 0xFFFF, 0x10000, 0x10FFFF}
	for range 20000 {
		rs := make([]rune, r.IntN(8))
		for i := range rs {
			rs[i] = alphabet[r.IntN(len(alphabet))]
		}
		s, n := string(rs), 1+r.IntN(5)
		if got, want := truncateLowerString(s, n), refLowerString(s, n); got != want {
			t.Fatalf("lower(%q, %d) = %q, want %q", s, n, got, want)
		}
		got, ok := truncateUpperString(s, n)
		want, wantOK := refUpperString(s, n)
		if got != want || ok != wantOK {
			t.Fatalf("upper(%q, %d) = %q %v, want %q %v", s, n, got, ok, want, wantOK)
		}
		if ok && (got < s || utf8.RuneCountInString(got) > n) {
			t.Fatalf("upper(%q, %d) = %q is not a valid upper bound", s, n, got)
		}
	}
	for range 20000 {
		b := make([]byte, r.IntN(6))
		for i := range b {
			b[i] = []byte{0, 1, 0xfe, 0xff}[r.IntN(4)]
		}
		n := 1 + r.IntN(4)
		got, ok := truncateUpperBinary(b, n)
		want, wantOK := refUpperBinary(b, n)
		if !bytes.Equal(got, want) || ok != wantOK {
			t.Fatalf("upper(%x, %d) = %x %v, want %x %v", b, n, got, ok, want, wantOK)
		}
		if ok && bytes.Compare(got, b) < 0 {
			t.Fatalf("upper(%x, %d) = %x sorts below the value", b, n, got)
		}
		if lo := truncateLowerBinary(b, n); len(lo) > n || !bytes.HasPrefix(b, lo) {
			t.Fatalf("lower(%x, %d) = %x", b, n, lo)
		}
	}
}

// TestBoundsEdgeValues writes columns whose extremes hit the round-up
// cases: an upper bound that cannot be rounded up is dropped.
func TestBoundsEdgeValues(t *testing.T) {
	b := &schemaBuilder{}
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		b.field("s", iceberg.StringType{}, false),
		b.field("bin", iceberg.BinaryType{}, false),
		b.field("f", iceberg.FloatType{}, false),
		b.field("d", iceberg.DoubleType{}, false),
	})
	max16 := string([]rune{0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 0x10FFFF, 'a'})
	ff := bytes.Repeat([]byte{0xff}, 20)
	rows := [][]any{
		{"abc", []byte{1}, float32(math.NaN()), math.Copysign(0, -1)},
		{max16, ff, float32(math.Copysign(0, -1)), 0.0},
		{nil, nil, float32(0), math.NaN()},
	}
	files := writeRows(t, t.TempDir(), schema, nil, DefaultOptions(), rows, 10)
	df := files[0]
	checkMetrics(t, schema, rows, df, func(int) MetricsMode { return DefaultMetricsMode })
	if df.Metrics.Maps().UpperBounds[1] != nil || df.Metrics.Maps().UpperBounds[2] != nil {
		t.Errorf("upper bounds %x and %x should be dropped", df.Metrics.Maps().UpperBounds[1], df.Metrics.Maps().UpperBounds[2])
	}
	// Floats: -0 is the lower bound and +0 the upper, NaN left out.
	if lo, hi := math.Float32frombits(le32(df.Metrics.Maps().LowerBounds[3])), math.Float32frombits(le32(df.Metrics.Maps().UpperBounds[3])); !math.Signbit(float64(lo)) || math.Signbit(float64(hi)) {
		t.Errorf("float bounds %v %v, want -0 and +0", lo, hi)
	}
}

func le32(b []byte) uint32 {
	if len(b) != 4 {
		return 0
	}
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
