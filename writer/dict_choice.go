package writer

import (
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/floedb/floe/iceberg"
)

// Dictionary or PLAIN, per column, decided once per writer from the first
// batch it writes a file of.
//
// A chunk dictionary-encodes a column until its dictionary passes
// DictionarySize and only then falls back to PLAIN, keeping the dictionary
// and the pages already encoded with it. On columns of mostly distinct
// values that is all cost: every value is hashed into the dictionary and
// the file is larger. Measured on the write section's lineitem-like rows
// (benchmarks, -writes, 600 000 rows, zstd, parquet-go's writer): the sorted l_orderkey took 1.28 MB as dictionary indexes
// and 0.15 MB PLAIN (DuckDB's file), l_partkey 2.65 MB against 2.06 MB;
// DuckDB writes those columns PLAIN and keeps dictionaries for the
// low-cardinality ones (dates, flags, quantities). So a column whose
// sample holds more than one distinct value in dictMaxDistinctShare is
// written PLAIN; a column of few distinct values early and many later
// still falls back at the size limit (writer/parquetfile).

// dictionaryChoice is which columns get a dictionary: all that may
// (on), but the field ids in plain.
type dictionaryChoice struct {
	on    bool
	plain map[int]bool
}

func (d dictionaryChoice) leaf(fieldID int) bool { return d.on && !d.plain[fieldID] }

const (
	// dictSampleValues is how many values of the first batch are looked
	// at; dictMinSample the fewest that decide anything (fewer keep the
	// dictionary).
	dictSampleValues = 16 << 10
	dictMinSample    = 1 << 10
	// dictMaxDistinctShare: more than sample/dictMaxDistinctShare distinct
	// values make a column PLAIN. DuckDB's choices on the write section's
	// columns fall on the same side of it (see above).
	dictMaxDistinctShare = 10
)

// highCardinality reports whether the leaf's values in the bound batch are
// distinct enough to be written PLAIN. Only flat, non-variant leaves of
// types that get a dictionary are judged; the others keep the default.
func (lw *leafWriter) highCardinality() bool {
	leaf := lw.leaf
	if leaf.maxRep > 0 || leaf.inRepeated || len(lw.arrays) == 0 || iceberg.IsGeo(leaf.field.Type) {
		return false
	}
	if inVariant, _ := leaf.variantLeaf(); inVariant {
		return false
	}
	a := lw.arrays[len(lw.arrays)-1]
	if a == nil {
		return false
	}
	d := &lw.data
	n := min(a.Len(), dictSampleValues)
	distinct := 0
	var ints map[int64]struct{}
	var decs map[decimal128.Num]struct{}
	var strs map[string]struct{}
	switch d.conv {
	case convInt32, convInt64:
		ints = make(map[int64]struct{}, 1024)
	case convDecimalInt32, convDecimalInt64, convDecimalFixed:
		decs = make(map[decimal128.Num]struct{}, 1024)
	case convBinary, convLargeBinary, convFixed:
		strs = make(map[string]struct{}, 1024)
	default:
		return false
	}
	nonNull := 0
	for i := range n {
		if a.IsValid(i) {
			nonNull++
		}
	}
	if nonNull < dictMinSample {
		return false
	}
	limit := nonNull / dictMaxDistinctShare
	for i := 0; i < n && distinct <= limit; i++ {
		if a.IsNull(i) {
			continue
		}
		switch d.conv {
		case convInt32:
			ints[int64(d.i32[i])] = struct{}{}
			distinct = len(ints)
		case convInt64:
			ints[d.i64[i]] = struct{}{}
			distinct = len(ints)
		case convDecimalInt32, convDecimalInt64, convDecimalFixed:
			decs[d.dec[i]] = struct{}{}
			distinct = len(decs)
		default:
			v := d.bytesAt(i)
			if _, ok := strs[string(v)]; !ok {
				strs[string(v)] = struct{}{}
			}
			distinct = len(strs)
		}
	}
	return distinct > limit
}
