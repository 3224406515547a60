package manifest

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/twmb/avro/ocf"
)

// randomMetricMaps draws metrics as writers make them and worse: sparse
// and negative ids, counts of every size, empty bounds.
func randomMetricMaps(rng *rand.Rand) MetricMaps {
	id := func() int {
		switch rng.IntN(8) {
		case 0:
			return -rng.IntN(5)
		case 1:
			return rng.IntN(1 << 30)
		}
		return 1 + rng.IntN(40)
	}
	count := func() int64 {
		switch rng.IntN(6) {
		case 0:
			return math.MaxInt64 - rng.Int64N(3)
		case 1:
			return math.MinInt64 + rng.Int64N(3)
		case 2:
			return -rng.Int64N(1000)
		}
		return rng.Int64N(1 << uint(1+rng.IntN(40)))
	}
	bound := func() []byte {
		b := make([]byte, rng.IntN(3)*rng.IntN(20))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		return b
	}
	var m MetricMaps
	for _, dst := range []*map[int]int64{&m.ColumnSizes, &m.ValueCounts, &m.NullValueCounts, &m.NaNValueCounts} {
		if n := rng.IntN(12); n > 0 {
			*dst = map[int]int64{}
			for range n {
				(*dst)[id()] = count()
			}
		}
	}
	for _, dst := range []*map[int][]byte{&m.LowerBounds, &m.UpperBounds} {
		if n := rng.IntN(12); n > 0 {
			*dst = map[int][]byte{}
			for range n {
				(*dst)[id()] = bound()
			}
		}
	}
	return m
}

// checkMetricsAnswer checks every question Metrics answers against the
// maps it was made from, for the ids the maps have and some they lack.
func checkMetricsAnswer(t *testing.T, got Metrics, want MetricMaps) {
	t.Helper()
	ids := map[int]bool{-7: true, 0: true, 1: true, 41: true, math.MaxInt32: true}
	for _, m := range []map[int]int64{want.ColumnSizes, want.ValueCounts, want.NullValueCounts, want.NaNValueCounts} {
		for id := range m {
			ids[id], ids[id+1], ids[id-1] = true, true, true
		}
	}
	for _, m := range []map[int][]byte{want.LowerBounds, want.UpperBounds} {
		for id := range m {
			ids[id], ids[id+1], ids[id-1] = true, true, true
		}
	}
	for id := range ids {
		c := got.Column(id)
		for _, q := range []struct {
			what   string
			m      map[int]int64
			single func(int) (int64, bool)
			v      int64
			has    bool
		}{
			{"column size", want.ColumnSizes, got.ColumnSize, c.ColumnSize, c.HasColumnSize},
			{"value count", want.ValueCounts, got.ValueCount, c.ValueCount, c.HasValueCount},
			{"null count", want.NullValueCounts, got.NullCount, c.NullCount, c.HasNullCount},
			{"NaN count", want.NaNValueCounts, got.NaNCount, c.NaNCount, c.HasNaNCount},
		} {
			w, wok := q.m[id]
			if v, ok := q.single(id); v != w || ok != wok {
				t.Fatalf("%s of %d: %d %v, want %d %v", q.what, id, v, ok, w, wok)
			}
			if q.v != w || q.has != wok {
				t.Fatalf("Column(%d) %s: %d %v, want %d %v", id, q.what, q.v, q.has, w, wok)
			}
		}
		for _, q := range []struct {
			what   string
			m      map[int][]byte
			single func(int) ([]byte, bool)
			v      []byte
			has    bool
		}{
			{"lower bound", want.LowerBounds, got.LowerBound, c.Lower, c.HasLower},
			{"upper bound", want.UpperBounds, got.UpperBound, c.Upper, c.HasUpper},
		} {
			w, wok := q.m[id]
			if v, ok := q.single(id); !bytes.Equal(v, w) || ok != wok {
				t.Fatalf("%s of %d: %x %v, want %x %v", q.what, id, v, ok, w, wok)
			}
			if !bytes.Equal(q.v, w) || q.has != wok {
				t.Fatalf("Column(%d) %s: %x %v, want %x %v", id, q.what, q.v, q.has, w, wok)
			}
		}
	}
	back := got.Maps()
	if !reflect.DeepEqual(normalMaps(back), normalMaps(want)) {
		t.Fatalf("Maps() = %+v, want %+v", back, want)
	}
	if got.IsEmpty() != reflect.DeepEqual(normalMaps(want), MetricMaps{}) {
		t.Fatalf("IsEmpty %v for %+v", got.IsEmpty(), want)
	}
}

