package testtable

import "github.com/floedb/floe/iceberg"

// Field ids of the standard schema (Schema), in schema order.
const (
	IDID = iota + 1
	IDInt
	IDLong
	IDDouble
	IDString
	IDDate
	IDTimestamp
	IDTimestamptz
	IDDecimal
	IDWideDecimal
	IDBool
)

// Schema is the standard test schema: a required unique long id and one
// optional column of each common primitive type.
//
//	id long (required, unique)   i int        l long (ascending: clustered)
//	d double (NaN, ±0, ±Inf)     s string     dt date
//	ts timestamp                 tstz timestamptz
//	dec decimal(9, 2) (INT32)    wdec decimal(28, 4) (FIXED_LEN_BYTE_ARRAY)
//	b boolean
func Schema() *iceberg.Schema {
	f := func(id int, name string, t iceberg.Type) iceberg.NestedField {
		return iceberg.NestedField{ID: id, Name: name, Type: t}
	}
	id := f(IDID, "id", iceberg.LongType{})
	id.Required = true
	return iceberg.NewSchema(0, []iceberg.NestedField{
		id,
		f(IDInt, "i", iceberg.IntType{}),
		f(IDLong, "l", iceberg.LongType{}),
		f(IDDouble, "d", iceberg.DoubleType{}),
		f(IDString, "s", iceberg.StringType{}),
		f(IDDate, "dt", iceberg.DateType{}),
		f(IDTimestamp, "ts", iceberg.TimestampType{}),
		f(IDTimestamptz, "tstz", iceberg.TimestamptzType{}),
		f(IDDecimal, "dec", iceberg.DecimalType{Precision: 9, Scale: 2}),
		f(IDWideDecimal, "wdec", iceberg.DecimalType{Precision: 28, Scale: 4}),
		f(IDBool, "b", iceberg.BooleanType{}),
	})
}
