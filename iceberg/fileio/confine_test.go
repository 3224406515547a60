package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/floedb/floe/errkind"
)

// Writes, creates and deletes land only inside the root, after the map:
// a path the map sends inside is allowed, one it leaves outside, one that
// climbs out through "..", and one the map sends outside are refused with
// nothing written; reads are not confined.
func TestConfineKeepsWritesInsideTheRoot(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	root, orig := filepath.Join(base, "copy"), filepath.Join(base, "orig")
	for _, d := range []string{root, orig} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(orig, "old"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := NewLocationMap(map[string]string{"/recorded": root, "/elsewhere": orig})
	if err != nil {
		t.Fatal(err)
	}
	files := Confine(NewRemapping(Local{}, m), "file://"+root)
	for _, ok := range []string{"/recorded/a", "file:///recorded/b", root + "/c"} {
		if err := files.WriteFile(ctx, ok, []byte("y")); err != nil {
			t.Errorf("write %s: %v", ok, err)
		}
	}
	for _, bad := range []string{orig + "/new", root + "/../orig/new", "/elsewhere/new", "/recorded/../orig/new"} {
		err := files.WriteFile(ctx, bad, []byte("y"))
		if !errors.Is(err, errkind.InvalidArgument) {
			t.Errorf("write %s: %v, want a refusal", bad, err)
		}
		if w, err := files.Create(ctx, bad); err == nil {
			w.Abort()
			t.Errorf("create %s was not refused", bad)
		}
		if err := files.WriteFileIfAbsent(ctx, bad, nil); err == nil {
			t.Errorf("write-if-absent %s was not refused", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(orig, "new")); err == nil {
		t.Error("a refused write left a file outside the root")
	}
	if err := files.Delete(ctx, "/elsewhere/old"); !errors.Is(err, errkind.InvalidArgument) {
		t.Errorf("delete outside: %v", err)
	}
	if data, err := files.ReadFile(ctx, "/elsewhere/old"); err != nil || string(data) != "x" {
		t.Errorf("read outside: %q %v", data, err)
	}
}
