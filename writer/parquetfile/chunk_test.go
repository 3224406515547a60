package parquetfile

import (
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go/compress/uncompressed"
	"github.com/parquet-go/parquet-go/format"
)

// A Write whose values are not of the column's type, or whose levels or
// counts do not match its entries, is refused and leaves the chunk as it
// was; a good one then goes in.
func TestWriteRefusesMismatchedValues(t *testing.T) {
	col := &Column{Path: []string{"a"}, Type: format.Int32, MaxDef: 1, Order: OrderSigned}
	c := newChunk(col, &Config{Codec: &uncompressed.Codec{}, PageSize: 1 << 20})
	for _, bad := range []struct {
		why  string
		defs []byte
		v    Values
	}{
		{"another type", []byte{1, 1}, Values{I64: []int64{1, 2}}},
		{"too few levels", []byte{1}, Values{I32: []int32{1, 2}}},
		{"more values than entries", []byte{1, 1}, Values{I32: []int32{1, 2, 3}}},
	} {
		if err := c.Write(nil, bad.defs, 2, 2, &bad.v); err == nil {
			t.Errorf("%s: accepted", bad.why)
		} else if !strings.Contains(err.Error(), "parquetfile: column [a]") {
			t.Errorf("%s: %v", bad.why, err)
		}
		if c.rows() != 0 || len(c.defs) != 0 || len(c.plain) != 0 {
			t.Fatalf("%s: the refused write left %d rows, %d levels, %d bytes", bad.why, c.rows(), len(c.defs), len(c.plain))
		}
	}
	if err := c.Write(nil, []byte{1, 0}, 2, 2, &Values{I32: []int32{7}, Min: []byte{7, 0, 0, 0}, Max: []byte{7, 0, 0, 0}}); err != nil {
		t.Fatal(err)
	}
	if c.rows() != 2 || len(c.plain) != 4 {
		t.Errorf("%d rows, %d bytes after a good write", c.rows(), len(c.plain))
	}
}
