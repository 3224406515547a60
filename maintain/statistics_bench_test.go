package maintain

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/floedb/floe/iceberg/puffin/theta"
)

// BenchmarkHashLongColumn: hashing 1M distinct longs into a sketch.
func BenchmarkHashLongColumn(b *testing.B) {
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	for i := range 1 << 20 {
		bld.Append(int64(i))
	}
	arr := bld.NewInt64Array()
	defer arr.Release()
	b.SetBytes(8 << 20)
	for b.Loop() {
		if err := hashColumn(theta.New(), arr, nil); err != nil {
			b.Fatal(err)
		}
	}
}
