package table

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/internal/testtable"
)

// hostileTable builds a one-snapshot table and returns its directory and
// its metadata file.
func hostileTable(t *testing.T) (dir, metadataFile string) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "t")
	if _, err := testtable.Build(dir, testtable.Options{Rows: testtable.RandomRows(1, 20), Spec: iceberg.PartitionSpec{}}); err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Join(dir, "metadata", "v1.metadata.json")
}

// pointManifestListAt rewrites the metadata so that every snapshot's
// manifest list is target.
func pointManifestListAt(t *testing.T, metadataFile, target string) {
	t.Helper()
	raw, err := os.ReadFile(metadataFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, s := range doc["snapshots"].([]any) {
		s.(map[string]any)["manifest-list"] = target
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(metadataFile, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// pointManifestsAt rewrites the table's manifest list so that its
// manifests are target.
func pointManifestsAt(t *testing.T, dir, target string) {
	t.Helper()
	lists, err := filepath.Glob(filepath.Join(dir, "metadata", "snap-*.avro"))
	if err != nil || len(lists) != 1 {
		t.Fatalf("manifest lists %v, %v", lists, err)
	}
	raw, err := os.ReadFile(lists[0])
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := manifest.ReadManifestList(raw, 2)
	if err != nil {
		t.Fatal(err)
	}
	for i := range mfs {
		mfs[i].Path = target
	}
	f, err := os.Create(lists[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, _, err := manifest.WriteManifestList(f, manifest.ManifestListWriteOptions{FormatVersion: 2, SnapshotID: 1, SequenceNumber: 1}, mfs); err != nil {
		t.Fatal(err)
	}
}

// sparse makes a file of size bytes that occupies no disk.
func sparse(t *testing.T, path string, size int64) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(size); err != nil {
		t.Fatal(err)
	}
}

// fifo makes a named pipe no one writes to: opening it for reading blocks.
func fifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// withinSeconds runs fn and fails the test if it has not returned in the
// given time: a read of /dev/zero used to run forever while its memory
// grew ~100 MB/s.
func withinSeconds(t *testing.T, seconds int, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(time.Duration(seconds) * time.Second):
		t.Fatalf("still reading after %d s", seconds)
		return nil
	}
}

// TestEveryMetadataReadIsCapped: a metadata file, version hint, manifest
// list or manifest that is a device, a pipe or larger than its cap stops
// with a corrupt error naming the file, in bounded time and memory.
func TestEveryMetadataReadIsCapped(t *testing.T) {
	ctx := context.Background()
	plan := func(dir string) error {
		tbl, err := Open(ctx, dir, Options{})
		if err != nil {
			return err
		}
		_, err = tbl.PlanFiles(ctx, SnapshotSelector{})
		return err
	}
	cases := []struct {
		name   string
		break_ func(t *testing.T, dir, metadataFile string) string // returns the file the error must name
		want   string                                              // and what else it must say
	}{
		{"manifest list is /dev/zero", func(t *testing.T, _, md string) string {
			pointManifestListAt(t, md, "/dev/zero")
			return "/dev/zero"
		}, "not a regular file"},
		{"manifest list is a pipe", func(t *testing.T, dir, md string) string {
			p := filepath.Join(dir, "metadata", "pipe.avro")
			fifo(t, p)
			pointManifestListAt(t, md, p)
			return p
		}, "not a regular file"},
		{"manifest list is a huge sparse file", func(t *testing.T, dir, md string) string {
			p := filepath.Join(dir, "metadata", "huge.avro")
			sparse(t, p, MaxManifestListBytes+1)
			pointManifestListAt(t, md, p)
			return p
		}, "over the 256 MiB cap"},
		{"manifest is /dev/zero", func(t *testing.T, dir, _ string) string {
			pointManifestsAt(t, dir, "/dev/zero")
			return "/dev/zero"
		}, "not a regular file"},
		{"manifest is a huge sparse file", func(t *testing.T, dir, _ string) string {
			p := filepath.Join(dir, "metadata", "huge-m.avro")
			sparse(t, p, MaxManifestBytes+1)
			pointManifestsAt(t, dir, p)
			return p
		}, "over the 512 MiB cap"},
		{"metadata file is /dev/zero", func(t *testing.T, _, md string) string {
			os.Remove(md)
			if err := os.Symlink("/dev/zero", md); err != nil {
				t.Fatal(err)
			}
			return md
		}, "not a regular file"},
		{"metadata file is a huge sparse file", func(t *testing.T, _, md string) string {
			sparse(t, md, MaxMetadataBytes+1)
			return md
		}, "over the 512 MiB cap"},
		{"version hint is /dev/zero", func(t *testing.T, dir, _ string) string {
			hint := filepath.Join(dir, "metadata", "version-hint.text")
			os.Remove(hint)
			if err := os.Symlink("/dev/zero", hint); err != nil {
				t.Fatal(err)
			}
			return hint
		}, "not a regular file"},
		{"version hint is a huge sparse file", func(t *testing.T, dir, _ string) string {
			hint := filepath.Join(dir, "metadata", "version-hint.text")
			sparse(t, hint, MaxVersionHintBytes+1)
			return hint
		}, "over the 1 MiB cap"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, md := hostileTable(t)
			named := c.break_(t, dir, md)
			err := withinSeconds(t, 20, func() error { return plan(dir) })
			if err == nil {
				t.Fatal("read without error")
			}
			if errkind.Of(err) != errkind.Corrupt {
				t.Errorf("kind %v, want corrupt: %v", errkind.Of(err), err)
			}
			if !strings.Contains(err.Error(), named) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error does not name %s and say %q: %v", named, c.want, err)
			}
			t.Log(err)
		})
	}
}
