package parquet

import "fmt"

// PhysicalType is a Parquet storage type, numbered as in the format.
type PhysicalType int8

const (
	Boolean           PhysicalType = 0
	Int32             PhysicalType = 1
	Int64             PhysicalType = 2
	Int96             PhysicalType = 3
	Float             PhysicalType = 4
	Double            PhysicalType = 5
	ByteArray         PhysicalType = 6
	FixedLenByteArray PhysicalType = 7
	// NoPhysicalType marks group nodes.
	NoPhysicalType PhysicalType = -1
)

func (t PhysicalType) String() string {
	switch t {
	case Boolean:
		return "BOOLEAN"
	case Int32:
		return "INT32"
	case Int64:
		return "INT64"
	case Int96:
		return "INT96"
	case Float:
		return "FLOAT"
	case Double:
		return "DOUBLE"
	case ByteArray:
		return "BYTE_ARRAY"
	case FixedLenByteArray:
		return "FIXED_LEN_BYTE_ARRAY"
	case NoPhysicalType:
		return "GROUP"
	}
	return fmt.Sprintf("PhysicalType(%d)", int8(t))
}

// Repetition is a schema node's repetition, numbered as in the format.
type Repetition int8

const (
	Required Repetition = 0
	Optional Repetition = 1
	Repeated Repetition = 2
)

func (r Repetition) String() string {
	switch r {
	case Required:
		return "required"
	case Optional:
		return "optional"
	case Repeated:
		return "repeated"
	}
	return fmt.Sprintf("Repetition(%d)", int8(r))
}

// Encoding is a Parquet value or level encoding, numbered as in the format.
type Encoding int32

const (
	EncPlain                Encoding = 0
	EncPlainDictionary      Encoding = 2
	EncRLE                  Encoding = 3
	EncBitPacked            Encoding = 4
	EncDeltaBinaryPacked    Encoding = 5
	EncDeltaLengthByteArray Encoding = 6
	EncDeltaByteArray       Encoding = 7
	EncRLEDictionary        Encoding = 8
	EncByteStreamSplit      Encoding = 9
)

func (e Encoding) String() string {
	switch e {
	case EncPlain:
		return "PLAIN"
	case EncPlainDictionary:
		return "PLAIN_DICTIONARY"
	case EncRLE:
		return "RLE"
	case EncBitPacked:
		return "BIT_PACKED"
	case EncDeltaBinaryPacked:
		return "DELTA_BINARY_PACKED"
	case EncDeltaLengthByteArray:
		return "DELTA_LENGTH_BYTE_ARRAY"
	case EncDeltaByteArray:
		return "DELTA_BYTE_ARRAY"
	case EncRLEDictionary:
		return "RLE_DICTIONARY"
	case EncByteStreamSplit:
		return "BYTE_STREAM_SPLIT"
	}
	return fmt.Sprintf("Encoding(%d)", int32(e))
}

// Codec is a Parquet compression codec, numbered as in the format.
type Codec int32

const (
	CodecUncompressed Codec = 0
	CodecSnappy       Codec = 1
	CodecGzip         Codec = 2
	CodecLZO          Codec = 3
	CodecBrotli       Codec = 4
	CodecLZ4          Codec = 5 // the old Hadoop framing; not supported
	CodecZstd         Codec = 6
	CodecLZ4Raw       Codec = 7
)

func (c Codec) String() string {
	switch c {
	case CodecUncompressed:
		return "UNCOMPRESSED"
	case CodecSnappy:
		return "SNAPPY"
	case CodecGzip:
		return "GZIP"
	case CodecLZO:
		return "LZO"
	case CodecBrotli:
		return "BROTLI"
	case CodecLZ4:
		return "LZ4"
	case CodecZstd:
		return "ZSTD"
	case CodecLZ4Raw:
		return "LZ4_RAW"
	}
	return fmt.Sprintf("Codec(%d)", int32(c))
}

// ConvertedType is the legacy annotation, numbered as in the format.
type ConvertedType int8

const (
	ConvertedNone           ConvertedType = -1
	ConvertedUTF8           ConvertedType = 0
	ConvertedMap            ConvertedType = 1
	ConvertedMapKeyValue    ConvertedType = 2
	ConvertedList           ConvertedType = 3
	ConvertedEnum           ConvertedType = 4
	ConvertedDecimal        ConvertedType = 5
	ConvertedDate           ConvertedType = 6
	ConvertedTimeMillis     ConvertedType = 7
	ConvertedTimeMicros     ConvertedType = 8
	ConvertedTimestampMilli ConvertedType = 9
	ConvertedTimestampMicro ConvertedType = 10
	ConvertedUint8          ConvertedType = 11
	ConvertedUint16         ConvertedType = 12
	ConvertedUint32         ConvertedType = 13
	ConvertedUint64         ConvertedType = 14
	ConvertedInt8           ConvertedType = 15
	ConvertedInt16          ConvertedType = 16
	ConvertedInt32          ConvertedType = 17
	ConvertedInt64          ConvertedType = 18
	ConvertedJSON           ConvertedType = 19
	ConvertedBSON           ConvertedType = 20
	ConvertedInterval       ConvertedType = 21
)

// LogicalKind names a logical type annotation.
type LogicalKind int8

