package writer

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

// partitionSource is one non-void field of the spec bound to the leaf
// column it derives from.
type partitionSource struct {
	position   int // in the spec
	field      iceberg.PartitionField
	leaf       int // index into fileSchema.leaves
	sourceType iceberg.Type
	resultType iceberg.Type
	nanos      bool // the source is a nanosecond timestamp
	// per batch
	arrays []arrow.Array
	steps  []levelStep
	data   leafData
	result partitionColumn
}

// partitionColumn is one partition field's values for a batch's rows:
// numbers (ints, dates, hours, buckets, identity longs, float bits) or
// bytes (strings, binary, fixed, uuid, decimals as 16 big-endian bytes).
type partitionColumn struct {
	null  []bool
	num   []int64
	bytes [][]byte
	// scratch holds bytes computed here rather than found in Arrow.
	scratch []byte
}

func (s *partitionSource) isBytes() bool {
	switch s.resultType.(type) {
	case iceberg.StringType, iceberg.BinaryType, iceberg.FixedType, iceberg.UUIDType, iceberg.DecimalType:
		return true
	}
	return false
}

// newPartitionSources binds a spec's fields to the schema's leaves.
func newPartitionSources(spec *iceberg.PartitionSpec, schema *iceberg.Schema, fs *fileSchema) ([]*partitionSource, error) {
	var out []*partitionSource
	for i, pf := range spec.Fields {
		if _, void := pf.Transform.(iceberg.VoidTransform); void {
			continue
		}
		s, err := newTransformSource(pf, schema, fs, fmt.Sprintf("partition field %q", pf.Name))
		if err != nil {
			return nil, err
		}
		s.position = i
		out = append(out, s)
	}
	return out, nil
}

// newTransformSource binds a transform of a source column (a partition
// field, or a sort field as one) to the leaf it derives from; what names
// the field in errors.
func newTransformSource(pf iceberg.PartitionField, schema *iceberg.Schema, fs *fileSchema, what string) (*partitionSource, error) {
	if _, unknown := pf.Transform.(iceberg.UnknownTransform); unknown {
		return nil, errkind.Errorf(errkind.Unsupported, "%s: transform %q is unknown, so rows cannot be %s by it", what, pf.Transform, verbOf(what))
	}
	src, ok := schema.FindField(pf.SourceID)
	if !ok {
		return nil, errkind.Errorf(errkind.InvalidArgument, "%s: source column %d is not in the schema", what, pf.SourceID)
	}
	rt, err := pf.Transform.ResultType(src.Type)
	if err != nil {
		return nil, errkind.Errorf(errkind.InvalidArgument, "%s: %w", what, err)
	}
	leaf := -1
	for li, l := range fs.leaves {
		if l.field.ID == pf.SourceID {
			leaf = li
		}
	}
	if leaf < 0 || fs.leaves[leaf].inRepeated {
		return nil, errkind.Errorf(errkind.InvalidArgument, "%s: source column %q must be a primitive outside lists and maps", what, src.Name)
	}
	nanos := src.Type == (iceberg.TimestampNsType{}) || src.Type == (iceberg.TimestamptzNsType{})
	return &partitionSource{field: pf, leaf: leaf, sourceType: src.Type, resultType: rt, nanos: nanos}, nil
}

func verbOf(what string) string {
	if strings.HasPrefix(what, "sort") {
		return "sorted"
	}
	return "partitioned"
}

// bind points the source at a batch's columns.
func (s *partitionSource) bind(rec arrow.RecordBatch, fs *fileSchema, b *batchBinding) error {
	leaf := fs.leaves[s.leaf]
	lb := &b.leaves[s.leaf]
	var err error
	if s.arrays, err = leafArrays(s.arrays, rec, leaf, lb); err != nil {
		return err
	}
	if s.steps, err = bindSteps(s.steps, leaf, s.arrays); err != nil {
		return err
	}
	s.data.conv, s.data.scale, s.data.decBytes = lb.conv, lb.scale, lb.decBytes
	return bindLeafData(&s.data, leaf, s.arrays[len(s.arrays)-1])
}

