package iceberg

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Every partitioned file of every fixture table: the engine that wrote it
// put it in a directory named by its partition tuple, recorded the tuple in
// the manifest, and recorded the source column's bounds. All three must
// agree with floe's transforms and partition paths.
func TestFixturePartitionsAgreeWithTransformsAndPaths(t *testing.T) {
	checked := map[string]int{} // transform name → bound checks
	paths, nulls := 0, 0
	for _, f := range loadFixtureFiles(t) {
		if f.spec.IsUnpartitioned() {
			continue
		}
		partType, values := f.partitionTuple(t)

		dir := f.spec.PartitionPath(partType, values)
		if !strings.Contains(f.path, "/"+dir+"/") {
			t.Errorf("%s: partition %v gives directory %q, not in the file's path", f.path, values, dir)
		}
		paths++

		for i, pf := range f.spec.Fields {
			src := f.types[pf.SourceID]
			lo, hasLo := f.lower[pf.SourceID]
			hi, hasHi := f.upper[pf.SourceID]
			if values[i] == nil {
				if hasLo || hasHi {
					t.Errorf("%s: null partition %q but source bounds exist", f.path, pf.Name)
				}
				if n, ok := f.nullCounts[pf.SourceID]; ok && n != f.records {
					t.Errorf("%s: null partition %q but %d of %d source values are null", f.path, pf.Name, n, f.records)
				}
				nulls++
				continue
			}
			if !hasLo || !hasHi {
				continue // position delete files have bounds of their own columns only
			}
			for _, b := range [][]byte{lo, hi} {
				v, err := ValueFromBytes(src, b)
				if err != nil {
					t.Fatalf("%s: bound of %d: %v", f.path, pf.SourceID, err)
				}
				got, err := pf.Transform.Apply(src, v)
				if err != nil {
					t.Fatalf("%s: %s(%v): %v", f.path, pf.Transform, v, err)
				}
				if Compare(partType.Fields[i].Type, got, values[i]) != 0 {
					t.Errorf("%s: %s(%v) = %v, the manifest says %v", f.path, pf.Transform, v, got, values[i])
				}
			}
			checked[pf.Transform.String()]++
		}
	}
	t.Logf("bound checks %v, %d paths, %d null partitions", checked, paths, nulls)
	// impala_iceberg_partitioned has 20 files, impala_iceberg_timestamptz_part 6.
	if checked["hour"] != 26 {
		t.Errorf("checked the hour transform on %d files, want 26", checked["hour"])
	}
	if checked["identity"] < 30 || paths < 50 || nulls < 1 {
		t.Errorf("too few checks: %v, %d paths, %d null partitions", checked, paths, nulls)
	}
}

// impala_iceberg_timestamptz_part: the rows INDEX.md lists (in UTC), their
// hours, and the ts_hour= directories Hive wrote them to.
func TestHourOfTimestamptzPartRowsNamesItsDirectories(t *testing.T) {
	rows := []string{
		"1969-01-01 00:00:00", "1969-01-01 00:15:00", "2021-10-31 00:15:00", "2021-10-31 01:15:00",
		"2021-01-10 11:00:00", "2022-04-10 22:04:00", "2022-04-11 10:04:55",
	}
	var got []string
	for _, r := range rows {
		h, err := HourTransform{}.Apply(TimestamptzType{}, mustTimestamp(t, r, false))
		if err != nil {
			t.Fatal(err)
		}
		if s := "ts_hour=" + HumanString(HourTransform{}, IntType{}, h); !slices.Contains(got, s) {
			got = append(got, s)
		}
	}
	entries, err := os.ReadDir(filepath.Join(fixturesDir, "impala_iceberg_timestamptz_part", "data"))
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, e := range entries {
		want = append(want, e.Name())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("directories from the rows' hours %v, on disk %v", got, want)
	}
}