const (
	LogicalNone LogicalKind = iota
	LogicalString
	LogicalMap
	LogicalList
	LogicalEnum
	LogicalDecimal
	LogicalDate
	LogicalTime
	LogicalTimestamp
	LogicalInteger
	// LogicalUnknown is the format's UNKNOWN (always-null) annotation. On
	// a group it is the parquet-mr 1.10 MAP_KEY_VALUE bug (PARQUET-1879)
	// and is ignored there.
	LogicalUnknown
	LogicalJSON
	LogicalBSON
	LogicalUUID
	LogicalFloat16
	LogicalVariant
	LogicalGeometry
	LogicalGeography
	LogicalInterval
	// LogicalUnrecognized is an annotation this reader does not know; the
	// node is read by its physical type.
	LogicalUnrecognized
)

// TimeUnit is the unit of a TIME or TIMESTAMP annotation.
type TimeUnit int8

const (
	UnitNone TimeUnit = iota
	Millis
	Micros
	Nanos
)

func (u TimeUnit) String() string {
	switch u {
	case Millis:
		return "millis"
	case Micros:
		return "micros"
	case Nanos:
		return "nanos"
	}
	return "none"
}

// LogicalType is a node's effective annotation: the logical type when the
// file has a usable one, else the one implied by the legacy converted type.
type LogicalType struct {
	Kind LogicalKind
	// Decimal
	Precision, Scale int32
	// Time, Timestamp
	Unit          TimeUnit
	AdjustedToUTC bool
	// Integer
	BitWidth int8
	Signed   bool
}

func (l LogicalType) String() string {
	switch l.Kind {
	case LogicalNone:
		return "none"
	case LogicalString:
		return "STRING"
	case LogicalMap:
		return "MAP"
	case LogicalList:
		return "LIST"
	case LogicalEnum:
		return "ENUM"
	case LogicalDecimal:
		return fmt.Sprintf("DECIMAL(%d,%d)", l.Precision, l.Scale)
	case LogicalDate:
		return "DATE"
	case LogicalTime:
		return fmt.Sprintf("TIME(%s,utc=%v)", l.Unit, l.AdjustedToUTC)
	case LogicalTimestamp:
		return fmt.Sprintf("TIMESTAMP(%s,utc=%v)", l.Unit, l.AdjustedToUTC)
	case LogicalInteger:
		return fmt.Sprintf("INT(%d,signed=%v)", l.BitWidth, l.Signed)
	case LogicalUnknown:
		return "UNKNOWN"
	case LogicalJSON:
		return "JSON"
	case LogicalBSON:
		return "BSON"
	case LogicalUUID:
		return "UUID"
	case LogicalFloat16:
		return "FLOAT16"
	case LogicalVariant:
		return "VARIANT"
	case LogicalGeometry:
		return "GEOMETRY"
	case LogicalGeography:
		return "GEOGRAPHY"
	case LogicalInterval:
		return "INTERVAL"
	}
	return "UNRECOGNIZED"
}

// fromConverted gives the annotation a legacy converted type implies, for
// files that carry no logical type.
func fromConverted(c ConvertedType, precision, scale int32) LogicalType {
	switch c {
	case ConvertedUTF8:
		return LogicalType{Kind: LogicalString}
	case ConvertedMap:
		return LogicalType{Kind: LogicalMap}
	case ConvertedList:
		return LogicalType{Kind: LogicalList}
	case ConvertedEnum:
		return LogicalType{Kind: LogicalEnum}
	case ConvertedDecimal:
		return LogicalType{Kind: LogicalDecimal, Precision: precision, Scale: scale}
	case ConvertedDate:
		return LogicalType{Kind: LogicalDate}
	case ConvertedTimeMillis:
		return LogicalType{Kind: LogicalTime, Unit: Millis, AdjustedToUTC: true}
	case ConvertedTimeMicros:
		return LogicalType{Kind: LogicalTime, Unit: Micros, AdjustedToUTC: true}
	case ConvertedTimestampMilli:
		return LogicalType{Kind: LogicalTimestamp, Unit: Millis, AdjustedToUTC: true}
	case ConvertedTimestampMicro:
		return LogicalType{Kind: LogicalTimestamp, Unit: Micros, AdjustedToUTC: true}
	case ConvertedUint8:
		return LogicalType{Kind: LogicalInteger, BitWidth: 8}
	case ConvertedUint16:
		return LogicalType{Kind: LogicalInteger, BitWidth: 16}
	case ConvertedUint32:
		return LogicalType{Kind: LogicalInteger, BitWidth: 32}
	case ConvertedUint64:
		return LogicalType{Kind: LogicalInteger, BitWidth: 64}
	case ConvertedInt8:
		return LogicalType{Kind: LogicalInteger, BitWidth: 8, Signed: true}
	case ConvertedInt16:
		return LogicalType{Kind: LogicalInteger, BitWidth: 16, Signed: true}
	case ConvertedInt32:
		return LogicalType{Kind: LogicalInteger, BitWidth: 32, Signed: true}
	case ConvertedInt64:
		return LogicalType{Kind: LogicalInteger, BitWidth: 64, Signed: true}
	case ConvertedJSON:
		return LogicalType{Kind: LogicalJSON}
	case ConvertedBSON:
		return LogicalType{Kind: LogicalBSON}
	case ConvertedInterval:
		return LogicalType{Kind: LogicalInterval}
	}
	return LogicalType{}
}
