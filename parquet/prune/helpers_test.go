package prune

import (
	"bytes"
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
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

func fixtureParquetFiles(t testing.TB) []string {
	out, err := fixtures.ParquetFiles()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// failOnRecoveredPanic fails a fuzz input that made the pruner panic (the
// recover turned it into an error).
func failOnRecoveredPanic(t *testing.T, err error) {
	if err != nil && strings.Contains(err.Error(), "recovered panic") {
		t.Fatal(err)
	}
}