// impala_iceberg_partitioned: SHOW PARTITIONS in INDEX.md gives the hour
// ordinals, the data directory gives their human form.
func TestHumanHourOfShowPartitions(t *testing.T) {
	for ordinal, dir := range map[int32]string{
		438296: "event_time_hour=2020-01-01-08/action=view",
		438297: "event_time_hour=2020-01-01-09/action=click",
		438298: "event_time_hour=2020-01-01-10/action=download",
	} {
		if _, err := os.Stat(filepath.Join(fixturesDir, "impala_iceberg_partitioned", "data", dir)); err != nil {
			t.Fatal(err)
		}
		spec := &PartitionSpec{Fields: []PartitionField{
			{SourceID: 4, FieldID: 1000, Name: "event_time_hour", Transform: HourTransform{}},
			{SourceID: 3, FieldID: 1001, Name: "action", Transform: IdentityTransform{}},
		}}
		partType := &StructType{Fields: []NestedField{{ID: 1000, Type: IntType{}}, {ID: 1001, Type: StringType{}}}}
		action := dir[strings.LastIndex(dir, "=")+1:]
		if got := spec.PartitionPath(partType, []any{ordinal, action}); got != dir {
			t.Errorf("hour %d: path %q, want %q", ordinal, got, dir)
		}
	}
}

func TestHumanStringOfTransforms(t *testing.T) {
	cases := []struct {
		tf   Transform
		rt   Type
		v    any
		want string
	}{
		{YearTransform{}, IntType{}, int32(0), "1970"},
		{YearTransform{}, IntType{}, int32(-1), "1969"},
		{YearTransform{}, IntType{}, int32(50), "2020"},
		{MonthTransform{}, IntType{}, int32(0), "1970-01"},
		{MonthTransform{}, IntType{}, int32(-1), "1969-12"},
		{MonthTransform{}, IntType{}, int32(-12), "1969-01"},
		{MonthTransform{}, IntType{}, int32(601), "2020-02"},
		{DayTransform{}, DateType{}, int32(-1), "1969-12-31"},
		{DayTransform{}, IntType{}, int32(17486), "2017-11-16"}, // readers accept int day values
		{HourTransform{}, IntType{}, int32(-1), "1969-12-31-23"},
		{HourTransform{}, IntType{}, int32(-8760), "1969-01-01-00"},
		{VoidTransform{}, IntType{}, int32(3), "null"},
		{IdentityTransform{}, IntType{}, nil, "null"},
		{BucketTransform{N: 16}, IntType{}, int32(3), "3"},
		{TruncateTransform{Width: 3}, StringType{}, "ice", "ice"},
	}
	for _, c := range cases {
		if got := HumanString(c.tf, c.rt, c.v); got != c.want {
			t.Errorf("%s %v: %q, want %q", c.tf, c.v, got, c.want)
		}
	}
}

