package table

import (
	"context"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
)

// The partition struct of the summaries below: identity partitions of an
// int, a string and a double.
func summaryPartType() (*iceberg.Schema, *iceberg.PartitionSpec, *iceberg.StructType) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{
		{ID: 1, Name: "i", Type: iceberg.IntType{}},
		{ID: 2, Name: "s", Type: iceberg.StringType{}},
		{ID: 3, Name: "d", Type: iceberg.DoubleType{}},
		{ID: 4, Name: "other", Type: iceberg.IntType{}},
	})
	spec := &iceberg.PartitionSpec{Fields: []iceberg.PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "i", Transform: iceberg.IdentityTransform{}},
		{SourceID: 2, FieldID: 1001, Name: "s", Transform: iceberg.IdentityTransform{}},
		{SourceID: 3, FieldID: 1002, Name: "d", Transform: iceberg.IdentityTransform{}},
	}}
	pt, _ := spec.PartitionType(schema)
	return schema, spec, pt
}

func boolp(b bool) *bool { return &b }

func checkSummaries(t *testing.T, summaries []manifest.FieldSummary, cases map[string]bool) {
	t.Helper()
	schema, spec, partType := summaryPartType()
	mf := &manifest.ManifestFile{Partitions: summaries}
	for filter, want := range cases {
		projected, err := expr.ProjectInclusive(bindFilter(t, schema, filter), spec, partType)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewManifestEvaluator(projected, partType)
		if err != nil {
			t.Fatalf("%s: %v", filter, err)
		}
		if got := m.MightMatch(mf); got != want {
			t.Errorf("%s (projected %s): might match %v, want %v", filter, projected, got, want)
		}
	}
}

func TestManifestEvaluatorBounds(t *testing.T) {
	i32 := func(v int32) []byte { b, _ := iceberg.ValueToBytes(iceberg.IntType{}, v); return b }
	f64 := func(v float64) []byte { b, _ := iceberg.ValueToBytes(iceberg.DoubleType{}, v); return b }
	summaries := []manifest.FieldSummary{
		{ContainsNull: false, LowerBound: i32(5), UpperBound: i32(10)},
		{ContainsNull: true, LowerBound: []byte("click"), UpperBound: []byte("view")},
		{ContainsNull: false, ContainsNaN: boolp(false), LowerBound: f64(-1), UpperBound: f64(1)},
	}
	checkSummaries(t, summaries, map[string]bool{
		"i < 5": false, "i <= 5": true, "i > 10": false, "i = 7": true, "i = 11": false, "i in (1, 2, 11)": false,
		"i in (1, 6)": true, "i is null": false, "i is not null": true, "i != 7": true,
		"s = 'download'": true, "s = 'zzz'": false, "s is null": true, "s like 'v%'": true, "s like 'w%'": false,
		"s like 'a%'": false, "s not like 'c%'": true,
		"d is nan": false, "d is not nan": true, "d > 1": false, "d = 0": true,
		"other = 1": true, "i < 5 or other = 1": true, "i < 5 and other = 1": false, "not (i >= 5)": false,
	})
}

