package puffin

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

const goldenDir = "../../testdata/golden"

func readGolden(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(goldenDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func footerOf(t *testing.T, file []byte) *Footer {
	t.Helper()
	f, err := ReadFooter(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		t.Fatal(err)
	}
	return f
}
