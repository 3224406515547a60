package parquet

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/extensions"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/internal/varianttest"
)

// FuzzVariant reads the variant groups of corrupted pqarrow files
// (unshredded and shredded) and reassembles them: bad files give errors,
// never panics or leaks, and decoding the values returned does not panic.
func FuzzVariant(f *testing.F) {
	values, err := varianttest.Values()
	if err != nil {
		f.Fatal(err)
	}
	for name, vt := range varianttest.Shreddings() {
		rec, err := varianttest.Record(vt, values)
		if err != nil {
			f.Fatal(err)
		}
		path := filepath.Join(f.TempDir(), name+".parquet")
		if err := varianttest.WriteParquet(path, rec, 8); err != nil {
			f.Fatal(err)
		}
		rec.Release()
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) { fuzzVariantFile(t, data) })
}

func fuzzVariantFile(t *testing.T, data []byte) {
	file, err := OpenFile(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		failOnRecoveredPanic(t, err)
		return
	}
	var cols []Column
	for _, n := range file.Root.Children {
		if CheckVariantNode(n) == nil {
			if _, err := resolveColumn(Column{Node: n}); err == nil {
				cols = append(cols, Column{Node: n})
			}
		}
	}
	if len(cols) == 0 {
		return
	}
	mem := memory.NewCheckedAllocator(memory.NewGoAllocator())
	for rg := range file.RowGroups {
		br, err := file.NewBatchReader(ReadRequest{Columns: cols, RowGroup: rg, Allocator: mem, BatchSize: 8})
		failOnRecoveredPanic(t, err)
		if err != nil {
			continue
		}
		for range 16 {
			b, err := br.Next()
			failOnRecoveredPanic(t, err)
			if err != nil || b == nil {
				break
			}
			for k, c := range b.Columns {
				s, ok := c.(*array.Struct)
				if !ok {
					t.Fatalf("variant group decoded as %s", c.DataType())
				}
				out, err := BuildVariant(s, cols[k].Node, extensions.NewDefaultVariantType(), mem)
				if err != nil {
					continue
				}
				va := out.(*extensions.VariantArray)
				for i := range va.Len() {
					if va.Storage().IsNull(i) {
						continue
					}
					// Bytes are not validated on read (unshredded ones pass
					// through, shredded residuals are copied): decoding may
					// fail, but must not panic.
					if v, err := va.Value(i); err == nil {
						_ = varianttest.Describe(v)
					}
				}
				out.Release()
			}
			b.Release()
		}
		br.Close()
	}
	if mem.CurrentAlloc() != 0 {
		t.Fatalf("%d bytes of Arrow memory leaked", mem.CurrentAlloc())
	}
}
