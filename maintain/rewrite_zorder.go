package maintain

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/writer"
)

// Z-order and Hilbert compaction (Strategy "zorder", Java's sort_order =>
// 'zorder(c1, c2)'): each chosen column's value is mapped to 64 bits
// whose unsigned order is the value's order (ints and longs with the sign
// bit flipped, floats by their total order, strings and binary by their
// first 8 bytes zero-padded, as Java's ZOrderByteUtils with its default
// 8-byte contribution; nulls as 0, first), the columns' bits are
// interleaved most significant first (column 0's top bit, column 1's top
// bit, …), and rows are sorted by that n×64-bit key. Rows close in every
// chosen column land in the same files, so the files' bounds of each
// column overlap less than in the order rows arrived. The key is computed
// column by column from the Arrow buffers and the rows are ordered by an
// LSD radix sort of the key words; the permutation goes to the writer
// (writer.Options.RowOrder), which gathers rows by index as for a sort
// order. Files record no sort order id: the z-order is none of the
// table's sort orders (Java writes its z-order rewrite's files unsorted,
// order id 0).
//
// Strategy "hilbert" (iceberg-go's) orders by the Hilbert index of the
// same per-column keys instead: Skilling's transform turns the keys of a
// row into the "transposed" index, whose interleaved bits are the
// Hilbert index, so the same interleave and radix sort follow. Rows next
// in Hilbert order are next in space (the Z curve jumps at each level),
// so a file's rows span tighter ranges at the same cost.

// checkZOrderColumns refuses z-order columns that are not top-level
// primitive columns of the schema that have an order (InvalidArgument
// naming the column), and an empty or repeated list.
func checkZOrderColumns(schema *iceberg.Schema, cols []string) error {
	if len(cols) == 0 {
		return errkind.New(errkind.InvalidArgument, "rewrite data files: the zorder strategy needs zorder columns")
	}
	seen := map[string]bool{}
	for _, name := range cols {
		if seen[name] {
			return errkind.Errorf(errkind.InvalidArgument, "rewrite data files: zorder column %q is given twice", name)
		}
		seen[name] = true
		var f *iceberg.NestedField
		for i := range schema.Fields {
			if schema.Fields[i].Name == name {
				f = &schema.Fields[i]
			}
		}
		if f == nil {
			return errkind.Errorf(errkind.InvalidArgument, "rewrite data files: zorder column %q is not a top-level column of the table", name)
		}
		switch f.Type.(type) {
		case iceberg.BooleanType, iceberg.IntType, iceberg.LongType, iceberg.FloatType, iceberg.DoubleType,
			iceberg.DateType, iceberg.TimeType, iceberg.TimestampType, iceberg.TimestamptzType,
			iceberg.TimestampNsType, iceberg.TimestamptzNsType, iceberg.StringType, iceberg.BinaryType,
			iceberg.FixedType, iceberg.UUIDType, iceberg.DecimalType:
		default:
			return errkind.Errorf(errkind.InvalidArgument, "rewrite data files: zorder column %q is %s, not an ordered primitive", name, f.Type)
		}
	}
	return nil
}

// curveColumns checks the columns (checkZOrderColumns) and drops those
// the table's current spec partitions by identity, constant within a
// file group, as Java does; none left is InvalidArgument.
func curveColumns(schema *iceberg.Schema, spec *iceberg.PartitionSpec, cols []string) ([]string, error) {
	if err := checkZOrderColumns(schema, cols); err != nil {
		return nil, err
	}
	identity := map[int]bool{}
	if spec != nil {
		for _, f := range spec.Fields {
			if _, ok := f.Transform.(iceberg.IdentityTransform); ok {
				identity[f.SourceID] = true
			}
		}
	}
	var kept []string
	for _, name := range cols {
		if f, _ := schema.FindFieldByName(name); !identity[f.ID] {
			kept = append(kept, name)
		}
	}
	if len(kept) == 0 {
		return nil, errkind.Errorf(errkind.InvalidArgument, "rewrite data files: zorder columns %v are all identity partition columns, constant within a partition", cols)
	}
	return kept, nil
}

