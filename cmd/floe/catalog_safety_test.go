package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// append through a catalog creates a missing table but not a missing
// namespace: a mistyped one is refused, naming the flag that creates it
// and the namespace meant, and nothing is made; --create-namespace opts
// in. create follows the same rule.
func TestAppendDoesNotCreateAMissingNamespace(t *testing.T) {
	dir := t.TempDir()
	wh := filepath.Join(dir, "wh")
	rows := filepath.Join(dir, "rows.jsonl")
	writeTestFile(t, rows, `{"id": 1}`+"\n")
	schema := filepath.Join(dir, "schema.json")
	writeTestFile(t, schema, `{"type": "struct", "schema-id": 0, "fields": [{"id": 1, "name": "id", "type": "long", "required": false}]}`)
	for name, c := range map[string]struct {
		args []string
		root string // where a namespace's directory would go
	}{
		"sqlite":    {[]string{"--catalog", "sqlite:" + filepath.Join(dir, "cat.db"), "--catalog-prop", "warehouse=" + wh}, wh},
		"warehouse": {[]string{"--catalog", filepath.Join(dir, "dirwh")}, filepath.Join(dir, "dirwh")},
	} {
		cat := c.args
		t.Run(name, func(t *testing.T) {
			mustRun(t, append([]string{"catalog", "create-namespace", "default"}, cat...)...)
			for _, argv := range [][]string{{"append", "defualt.events", rows}, {"create", "defualt.events", "--schema", schema}} {
				status, _, errOut := runCLI(t, append(argv, cat...)...)
				if status == 0 || !strings.Contains(errOut, "no such namespace") || !strings.Contains(errOut, "--create-namespace") || !strings.Contains(errOut, `"default"`) {
					t.Errorf("floe %v: status %d: %s", argv, status, errOut)
				}
			}
			if out := mustRun(t, append([]string{"catalog", "namespaces"}, cat...)...); out != "default\n" {
				t.Errorf("namespaces after the refused writes: %q", out)
			}
			if _, err := os.Stat(filepath.Join(c.root, "defualt")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the mistyped namespace's directory exists: %v", err)
			}
			mustRun(t, append([]string{"append", "defualt.events", rows, "--create-namespace"}, cat...)...)
			mustRun(t, append([]string{"append", "default.events", rows}, cat...)...)
			if out := mustRun(t, append([]string{"catalog", "namespaces"}, cat...)...); out != "default\ndefualt\n" {
				t.Errorf("namespaces: %q", out)
			}
		})
	}
}

// A command that only reads, through a SQLite catalog that does not
// exist, says so and creates no database file.
func TestReadingAMissingSQLiteCatalogCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	cat := "sqlite:" + filepath.Join(dir, "typo.db")
	for _, argv := range [][]string{{"scan", "db.t"}, {"info", "db.t"}, {"files", "db.t"}, {"catalog", "namespaces"}, {"catalog", "tables", "db"}} {
		status, _, errOut := runCLI(t, append(argv, "--catalog", cat)...)
		if status == 0 || !strings.Contains(errOut, "typo.db does not exist") {
			t.Errorf("floe %v: status %d: %s", argv, status, errOut)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files made: %v", entries)
	}
}

// No catalog URI's password or secret parameter is printed, a malformed
// URI's included.
func TestCatalogURISecretsAreNotPrinted(t *testing.T) {
	dir := t.TempDir()
	for _, uri := range []string{
		"http://u:S3CRETVALUE%zz@host/",
		"http://u:S3CRETVALUE@127.0.0.1:1/",
		"sqlite://" + filepath.Join(dir, "c.db") + "?_auth_pass=S3CRETVALUE",
		"postgresql://u:S3CRETVALUE@127.0.0.1:1/db",
		"mysql://u:S3CRETVALUE@h/db",
	} {
		for _, argv := range [][]string{{"scan", "db.t"}, {"append", "db.t", filepath.Join(dir, "none.jsonl")}, {"catalog", "namespaces"}} {
			status, out, errOut := runCLI(t, append(argv, "--catalog", uri, "--catalog-prop", "warehouse="+dir, "--catalog-prop", "timeout-ms=2000")...)
			if status == 0 || strings.Contains(out+errOut, "S3CRETVALUE") {
				t.Errorf("floe %v --catalog %s: status %d: %s%s", argv, uri, status, out, errOut)
			}
		}
	}
}
