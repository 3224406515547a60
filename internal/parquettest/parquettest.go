// Package parquettest holds what the tests of the packages above the
// Parquet core share for reading Parquet bytes they made (parquet's own
// tests keep theirs: they cannot import a package that imports parquet).
package parquettest

import (
	"bytes"
	"testing"

	"github.com/floedb/floe/reader/parquet"
)

// OpenBytes opens an in-memory Parquet file, failing the test on error.
func OpenBytes(t testing.TB, data []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatalf("OpenFile: %v", err)
	}
	return f
}