// zorderRowOrder is the writer's row order for the z-order of cols, or
// with hilbert their Hilbert order. It keys the whole batch on each call
// (the writer calls once per partition of a batch): a compaction group is
// one partition, so once per batch there.
func zorderRowOrder(cols []string, hilbert bool) writer.RowOrderFunc {
	return func(rec arrow.RecordBatch, rows []int32) error {
		keys := make([][]uint64, len(cols))
		for i, name := range cols {
			idx := rec.Schema().FieldIndices(name)
			if len(idx) != 1 {
				return errkind.Errorf(errkind.InvalidArgument, "zorder: the batch has no column %q", name)
			}
			k, err := orderedKeys(rec.Column(idx[0]))
			if err != nil {
				return errkind.Errorf(errkind.Unsupported, "zorder column %q: %v", name, err)
			}
			keys[i] = k
		}
		if hilbert {
			hilbertTranspose(keys)
		}
		sortByWords(rows, interleave(keys, rows))
		return nil
	}
}

// orderedKeys maps each value of a column to 64 bits whose unsigned order
// is the values' order (nulls 0).
func orderedKeys(a arrow.Array) ([]uint64, error) {
	n := a.Len()
	out := make([]uint64, n)
	const sign = 1 << 63
	switch c := a.(type) {
	case *array.Int8:
		for i, v := range c.Int8Values() {
			out[i] = uint64(int64(v)) ^ sign
		}
	case *array.Int16:
		for i, v := range c.Int16Values() {
			out[i] = uint64(int64(v)) ^ sign
		}
	case *array.Int32:
		for i, v := range c.Int32Values() {
			out[i] = uint64(int64(v)) ^ sign
		}
	case *array.Int64:
		for i, v := range c.Int64Values() {
			out[i] = uint64(v) ^ sign
		}
	case *array.Date32:
		for i, v := range c.Date32Values() {
			out[i] = uint64(int64(v)) ^ sign
		}
	case *array.Time64:
		for i, v := range c.Time64Values() {
			out[i] = uint64(v) ^ sign
		}
	case *array.Timestamp:
		for i, v := range c.TimestampValues() {
			out[i] = uint64(v) ^ sign
		}
	case *array.Float32:
		for i, v := range c.Float32Values() {
			out[i] = orderedFloat(float64(v))
		}
	case *array.Float64:
		for i, v := range c.Float64Values() {
			out[i] = orderedFloat(v)
		}
	case *array.Boolean:
		for i := range n {
			if c.Value(i) {
				out[i] = sign
			}
		}
	case *array.Decimal128:
		// The high word, sign flipped: its order is the values' order
		// except among values it ties (a prefix, as strings').
		for i, v := range c.Values() {
			out[i] = uint64(v.HighBits()) ^ sign
		}
	case *array.String:
		for i := range n {
			out[i] = prefix8(c.Value(i))
		}
	case *array.LargeString:
		for i := range n {
			out[i] = prefix8(c.Value(i))
		}
	case *array.Binary:
		for i := range n {
			out[i] = prefix8(c.Value(i))
		}
	case *array.LargeBinary:
		for i := range n {
			out[i] = prefix8(c.Value(i))
		}
	case *array.FixedSizeBinary:
		for i := range n {
			out[i] = prefix8(c.Value(i))
		}
	case *array.Dictionary:
		dict, err := orderedKeys(c.Dictionary())
		if err != nil {
			return nil, err
		}
		for i := range n {
			if c.IsValid(i) {
				out[i] = dict[c.GetValueIndex(i)]
			}
		}
	default:
		return nil, errkind.Errorf(errkind.Unsupported, "no z-order key for Arrow type %s", a.DataType())
	}
	if a.NullN() > 0 {
		for i := range n {
			if a.IsNull(i) {
				out[i] = 0
			}
		}
	}
	return out, nil
}

// orderedFloat maps a float so unsigned order is its order (-Inf < … <
// -0 < 0 < … < Inf; NaN last).
func orderedFloat(v float64) uint64 {
	if v != v {
		return math.MaxUint64
	}
	b := math.Float64bits(v)
	if b&(1<<63) != 0 {
		return ^b
	}
	return b | 1<<63
}