// compute fills s.result for rows (rows[k], or first+k when rows is nil).
func (s *partitionSource) compute(rows []int32, first, n int) error {
	c := &s.result
	c.null = grow(c.null, n)
	if s.isBytes() {
		c.bytes = grow(c.bytes, n)
		c.scratch = c.scratch[:0]
		if _, ok := s.sourceType.(iceberg.DecimalType); ok {
			c.scratch = grow(c.scratch, 16*n)[:0]
		}
	} else {
		c.num = grow(c.num, n)
	}
	d := &s.data
	for k := 0; k < n; k++ {
		r := first + k
		if rows != nil {
			r = int(rows[k])
		}
		null := false
		for i := range s.steps {
			if s.steps[i].isNull(r) {
				null = true
				break
			}
		}
		c.null[k] = null
		if null {
			continue
		}
		if err := s.computeOne(c, k, d, r); err != nil {
			return fmt.Errorf("partition field %q: %w", s.field.Name, err)
		}
	}
	return nil
}

// computeOne applies the transform to the source value at index r into
// slot k, with the unboxed kernels of package iceberg.
func (s *partitionSource) computeOne(c *partitionColumn, k int, d *leafData, r int) error {
	switch t := s.field.Transform.(type) {
	case iceberg.IdentityTransform:
		switch d.conv {
		case convBool:
			c.num[k] = 0
			if bitIsSet(d.bits, d.bitsOff+r) {
				c.num[k] = 1
			}
		case convInt32:
			c.num[k] = int64(d.i32[r])
		case convInt64:
			v, err := scaled(d, r)
			if err != nil {
				return err
			}
			c.num[k] = v
		case convFloat:
			f := d.f32[r]
			if f != f {
				f = float32(math.NaN())
			}
			c.num[k] = int64(math.Float32bits(f))
		case convDouble:
			f := d.f64[r]
			if f != f {
				f = math.NaN()
			}
			c.num[k] = int64(math.Float64bits(f))
		case convBinary, convLargeBinary, convFixed:
			c.bytes[k] = d.bytesAt(r)
		default:
			c.bytes[k] = c.appendDecimal(iceberg.Decimal{Hi: d.dec[r].HighBits(), Lo: d.dec[r].LowBits()})
		}
	case iceberg.BucketTransform:
		var h int32
		switch d.conv {
		case convInt32:
			h = iceberg.BucketHashLong(int64(d.i32[r]))
		case convInt64:
			v, err := scaled(d, r)
			if err != nil {
				return err
			}
			if s.nanos {
				h = iceberg.BucketHashNanos(v)
			} else {
				h = iceberg.BucketHashLong(v)
			}
		case convBinary, convLargeBinary, convFixed:
			h = iceberg.BucketHashBytes(d.bytesAt(r))
		case convDecimalInt32, convDecimalInt64, convDecimalFixed:
			var buf [16]byte
			h = iceberg.BucketHashBytes(iceberg.DecimalMinimalBytes(&buf, iceberg.Decimal{Hi: d.dec[r].HighBits(), Lo: d.dec[r].LowBits()}))
		default:
			return fmt.Errorf("%s cannot apply to %s", t, s.sourceType)
		}
		c.num[k] = int64(iceberg.BucketIndex(h, t.N))
	case iceberg.TruncateTransform:
		switch d.conv {
		case convInt32, convInt64:
			var v int64
			if d.conv == convInt32 {
				v = int64(d.i32[r])
			} else {
				v = d.i64[r]
			}
			tv, ok := iceberg.TruncateInt64(v, t.Width)
			if !ok || (d.conv == convInt32 && tv < math.MinInt32) {
				return fmt.Errorf("%s of %d is out of the %s range", t, v, s.sourceType)
			}
			c.num[k] = tv
		case convBinary, convLargeBinary:
			b := d.bytesAt(r)
			if _, isString := s.sourceType.(iceberg.StringType); isString {
				if len(b) > 0 {
					b = b[:len(iceberg.TruncateString(unsafe.String(&b[0], len(b)), t.Width))]
				}
			} else if len(b) > t.Width {
				b = b[:t.Width]
			}
			c.bytes[k] = b
		case convDecimalInt32, convDecimalInt64, convDecimalFixed:
			scale := s.sourceType.(iceberg.DecimalType).Scale
			v, err := t.Apply(s.sourceType, iceberg.Decimal{Hi: d.dec[r].HighBits(), Lo: d.dec[r].LowBits(), Scale: scale})
			if err != nil {
				return err
			}
			c.bytes[k] = c.appendDecimal(v.(iceberg.Decimal))
		default:
			return fmt.Errorf("%s cannot apply to %s", t, s.sourceType)
		}
	case iceberg.YearTransform, iceberg.MonthTransform, iceberg.DayTransform, iceberg.HourTransform:
		return s.computeTemporal(c, k, d, r)
	default:
		return errkind.Errorf(errkind.Unsupported, "transform %s is not supported", t)
	}
	return nil
}

