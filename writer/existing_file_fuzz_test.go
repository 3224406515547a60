package writer

import (
	"testing"

	"github.com/floedb/floe/iceberg"
)

// FuzzHiveValues reads partition directories out of arbitrary paths and
// parses each value as every type identity partitions take: an error or a
// value of the type, never a panic; a value parsed writes back to JSON.
func FuzzHiveValues(f *testing.F) {
	f.Add("s3://b/t/region=eu%2Fwest/day=2024-01-31/n=7/part-0.parquet")
	f.Add("/x/flag=true/price=12.50/id=__HIVE_DEFAULT_PARTITION__/f.parquet")
	f.Add("a=%zz/b=/=c/f")
	types := []iceberg.Type{iceberg.StringType{}, iceberg.IntType{}, iceberg.LongType{}, iceberg.BooleanType{},
		iceberg.DateType{}, iceberg.DoubleType{}, iceberg.DecimalType{Precision: 9, Scale: 2}, iceberg.TimestampType{}, iceberg.UUIDType{}}
	f.Fuzz(func(t *testing.T, path string) {
		for _, raw := range hiveValues(path) {
			for _, typ := range types {
				v, err := parseHiveValue(typ, raw)
				if err != nil || v == nil {
					continue
				}
				if _, err := iceberg.ValueToJSON(typ, v); err != nil {
					t.Fatalf("%s %q parsed to %v (%T), which does not write: %v", typ, raw, v, v, err)
				}
			}
		}
	})
}