// Identity values print as Java's toString of the value would.
func TestHumanStringOfIdentityValues(t *testing.T) {
	u, _ := ParseUUID("f79c3e09-677c-4bbd-a479-3f349cb785e7")
	tm, _ := ParseTime("22:31:08")
	tmZero, _ := ParseTime("22:31:00")
	tmMillis, _ := ParseTime("22:31:08.5")
	tmMicros, _ := ParseTime("22:31:08.000123")
	cases := []struct {
		rt   Type
		v    any
		want string
	}{
		{BooleanType{}, true, "true"},
		{IntType{}, int32(-5), "-5"},
		{LongType{}, int64(9999999999), "9999999999"},
		{StringType{}, "a b/c", "a b/c"},
		{DateType{}, mustDate(t, "2024-03-20"), "2024-03-20"},
		{TimeType{}, tm, "22:31:08"},
		{TimeType{}, tmZero, "22:31"},
		{TimeType{}, tmMillis, "22:31:08.500"},
		{TimeType{}, tmMicros, "22:31:08.000123"},
		{TimestampType{}, mustTimestamp(t, "2020-01-01T09:00:00", false), "2020-01-01T09:00:00"},
		{TimestampType{}, mustTimestamp(t, "1969-12-31T23:59:59.123456", false), "1969-12-31T23:59:59.123456"},
		{TimestampType{}, mustTimestamp(t, "2020-01-01T09:00:00.5", false), "2020-01-01T09:00:00.5"},
		{TimestamptzType{}, mustTimestamp(t, "2017-11-16T14:31:08-08:00", false), "2017-11-16T22:31:08+00:00"},
		{TimestampNsType{}, mustTimestamp(t, "2017-11-16T22:31:08.000000001", true), "2017-11-16T22:31:08.000000001"},
		{TimestamptzNsType{}, mustTimestamp(t, "2017-11-16T22:31:08.1", true), "2017-11-16T22:31:08.1+00:00"},
		{UUIDType{}, u, "f79c3e09-677c-4bbd-a479-3f349cb785e7"},
		{BinaryType{}, []byte{0xde, 0xad, 0xbe, 0xef}, "3q2+7w=="},
		{FixedType{Length: 2}, []byte{0, 1}, "AAE="},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "14.20", 2), "14.20"},
		{DecimalType{Precision: 9, Scale: 2}, mustDecimal(t, "-0.05", 2), "-0.05"},
		{DecimalType{Precision: 20, Scale: 10}, mustDecimal(t, "0", 10), "0E-10"},
		{DecimalType{Precision: 20, Scale: 8}, mustDecimal(t, "0.00000012", 8), "1.2E-7"},
		{DecimalType{Precision: 20, Scale: 7}, mustDecimal(t, "0.0000012", 7), "0.0000012"},
		{FloatType{}, float32(1), "1.0"},
		{FloatType{}, float32(3.14), "3.14"},
		{FloatType{}, float32(1e10), "1.0E10"},
		{DoubleType{}, 2.5e-5, "2.5E-5"},
		{DoubleType{}, 0.001, "0.001"},
		{DoubleType{}, 1234567.0, "1234567.0"},
		{DoubleType{}, 12345678.9, "1.23456789E7"},
		{DoubleType{}, math.Copysign(0, -1), "-0.0"},
		{DoubleType{}, math.NaN(), "NaN"},
		{DoubleType{}, math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		if got := HumanString(IdentityTransform{}, c.rt, c.v); got != c.want {
			t.Errorf("%v %v: %q, want %q", c.rt, c.v, got, c.want)
		}
	}
}

// Names and values are escaped as java.net.URLEncoder does.
func TestPartitionPathEscapesLikeURLEncoder(t *testing.T) {
	spec := &PartitionSpec{Fields: []PartitionField{
		{SourceID: 1, FieldID: 1000, Name: "a b", Transform: IdentityTransform{}},
		{SourceID: 2, FieldID: 1001, Name: "ts", Transform: IdentityTransform{}},
		{SourceID: 3, FieldID: 1002, Name: "bin", Transform: IdentityTransform{}},
		{SourceID: 4, FieldID: 1003, Name: "n", Transform: IdentityTransform{}},
	}}
	partType := &StructType{Fields: []NestedField{
		{ID: 1000, Type: StringType{}}, {ID: 1001, Type: TimestamptzType{}},
		{ID: 1002, Type: BinaryType{}}, {ID: 1003, Type: StringType{}},
	}}
	values := []any{"x/y=z&*~.-_é", mustTimestamp(t, "2020-01-01T09:00:00Z", false), []byte{0xfb, 0xff}, nil}
	want := "a+b=x%2Fy%3Dz%26*%7E.-_%C3%A9/ts=2020-01-01T09%3A00%3A00%2B00%3A00/bin=%2B%2F8%3D/n=null"
	if got := spec.PartitionPath(partType, values); got != want {
		t.Errorf("path %q,\nwant %q", got, want)
	}
	// A short tuple reads as nulls.
	if got := spec.PartitionPath(partType, nil); got != "a+b=null/ts=null/bin=null/n=null" {
		t.Errorf("path of an empty tuple: %q", got)
	}
}
