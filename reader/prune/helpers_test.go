package prune

import (
	"strings"
	"testing"

	"github.com/floedb/floe/internal/fixtures"
)

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
