package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// copyFixture copies a real table into a temporary directory, for the
// commands that change it (the fixture itself is never written).
func copyFixture(t *testing.T, name string) string {
	t.Helper()
	fx, err := fixtures.Get(name)
	if err != nil {
		t.Skip(err)
	}
	dir := filepath.Join(t.TempDir(), "t")
	if err := os.CopyFS(dir, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	return dir
}

// runChange runs a command that prints a changeResult and decodes it;
// the command must succeed.
func runChange(t *testing.T, args ...string) changeResult {
	t.Helper()
	out := mustRun(t, args...)
	var res changeResult
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("floe %v printed %q: %v", args, out, err)
	}
	if dec.More() {
		t.Fatalf("floe %v printed more than one JSON object: %q", args, out)
	}
	return res
}

// refuse runs a command that must be refused without changing the
// table at dir: status 1, stderr naming what is wrong (every fragment in
// want), and every metadata file as it was.
func refuse(t *testing.T, dir string, want []string, args ...string) {
	t.Helper()
	before := treeHashes(t, filepath.Join(dir, "metadata"))
	status, out, errOut := runCLI(t, args...)
	if status != 1 || out != "" {
		t.Errorf("floe %v: status %d, stdout %q; want a refusal", args, status, out)
	}
	for _, w := range want {
		if !strings.Contains(errOut, w) {
			t.Errorf("floe %v: stderr %q does not say %q", args, errOut, w)
		}
	}
	if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("floe %v: the error is not one line: %q", args, errOut)
	}
	after := treeHashes(t, filepath.Join(dir, "metadata"))
	// The commit lock is made by the first attempt and stays; it is no
	// change to the table.
	delete(after, commitLockName)
	delete(before, commitLockName)
	if len(after) != len(before) {
		t.Errorf("floe %v: the refusal changed the metadata directory (%d files, was %d)", args, len(after), len(before))
	}
	for name, sum := range before {
		if after[name] != sum {
			t.Errorf("floe %v: the refusal changed %s", args, name)
		}
	}
}

const commitLockName = ".floe-commit.lock"

// metadataVersions are the table's metadata JSON files.
func metadataVersions(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	for _, name := range metadataFiles(t, dir) {
		if strings.HasSuffix(name, ".metadata.json") {
			out = append(out, name)
		}
	}
	return out
}

// openMetadata reads the table at dir as it now is.
func openMetadata(t *testing.T, dir string) (*table.Table, *metadata.Metadata) {
	t.Helper()
	tbl, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return tbl, tbl.Metadata
}