func TestManifestEvaluatorNullsAndNaNs(t *testing.T) {
	i32 := func(v int32) []byte { b, _ := iceberg.ValueToBytes(iceberg.IntType{}, v); return b }
	f64 := func(v float64) []byte { b, _ := iceberg.ValueToBytes(iceberg.DoubleType{}, v); return b }
	// Only nulls in every field; the double's NaN count unknown.
	allNull := []manifest.FieldSummary{{ContainsNull: true}, {ContainsNull: true}, {ContainsNull: true}}
	checkSummaries(t, allNull, map[string]bool{
		"i = 1": false, "i is null": true, "i is not null": false, "i != 1": false, "s like 'a%'": false,
		"s not like 'a%'": false, "d is not null": true, "d is nan": true, "d < 0": false,
	})
	// Only NaNs in the double.
	allNaN := []manifest.FieldSummary{{LowerBound: i32(7), UpperBound: i32(7)}, {LowerBound: []byte("a"), UpperBound: []byte("a")}, {ContainsNaN: boolp(true)}}
	checkSummaries(t, allNaN, map[string]bool{
		"d is not nan": false, "d is nan": true, "d = 1": false, "d != 1": true, "d is not null": true,
		// One non-null int value: != 7 is ruled out, != 8 not.
		"i != 7": false, "i not in (6, 7)": false, "i != 8": true,
		// Strings are never pinned by equal bounds.
		"s != 'a'": true, "s not like 'a%'": false,
	})
	oneDouble := []manifest.FieldSummary{{}, {}, {ContainsNaN: boolp(false), LowerBound: f64(2), UpperBound: f64(2)}}
	checkSummaries(t, oneDouble, map[string]bool{"d != 2": false, "d != 3": true})
	unknownNaN := []manifest.FieldSummary{{}, {}, {LowerBound: f64(2), UpperBound: f64(2)}}
	checkSummaries(t, unknownNaN, map[string]bool{"d != 2": true, "d is nan": true})
}

// A bound that is there but does not decode (a width no promotion gives)
// says nothing; it must not read as "no value but nulls and NaNs".
func TestManifestEvaluatorUndecodableBound(t *testing.T) {
	odd := []manifest.FieldSummary{{LowerBound: []byte{1, 2, 3}, UpperBound: []byte{1, 2, 3}}, {}, {ContainsNaN: boolp(false), LowerBound: []byte{1}}}
	checkSummaries(t, odd, map[string]bool{"i = 1": true, "i > 100": true, "i != 1": true, "d < 0": true, "d is not null": true})
}

// A manifest without summaries might hold anything, but a filter that is
// false holds nothing anywhere.
func TestManifestEvaluatorWithoutSummaries(t *testing.T) {
	checkSummaries(t, nil, map[string]bool{"i = 1": true, "false": false, "i = 1 and false": false})
	checkSummaries(t, []manifest.FieldSummary{{ContainsNull: true}}, map[string]bool{"i = 1": true})
	_, _, partType := summaryPartType()
	if _, err := NewManifestEvaluator(&expr.BoundPredicate{Op: expr.OpIsNull, FieldID: 1}, partType); err == nil {
		t.Error("a predicate on a field outside the partition struct must be an error")
	}
}

// The fixtures' own summaries: impala_iceberg_partitioned's one manifest
// spans hours 438296..438298 and actions click..view.
func TestManifestEvaluatorOnFixture(t *testing.T) {
	tbl, _ := openFixture(t, "impala_iceberg_partitioned")
	snap := tbl.Metadata.CurrentSnapshot()
	manifests, err := tbl.manifestsOf(context.Background(), snap)
	if err != nil || len(manifests) != 1 {
		t.Fatalf("%d manifests, %v", len(manifests), err)
	}
	spec := tbl.Metadata.SpecByID(manifests[0].PartitionSpecID)
	partType, err := tbl.PartitionType(spec)
	if err != nil {
		t.Fatal(err)
	}
	schema := tbl.Metadata.CurrentSchema()
	for filter, want := range map[string]bool{
		"event_time < '2020-01-01T08:00:00Z'":  false,
		"event_time < '2020-01-01T08:00:01Z'":  true,
		"event_time >= '2020-01-01T11:00:00Z'": false,
		"event_time > '2020-01-01T10:59:59Z'":  true,
		"action = 'apple'":                     false,
		"action = 'click'":                     true,
		"action > 'view'":                      false,
		"action is null":                       false,
		"id = 1":                               true,
	} {
		projected, err := expr.ProjectInclusive(bindFilter(t, schema, filter), spec, partType)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewManifestEvaluator(projected, partType)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.MightMatch(&manifests[0]); got != want {
			t.Errorf("%s (%s): might match %v, want %v", filter, projected, got, want)
		}
	}
}
