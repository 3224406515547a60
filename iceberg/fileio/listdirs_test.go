package fileio

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestLocalListDirs(t *testing.T) {
	root := t.TempDir()
	for _, d := range []string{"a/x", "b", "c"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "b"), filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	dir := filepath.ToSlash(root)
	got, err := ListDirs(context.Background(), Local{}, dir)
	if want := []string{dir + "/a", dir + "/b", dir + "/c", dir + "/link"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ListDirs = %q, %v; want %q", got, err, want)
	}
	// Through a router and a location map, in the caller's spelling.
	m, err := NewLocationMap(map[string]string{"hdfs://nn/wh": dir})
	if err != nil {
		t.Fatal(err)
	}
	files, err := ForLocation(dir, Options{LocationMap: m})
	if err != nil {
		t.Fatal(err)
	}
	got, err = ListDirs(context.Background(), files, "hdfs://nn/wh/a")
	if want := []string{"hdfs://nn/wh/a/x"}; err != nil || !slices.Equal(got, want) {
		t.Fatalf("ListDirs through the map = %q, %v; want %q", got, err, want)
	}
	if got, err := ListDirs(context.Background(), Local{}, dir+"/missing"); err != nil || len(got) != 0 {
		t.Fatalf("ListDirs(missing) = %q, %v", got, err)
	}
}
