package table

import (
	"context"
	"slices"
	"testing"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/fixtures"
)

var fuzzTypes = []iceberg.Type{
	iceberg.IntType{}, iceberg.LongType{}, iceberg.FloatType{}, iceberg.DoubleType{},
	iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.DateType{}, iceberg.TimestampType{},
	iceberg.TimestamptzNsType{}, iceberg.StringType{}, iceberg.BinaryType{}, iceberg.FixedType{Length: 4},
	iceberg.UUIDType{}, iceberg.BooleanType{}, iceberg.TimeType{},
}

// FuzzPruneBounds feeds arbitrary bound bytes to the metrics and manifest
// evaluators. They must not panic, and a file (or manifest) whose bounds
// pin one value must never be ruled out for a predicate that value passes.
// Seeds are the bounds of the fixtures' data files.
func FuzzPruneBounds(f *testing.F) {
	all, err := fixtures.All()
	if err != nil {
		f.Fatal(err)
	}
	for _, fx := range all {
		tbl, err := Open(context.Background(), fx.Dir, Options{LocationMap: fx.LocationMap})
		if err != nil {
			f.Fatal(err)
		}
		plan, err := tbl.PlanFiles(context.Background(), SnapshotSelector{})
		if err != nil {
			f.Fatal(err)
		}
		for _, task := range plan.Tasks {
			for id, lo := range task.File.Metrics.Maps().LowerBounds {
				field, ok := plan.Schema.FindField(id)
				if !ok {
					continue
				}
				ti := slices.IndexFunc(fuzzTypes, func(t iceberg.Type) bool { return t == field.Type })
				if ti < 0 {
					continue
				}
				f.Add(uint8(ti), uint8(0), lo, task.File.Metrics.Maps().UpperBounds[id], lo)
				f.Add(uint8(ti), uint8(4), lo, lo, task.File.Metrics.Maps().UpperBounds[id])
			}
		}
	}
	f.Add(uint8(8), uint8(12), []byte("abc"), []byte("abd"), []byte("ab"))
	f.Fuzz(func(t *testing.T, typeIndex, opIndex uint8, lower, upper, literal []byte) {
		typ := fuzzTypes[int(typeIndex)%len(fuzzTypes)]
		op := expr.Op(int(opIndex) % 14)
		field := iceberg.NestedField{ID: 1, Name: "x", Type: typ}
		p := &expr.BoundPredicate{Op: op, FieldID: 1, Name: "x", Field: field}
		lit, err := iceberg.ValueFromBytes(typ, literal)
		if err != nil || isNaNValue(lit) {
			return
		}
		switch {
		case op.IsUnary():
			_, float := typ.(iceberg.FloatType)
			_, double := typ.(iceberg.DoubleType)
			if (op == expr.OpIsNaN || op == expr.OpNotNaN) && !float && !double {
				return
			}
		case op.IsSet():
			values := []any{lit}
			if v, err := iceberg.ValueFromBytes(typ, lower); err == nil && !isNaNValue(v) {
				values = append(values, v)
			}
			slices.SortFunc(values, func(a, b any) int { return iceberg.Compare(typ, a, b) })
			values = slices.CompactFunc(values, func(a, b any) bool { return iceberg.Compare(typ, a, b) == 0 })
			if len(values) < 2 {
				return
			}
			p.Values = values
		case op == expr.OpStartsWith || op == expr.OpNotStartsWith:
			s, ok := lit.(string)
			if !ok {
				return
			}
			p.Values = []any{s}
		default:
			p.Values = []any{lit}
		}
		metrics, err := NewMetricsEvaluator(p)
		if err != nil {
			t.Fatal(err)
		}
		partType := &iceberg.StructType{Fields: []iceberg.NestedField{{ID: 1, Name: "x", Type: typ}}}
		manifests, err := NewManifestEvaluator(p, partType)
		if err != nil {
			t.Fatal(err)
		}
		file := &manifest.DataFile{RecordCount: 1, Metrics: manifest.MetricsOf(manifest.MetricMaps{ValueCounts: map[int]int64{1: 1}, NullValueCounts: map[int]int64{1: 0},
			NaNValueCounts: map[int]int64{1: 0}, LowerBounds: map[int][]byte{1: lower}, UpperBounds: map[int][]byte{1: upper}})}
		noNaN := false
		mf := &manifest.ManifestFile{Partitions: []manifest.FieldSummary{{ContainsNaN: &noNaN, LowerBound: lower, UpperBound: upper}}}
		fileMay, manifestMay := metrics.MightMatch(file), manifests.MightMatch(mf)

		// Equal bounds pin the single value of a one-row file.
		if string(lower) != string(upper) {
			return
		}
		v, err := iceberg.ValueFromBytes(typ, lower)
		if err != nil || isNaNValue(v) {
			return
		}
		ev, err := expr.NewTupleEvaluator(p, partType)
		if err != nil {
			t.Fatal(err)
		}
		if ev.Eval([]any{v}) && (!fileMay || !manifestMay) {
			t.Fatalf("%s holds on %v, but the file (might match %v) or manifest (%v) was ruled out", p, v, fileMay, manifestMay)
		}
	})
}

func isNaNValue(v any) bool {
	switch x := v.(type) {
	case float32:
		return x != x
	case float64:
		return x != x
	}
	return false
}
