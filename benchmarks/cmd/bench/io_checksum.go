package main

import (
	"fmt"
	"hash/crc32"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// rowDigest sums up every value a scan returned in a form that does not
// depend on the order of rows: each row's values are mixed into one hash
// and the hashes are added, so batches may come in any order, from any
// number of threads or processes, and their digests are simply added.
type rowDigest struct {
	Rows       int64   `json:"rows"`
	SumPartKey int64   `json:"sum_l_partkey"`
	Hash       rowHash `json:"row_hash"`
}

// rowHash is a sum of row hashes, written in JSON as 16 hex digits, as
// the report prints it.
type rowHash uint64

func (h rowHash) MarshalText() ([]byte, error) { return fmt.Appendf(nil, "%016x", uint64(h)), nil }

func (h *rowHash) UnmarshalText(b []byte) error {
	v, err := strconv.ParseUint(string(b), 16, 64)
	*h = rowHash(v)
	return err
}

func (d *rowDigest) merge(o rowDigest) {
	d.Rows += o.Rows
	d.SumPartKey += o.SumPartKey
	d.Hash += o.Hash
}

func (d rowDigest) String() string {
	return fmt.Sprintf("%d rows, sum(l_partkey) %d, row hash %016x", d.Rows, d.SumPartKey, uint64(d.Hash))
}

// Hash values of nulls and the seed of each row's hash: arbitrary odd
// constants.
const (
	nullValueHash = 0x5bd1e9955bd1e995
	rowHashSeed   = 0x9e3779b97f4a7c15
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// digester computes rowDigests batch by batch, reusing its buffers.
type digester struct {
	rows, values []uint64
}

// add folds a batch into d. Every column counts, in schema order; a column
// type it cannot hash is an error, so no column is silently left out.
func (g *digester) add(rec arrow.RecordBatch, d *rowDigest) error {
	n := int(rec.NumRows())
	g.rows = resize(g.rows, n)
	for i := range g.rows {
		g.rows[i] = rowHashSeed
	}
	for c, col := range rec.Columns() {
		g.values = resize(g.values, n)
		if err := valueHashes(col, g.values); err != nil {
			return fmt.Errorf("column %s: %w", rec.Schema().Field(c).Name, err)
		}
		for i, v := range g.values {
			g.rows[i] = mix64(g.rows[i]*31 + v)
		}
		if rec.Schema().Field(c).Name == "l_partkey" {
			d.SumPartKey += sumInt64(col)
		}
	}
	for _, h := range g.rows {
		d.Hash += rowHash(h)
	}
	d.Rows += int64(n)
	return nil
}

func resize(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

// mix64 is SplitMix64's finaliser: every input bit affects every output
// bit, so equal sums of row hashes mean equal rows with high probability.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// valueHashes writes a hash of each of col's values into dst.
func valueHashes(col arrow.Array, dst []uint64) error {
	switch a := col.(type) {
	case *array.Int64:
		for i, v := range a.Int64Values() {
			dst[i] = uint64(v)
		}
	case *array.Int32:
		for i, v := range a.Int32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Date32:
		for i, v := range a.Date32Values() {
			dst[i] = uint64(int64(v))
		}
	case *array.Float64:
		for i, v := range a.Float64Values() {
			dst[i] = math.Float64bits(v)
		}
	case *array.Float32:
		for i, v := range a.Float32Values() {
			dst[i] = uint64(math.Float32bits(v))
		}
	case *array.Decimal128:
		for i, v := range a.Values() {
			dst[i] = mix64(v.LowBits()) ^ uint64(v.HighBits())
		}
	case *array.Boolean:
		for i := range dst {
			if a.Value(i) {
				dst[i] = 1
			} else {
				dst[i] = 2
			}
		}
	case *array.String:
		hashBytes(a.ValueOffsets(), a.Data().Buffers()[2], dst)
	case *array.Binary:
		hashBytes(a.ValueOffsets(), a.Data().Buffers()[2], dst)
	case *array.LargeString:
		hashBytes(a.ValueOffsets(), a.Data().Buffers()[2], dst)
	case *array.Dictionary:
		dict := make([]uint64, a.Dictionary().Len())
		if err := valueHashes(a.Dictionary(), dict); err != nil {
			return err
		}
		for i := range dst {
			if a.IsValid(i) {
				dst[i] = dict[a.GetValueIndex(i)]
			}
		}
	default:
		return fmt.Errorf("no value hash for Arrow type %s", col.DataType())
	}
	if col.NullN() > 0 {
		for i := range dst {
			if col.IsNull(i) {
				dst[i] = nullValueHash
			}
		}
	}
	return nil
}

// hashBytes hashes the variable-length values that offsets (the array's
// own, its slice offset applied) cut out of data.
func hashBytes[O int32 | int64](offsets []O, data *memory.Buffer, dst []uint64) {
	var values []byte
	if data != nil {
		values = data.Bytes()
	}
	for i := range dst {
		dst[i] = bytesHash(values[offsets[i]:offsets[i+1]])
	}
}

// bytesHash is CRC-32C (hardware accelerated) with the length, so it
// allocates nothing and is the same in every process.
func bytesHash(b []byte) uint64 {
	return uint64(len(b))<<32 | uint64(crc32.Update(0, castagnoli, b))
}

func sumInt64(col arrow.Array) int64 {
	a, ok := col.(*array.Int64)
	if !ok {
		return 0
	}
	var s int64
	if a.NullN() == 0 {
		for _, v := range a.Int64Values() {
			s += v
		}
		return s
	}
	for i, v := range a.Int64Values() {
		if a.IsValid(i) {
			s += v
		}
	}
	return s
}

// countRecord is the light consumer of the timed scans: rows and
// sum(l_partkey), so the time is the reader's, not an aggregate's.
func countRecord(rec arrow.RecordBatch, sum *checksum) {
	sum.Rows += rec.NumRows()
	for i, f := range rec.Schema().Fields() {
		if f.Name == "l_partkey" {
			sum.SumPartKey += sumInt64(rec.Column(i))
		}
	}
}
