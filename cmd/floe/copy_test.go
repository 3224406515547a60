package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/fixtures"
)

// treeHashes is the sha256 of every file below dir, by relative path.
func treeHashes(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = hex.EncodeToString(sum[:])
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// snapshotScans scans every snapshot the table at dir has through the
// CLI, by snapshot id; a failing scan fails the test.
func snapshotScans(t *testing.T, dir string) map[int64]string {
	t.Helper()
	tbl, err := table.Open(context.Background(), dir, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[int64]string{}
	for _, s := range tbl.Metadata.Snapshots {
		id := strconv.FormatInt(s.SnapshotID, 10)
		status, rows, errOut := runCLI(t, "scan", dir, "--snapshot", id, "--format", "csv")
		if status != 0 {
			t.Fatalf("scan %s --snapshot %s: status %d: %s", dir, id, status, errOut)
		}
		out[s.SnapshotID] = rows
	}
	return out
}

// After cp -r prod test, FLOE_WAREHOUSE=test floe append, delete (both
// modes) and expire --older-than 0s change nothing in prod: every file
// there is byte-identical and every snapshot reads as before; the copy
// reads every snapshot it still has, and its files are all its own.
func TestCLIOnACopiedWarehouseLeavesTheOriginalAlone(t *testing.T) {
	base := t.TempDir()
	prod, test := filepath.Join(base, "prod"), filepath.Join(base, "test")
	schema := filepath.Join(base, "schema.json")
	writeTestFile(t, schema, `{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "required": true, "type": "long"}, {"id": 2, "name": "s", "required": false, "type": "string"}]}`)
	rows := func(first int) string {
		p := filepath.Join(base, "rows"+strconv.Itoa(first)+".jsonl")
		var b strings.Builder
		for i := first; i < first+10; i++ {
			b.WriteString(`{"id": ` + strconv.Itoa(i) + `, "s": "v` + strconv.Itoa(i) + `"}` + "\n")
		}
		writeTestFile(t, p, b.String())
		return p
	}
	mustRun(t, "create", filepath.Join(prod, "e", "t"), "--schema", schema, "--property", "format-version=2")
	t.Setenv("FLOE_WAREHOUSE", prod)
	mustRun(t, "append", "e.t", rows(0))
	mustRun(t, "append", "e.t", rows(100))
	mustRun(t, "delete", "e.t", "id < 2", "--mode", "merge-on-read")
	origDir := filepath.Join(prod, "e", "t")
	hashes, reads := treeHashes(t, origDir), snapshotScans(t, origDir)
	if err := os.CopyFS(test, os.DirFS(prod)); err != nil {
		t.Fatal(err)
	}
	copyDir := filepath.Join(test, "e", "t")

	steps := [][]string{
		{"append", "e.t", rows(200)},
		{"delete", "e.t", "id < 4", "--mode", "copy-on-write"},
		{"delete", "e.t", "id < 6", "--mode", "merge-on-read"},
		{"expire", "e.t", "--older-than", "0s"},
	}
	checkCopySteps(t, prod, test, origDir, copyDir, hashes, reads, steps)
	got := scanRows(t, "e.t")
	if len(got) != 24 {
		t.Errorf("the copy reads %d rows, want 24 (30 less ids 0-5)", len(got))
	}
}

// checkCopySteps runs each step with FLOE_WAREHOUSE set to the copy and
// checks after it that the original (origDir in the warehouse prod) is
// byte for byte as hashed and reads every snapshot as before, and that the
// copy (copyDir) reads every snapshot it has from files of its own.
func checkCopySteps(t *testing.T, prod, test, origDir, copyDir string, hashes map[string]string, reads map[int64]string, steps [][]string) {
	t.Helper()
	t.Setenv("FLOE_WAREHOUSE", test)
	for _, step := range steps {
		mustRun(t, step...)
		after := treeHashes(t, origDir)
		for p, h := range hashes {
			if after[p] != h {
				t.Errorf("%v: %s in the original was removed or changed", step, p)
			}
		}
		for p := range after {
			if _, ok := hashes[p]; !ok {
				t.Errorf("%v: %s was added to the original", step, p)
			}
		}
		for id, got := range snapshotScans(t, origDir) {
			if got != reads[id] {
				t.Errorf("%v: the original's snapshot %d reads differently", step, id)
			}
		}
		snapshotScans(t, copyDir)
		status, out, errOut := runCLI(t, "files", "e.t")
		if status != 0 {
			t.Fatalf("files: %d %s", status, errOut)
		}
		// Where each file is read from; "references" names a data file
		// as the delete file records it.
		for _, line := range strings.Split(out, "\n") {
			where, _, _ := strings.Cut(line, " references ")
			if strings.Contains(where, prod+"/") {
				t.Errorf("%v: the copy reads a file of the original: %s", step, line)
			}
		}
	}
}

// The same on a table Impala wrote (Hive's position deletes, recorded
// under /test-warehouse/…), copied into a warehouse and copied again.
func TestCLIOnACopiedRealTableLeavesTheOriginalAlone(t *testing.T) {
	fx, err := fixtures.Get("impala_iceberg_v2_partitioned_position_deletes")
	if err != nil {
		t.Skip(err)
	}
	base := t.TempDir()
	prod, test := filepath.Join(base, "prod"), filepath.Join(base, "test")
	origDir := filepath.Join(prod, "e", "t")
	if err := os.CopyFS(origDir, os.DirFS(fx.Dir)); err != nil {
		t.Fatal(err)
	}
	hashes, reads := treeHashes(t, origDir), snapshotScans(t, origDir)
	if err := os.CopyFS(test, os.DirFS(prod)); err != nil {
		t.Fatal(err)
	}
	rows := filepath.Join(base, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 100, "user": "u", "action": "click"}`+"\n"+`{"id": 101, "user": "v", "action": "view"}`+"\n")
	checkCopySteps(t, prod, test, origDir, filepath.Join(test, "e", "t"), hashes, reads, [][]string{
		{"append", "e.t", rows},
		{"delete", "e.t", "id = 1", "--mode", "copy-on-write"},
		{"delete", "e.t", "id = 2", "--mode", "merge-on-read"},
		{"expire", "e.t", "--older-than", "0s"},
	})
}
