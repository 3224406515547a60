package scan

import (
	"bytes"
	"testing"

	"github.com/floedb/floe/parquet"
)

func openBytes(t testing.TB, data []byte) *parquet.File {
	t.Helper()
	f, err := parquet.OpenFile(bytes.NewReader(data), int64(len(data)), nil)
	if err != nil {
		t.Fatalf("OpenFile: %v", err)
	}
	return f
}