// normalMaps is m with empty maps nil and nil bounds empty: what a
// manifest can tell apart.
func normalMaps(m MetricMaps) MetricMaps {
	for _, c := range []*map[int]int64{&m.ColumnSizes, &m.ValueCounts, &m.NullValueCounts, &m.NaNValueCounts} {
		if len(*c) == 0 {
			*c = nil
		}
	}
	for _, b := range []*map[int][]byte{&m.LowerBounds, &m.UpperBounds} {
		if len(*b) == 0 {
			*b = nil
			continue
		}
		c := map[int][]byte{}
		for k, v := range *b {
			c[k] = append([]byte{}, v...)
		}
		*b = c
	}
	return m
}

// TestMetricsAnswerAsMaps: Metrics made from maps answer every lookup as
// the maps do, and give the maps back.
func TestMetricsAnswerAsMaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checkMetricsAnswer(t, Metrics{}, MetricMaps{})
	checkMetricsAnswer(t, MetricsOf(MetricMaps{ColumnSizes: map[int]int64{}}), MetricMaps{})
	for range 3000 {
		m := randomMetricMaps(rng)
		got := MetricsOf(m)
		checkMetricsAnswer(t, got, m)
		if again := MetricsOf(got.Maps()); !reflect.DeepEqual(again, got) {
			t.Fatalf("not canonical: %x, then %x", got.enc, again.enc)
		}
		if c := got.Clone(); !reflect.DeepEqual(c, got) {
			t.Fatalf("clone %x of %x", c.enc, got.enc)
		}
	}
}

// TestMetricsBuilderOrder: a writer's maps in any order, with an id
// repeated, give what maps filled in that order would hold (the last
// value of an id wins), in the canonical form.
func TestMetricsBuilderOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var b metricsBuilder
	for range 3000 {
		want := MetricMaps{ValueCounts: map[int]int64{}, UpperBounds: map[int][]byte{}}
		for range rng.IntN(20) {
			id, v := rng.IntN(10)-2, rng.Int64N(100)-5
			b.addCount(kindValueCounts, int64(id), v)
			want.ValueCounts[id] = v
		}
		for range rng.IntN(20) {
			id, v := rng.IntN(10), []byte(fmt.Sprint(rng.IntN(1000)))
			b.addBound(kindUpperBounds, int64(id), v)
			want.UpperBounds[id] = v
		}
		got := b.finish()
		checkMetricsAnswer(t, got, want)
		if w := MetricsOf(want); !reflect.DeepEqual(got, w) {
			t.Fatalf("built %x, MetricsOf gives %x", got.enc, w.enc)
		}
	}
}

// genericMetrics reads the metric maps of every entry of a manifest with
// the Avro library's generic decoder: the reference the compact form is
// checked against, decoded without any of this package's code.
func genericMetrics(t *testing.T, data []byte) []MetricMaps {
	t.Helper()
	r, err := ocf.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var out []MetricMaps
	for {
		var rec any
		if err := r.Decode(&rec); err != nil {
			break
		}
		df := rec.(map[string]any)["data_file"].(map[string]any)
		var m MetricMaps
		for name, dst := range map[string]*map[int]int64{"column_sizes": &m.ColumnSizes, "value_counts": &m.ValueCounts,
			"null_value_counts": &m.NullValueCounts, "nan_value_counts": &m.NaNValueCounts} {
			for _, kv := range genericPairs(df[name]) {
				if kv[1] == nil {
					continue
				}
				if *dst == nil {
					*dst = map[int]int64{}
				}
				(*dst)[int(toInt64(t, kv[0]))] = toInt64(t, kv[1])
			}
		}
		for name, dst := range map[string]*map[int][]byte{"lower_bounds": &m.LowerBounds, "upper_bounds": &m.UpperBounds} {
			for _, kv := range genericPairs(df[name]) {
				if kv[1] == nil {
					continue
				}
				if *dst == nil {
					*dst = map[int][]byte{}
				}
				(*dst)[int(toInt64(t, kv[0]))] = kv[1].([]byte)
			}
		}
		out = append(out, m)
	}
	return out
}

func genericPairs(v any) [][2]any {
	// The library gives a union's value as it is, a record as a map by
	// field name (the spec names a metric map's fields key and value).
	arr, _ := v.([]any)
	var out [][2]any
	for _, item := range arr {
		kv := item.(map[string]any)
		out = append(out, [2]any{kv["key"], kv["value"]})
	}
	return out
}

func toInt64(t *testing.T, v any) int64 {
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case int:
		return int64(x)
	}
	t.Fatalf("%T is not an integer", v)
	return 0
}