// prefix8 is the first 8 bytes big-endian, zero-padded.
func prefix8[B []byte | string](b B) uint64 {
	var pad [8]byte
	copy(pad[:], b)
	return binary.BigEndian.Uint64(pad[:])
}

// interleave returns the z-order keys of rows (by position in rows):
// len(keys) words per row, most significant first, word w of row j at
// out[w][j]. Bit k (from the top) of the key is bit k/n of column k%n.
func interleave(keys [][]uint64, rows []int32) [][]uint64 {
	n := len(keys)
	out := make([][]uint64, n)
	for w := range out {
		out[w] = make([]uint64, len(rows))
	}
	if n == 1 {
		for j, r := range rows {
			out[0][j] = keys[0][r]
		}
		return out
	}
	if n == 2 {
		a, b := keys[0], keys[1]
		for j, r := range rows {
			x, y := a[r], b[r]
			out[0][j] = spread(uint32(x>>32))<<1 | spread(uint32(y>>32))
			out[1][j] = spread(uint32(x))<<1 | spread(uint32(y))
		}
		return out
	}
	for j, r := range rows {
		for k := range 64 * n {
			col, bit := k%n, 63-k/n
			if keys[col][r]>>bit&1 != 0 {
				out[k/64][j] |= 1 << (63 - k%64)
			}
		}
	}
	return out
}

// spread puts the bits of x at the even positions of a 64-bit word.
func spread(x uint32) uint64 {
	v := uint64(x)
	v = (v | v<<16) & 0x0000FFFF0000FFFF
	v = (v | v<<8) & 0x00FF00FF00FF00FF
	v = (v | v<<4) & 0x0F0F0F0F0F0F0F0F
	v = (v | v<<2) & 0x3333333333333333
	v = (v | v<<1) & 0x5555555555555555
	return v
}

// sortByWords reorders rows by their keys (words[w][j] for rows[j], most
// significant word first), stably: an LSD radix sort, a pass per byte in
// which the keys differ.
func sortByWords(rows []int32, words [][]uint64) {
	if len(rows) < 2 {
		return
	}
	pos := make([]int32, len(rows)) // positions into rows, permuted
	tmp := make([]int32, len(rows))
	for i := range pos {
		pos[i] = int32(i)
	}
	for w := len(words) - 1; w >= 0; w-- {
		word := words[w]
		var diff uint64
		for _, v := range word {
			diff |= v ^ word[0]
		}
		for shift := 0; shift < 64; shift += 8 {
			if diff>>shift&0xff == 0 {
				continue // every key has this byte
			}
			var counts [256]int
			for _, p := range pos {
				counts[byte(word[p]>>shift)]++
			}
			at := 0
			for b, c := range counts {
				counts[b] = at
				at += c
			}
			for _, p := range pos {
				d := byte(word[p] >> shift)
				tmp[counts[d]] = p
				counts[d]++
			}
			pos, tmp = tmp, pos
		}
	}
	orig := append([]int32(nil), rows...)
	for i, p := range pos {
		rows[i] = orig[p]
	}
}

// hilbertTranspose replaces each row's keys (keys[c][row]) with the
// transposed Hilbert index of the point (Skilling, "Programming the
// Hilbert curve", 2004, AxesToTranspose over 64-bit axes): interleaving
// it gives the Hilbert index. With one column the index is the key.
func hilbertTranspose(keys [][]uint64) {
	n := len(keys)
	if n < 2 {
		return
	}
	x := make([]uint64, n)
	for r := range keys[0] {
		for c := range x {
			x[c] = keys[c][r]
		}
		for q := uint64(1) << 63; q > 1; q >>= 1 {
			p := q - 1
			for i := range x {
				if x[i]&q != 0 {
					x[0] ^= p // invert the low bits
				} else {
					t := (x[0] ^ x[i]) & p // exchange the low bits
					x[0] ^= t
					x[i] ^= t
				}
			}
		}
		for i := 1; i < n; i++ { // Gray encode
			x[i] ^= x[i-1]
		}
		var t uint64
		for q := uint64(1) << 63; q > 1; q >>= 1 {
			if x[n-1]&q != 0 {
				t ^= q - 1
			}
		}
		for c := range x {
			keys[c][r] = x[c] ^ t
		}
	}
}
