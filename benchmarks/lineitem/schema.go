package lineitem

import "github.com/floedb/floe/iceberg"

// Field ids of the table's columns, in file order.
const (
	IDOrderKey = iota + 1
	IDPartKey
	IDSuppKey
	IDQuantity
	IDExtendedPrice
	IDDiscount
	IDReturnFlag
	IDShipDate
	IDComment
	lastColumnID = IDComment
)

// QuantityScale is l_quantity's decimal scale: decimal(15, 2), stored as
// INT64 unscaled values as Spark writes decimals of precision ≤ 18.
const QuantityScale = 2

// Schema is the table's Iceberg schema. Columns are optional, as Spark
// creates them, although the generator writes no nulls.
func Schema() *iceberg.Schema {
	f := func(id int, name string, t iceberg.Type) iceberg.NestedField {
		return iceberg.NestedField{ID: id, Name: name, Type: t}
	}
	return iceberg.NewSchema(0, []iceberg.NestedField{
		f(IDOrderKey, "l_orderkey", iceberg.LongType{}),
		f(IDPartKey, "l_partkey", iceberg.LongType{}),
		f(IDSuppKey, "l_suppkey", iceberg.LongType{}),
		f(IDQuantity, "l_quantity", iceberg.DecimalType{Precision: 15, Scale: QuantityScale}),
		f(IDExtendedPrice, "l_extendedprice", iceberg.DoubleType{}),
		f(IDDiscount, "l_discount", iceberg.DoubleType{}),
		f(IDReturnFlag, "l_returnflag", iceberg.StringType{}),
		f(IDShipDate, "l_shipdate", iceberg.DateType{}),
		f(IDComment, "l_comment", iceberg.StringType{}),
	})
}

// Row is one row as parquet-go sees it. Its tags define the Parquet schema
// (names, field ids, logical types, dictionary encoding); the generator
// writes columns directly, and the parquet-go peer of the benchmark reads
// rows into it. As Spark's writer (parquet-mr, writer version 1) leaves
// such data: low-cardinality columns dictionary encoded, the others
// PLAIN, strings included (parquet-go would pick DELTA_LENGTH_BYTE_ARRAY).
type Row struct {
	OrderKey      int64   `parquet:"l_orderkey,id(1),optional"`
	PartKey       int64   `parquet:"l_partkey,id(2),optional"`
	SuppKey       int64   `parquet:"l_suppkey,id(3),optional"`
	Quantity      int64   `parquet:"l_quantity,id(4),optional,decimal(2:15),dict"`
	ExtendedPrice float64 `parquet:"l_extendedprice,id(5),optional"`
	Discount      float64 `parquet:"l_discount,id(6),optional,dict"`
	ReturnFlag    string  `parquet:"l_returnflag,id(7),optional,dict"`
	ShipDate      int32   `parquet:"l_shipdate,id(8),optional,date,dict"`
	Comment       string  `parquet:"l_comment,id(9),optional,plain"`
}

// ColumnNames are the table's column names in file order.
var ColumnNames = []string{
	"l_orderkey", "l_partkey", "l_suppkey", "l_quantity", "l_extendedprice",
	"l_discount", "l_returnflag", "l_shipdate", "l_comment",
}