func (s *partitionSource) computeTemporal(c *partitionColumn, k int, d *leafData, r int) error {
	var days int64
	switch d.conv {
	case convInt32: // date
		days = int64(d.i32[r])
	case convInt64:
		v, err := scaled(d, r)
		if err != nil {
			return err
		}
		if _, hour := s.field.Transform.(iceberg.HourTransform); hour {
			h, ok := iceberg.TimestampHours(v, s.nanos)
			if !ok {
				return fmt.Errorf("hour of %s value %d is out of the int range", s.sourceType, v)
			}
			c.num[k] = int64(h)
			return nil
		}
		days = iceberg.TimestampDays(v, s.nanos)
	default:
		return fmt.Errorf("%s cannot apply to %s", s.field.Transform, s.sourceType)
	}
	switch s.field.Transform.(type) {
	case iceberg.YearTransform:
		c.num[k] = int64(iceberg.YearOfDays(days))
	case iceberg.MonthTransform:
		c.num[k] = int64(iceberg.MonthOfDays(days))
	case iceberg.DayTransform:
		if days < math.MinInt32 || days > math.MaxInt32 {
			return fmt.Errorf("day of %s value is out of the date range", s.sourceType)
		}
		c.num[k] = days
	default:
		return fmt.Errorf("hour transform cannot apply to %s", s.sourceType)
	}
	return nil
}

// scaled is the int64 value at r in the column's Iceberg unit.
func scaled(d *leafData, r int) (int64, error) {
	v := d.i64[r]
	if d.scale != 1 {
		if v > math.MaxInt64/d.scale || v < math.MinInt64/d.scale {
			return 0, fmt.Errorf("timestamp %d overflows when converted to the column's unit", v)
		}
		v *= d.scale
	}
	return v, nil
}

// appendDecimal stores a decimal's 16 big-endian bytes in the scratch.
func (c *partitionColumn) appendDecimal(d iceberg.Decimal) []byte {
	start := len(c.scratch)
	c.scratch = binary.BigEndian.AppendUint64(c.scratch, uint64(d.Hi))
	c.scratch = binary.BigEndian.AppendUint64(c.scratch, d.Lo)
	return c.scratch[start:len(c.scratch):len(c.scratch)]
}

// appendKey appends slot k's part of a row's partition key.
func (s *partitionSource) appendKey(key []byte, k int) []byte {
	c := &s.result
	if c.null[k] {
		return append(key, 0)
	}
	if s.isBytes() {
		key = append(key, 1)
		key = binary.AppendUvarint(key, uint64(len(c.bytes[k])))
		return append(key, c.bytes[k]...)
	}
	key = append(key, 1)
	return binary.LittleEndian.AppendUint64(key, uint64(c.num[k]))
}

// value is slot k as the canonical value of the result type (copied out of
// Arrow memory).
func (s *partitionSource) value(k int) any {
	c := &s.result
	if c.null[k] {
		return nil
	}
	switch rt := s.resultType.(type) {
	case iceberg.BooleanType:
		return c.num[k] != 0
	case iceberg.IntType, iceberg.DateType:
		return int32(c.num[k])
	case iceberg.LongType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
		iceberg.TimestampNsType, iceberg.TimestamptzNsType:
		return c.num[k]
	case iceberg.FloatType:
		return math.Float32frombits(uint32(c.num[k]))
	case iceberg.DoubleType:
		return math.Float64frombits(uint64(c.num[k]))
	case iceberg.StringType:
		return string(c.bytes[k])
	case iceberg.UUIDType:
		return [16]byte(c.bytes[k])
	case iceberg.FixedType, iceberg.BinaryType:
		return append([]byte{}, c.bytes[k]...)
	case iceberg.DecimalType:
		b := c.bytes[k]
		return iceberg.Decimal{Hi: int64(binary.BigEndian.Uint64(b[:8])), Lo: binary.BigEndian.Uint64(b[8:]), Scale: rt.Scale}
	}
	return nil
}

func bitIsSet(bits []byte, i int) bool { return bits[i>>3]&(1<<(i&7)) != 0 }