// TestFixtureMetricsMatchGenericAvro: the metrics of every entry of every
// manifest of the real engines' fixture tables answer as the maps the
// Avro library decodes from the same bytes.
func TestFixtureMetricsMatchGenericAvro(t *testing.T) {
	entries, withMetrics := 0, 0
	for _, ft := range fixtureTables(t) {
		seen := map[string]bool{}
		lists, _ := ft.avroFiles(t)
		for _, l := range lists {
			for _, mf := range ft.readList(t, l) {
				if seen[mf.Path] {
					continue
				}
				seen[mf.Path] = true
				es := ft.readManifest(t, mf)
				want := genericMetrics(t, readFile(t, ft.localPath(mf.Path)))
				if len(want) != len(es) {
					t.Fatalf("%s: the Avro library reads %d entries, ReadManifest %d", mf.Path, len(want), len(es))
				}
				for i, e := range es {
					entries++
					if !e.DataFile.Metrics.IsEmpty() {
						withMetrics++
					}
					checkMetricsAnswer(t, e.DataFile.Metrics, want[i])
				}
			}
		}
	}
	if withMetrics < 100 {
		t.Errorf("only %d of %d fixture entries have metrics", withMetrics, entries)
	}
	t.Logf("%d entries, %d with metrics", entries, withMetrics)
}

// TestGeneratedManifestMetrics: random metrics written into manifests
// read back equal (canonical bytes) and answer as the maps written.
func TestGeneratedManifestMetrics(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "a", Type: iceberg.LongType{}}})
	spec := iceberg.PartitionSpec{ID: 0}
	var entries []Entry
	var want []MetricMaps
	for i := range 500 {
		m := randomMetricMaps(rng)
		for _, c := range []map[int]int64{m.ColumnSizes, m.ValueCounts, m.NullValueCounts, m.NaNValueCounts} {
			maps.DeleteFunc(c, func(id int, _ int64) bool { return id > math.MaxInt32 })
		}
		entries = append(entries, Entry{Status: StatusAdded, DataFile: DataFile{
			FilePath: fmt.Sprintf("f%d.parquet", i), FileFormat: "PARQUET", RecordCount: 1, Metrics: MetricsOf(m)}})
		want = append(want, m)
	}
	var buf bytes.Buffer
	mf, err := WriteManifest(&buf, ManifestWriteOptions{FormatVersion: 2, Spec: spec, PartitionType: &iceberg.StructType{}, Schema: schema, SnapshotID: 1}, entries)
	if err != nil {
		t.Fatal(err)
	}
	mf.Path, mf.SequenceNumber = "m.avro", 1
	back, err := ReadManifest(buf.Bytes(), mf, spec, &iceberg.StructType{}, 2)
	if err != nil {
		t.Fatal(err)
	}
	generic := genericMetrics(t, buf.Bytes())
	for i, e := range back {
		if !reflect.DeepEqual(e.DataFile.Metrics, entries[i].DataFile.Metrics) {
			t.Fatalf("entry %d: read %x, wrote %x", i, e.DataFile.Metrics.enc, entries[i].DataFile.Metrics.enc)
		}
		checkMetricsAnswer(t, e.DataFile.Metrics, want[i])
		checkMetricsAnswer(t, e.DataFile.Metrics, generic[i])
	}
}

// TestMetricsStoreKeeps: what a store keeps equals what it was given,
// stays so as more is kept, and shares nothing with the original.
func TestMetricsStoreKeeps(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var store MetricsStore
	var kept []Metrics
	var want []MetricMaps
	for range 2000 {
		m := randomMetricMaps(rng)
		if rng.IntN(50) == 0 { // larger than a quarter chunk
			m.LowerBounds = map[int][]byte{1: make([]byte, metricsStoreChunk/3)}
		}
		orig := MetricsOf(m)
		k := store.Keep(orig)
		for i := range orig.enc {
			orig.enc[i] = 0xff // the original's memory reused
		}
		kept, want = append(kept, k), append(want, m)
	}
	for i, k := range kept {
		checkMetricsAnswer(t, k, want[i])
	}
}

// Metrics made from maps (a writer's files, a server's scan plan) hold
// their own few bytes, not a share of an arena chunk: a plan of 100,000
// files kept 1.6 GB alive that way.
func TestMetricsOfHoldsOnlyItsBytes(t *testing.T) {
	maps := MetricMaps{ValueCounts: map[int]int64{1: 10, 2: 10}, LowerBounds: map[int][]byte{1: []byte("abc")}}
	const n = 1000
	kept := make([]Metrics, 0, n)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		kept = append(kept, MetricsOf(maps))
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / n; per > 1024 {
		t.Fatalf("MetricsOf allocated %d bytes a call for %d bytes of metrics", per, len(kept[0].enc))
	}
	if v, ok := kept[n-1].ValueCount(2); !ok || v != 10 {
		t.Fatalf("value count of field 2: %d, %v", v, ok)
	}
}
