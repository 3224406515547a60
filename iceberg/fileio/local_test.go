package fileio

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeOSFile(t *testing.T, path string, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}

func TestLocalReadsPlainPathsAndFileURIs(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, "a b%20c.txt") // a space and a literal %20 must survive untouched
	writeOSFile(t, p, "hello, ranged world")

	for _, spelling := range []string{p, "file:" + p, "file://" + p, "file://localhost" + p, "FILE://" + p} {
		got, err := Local{}.ReadFile(ctx, spelling)
		if err != nil || string(got) != "hello, ranged world" {
			t.Fatalf("ReadFile(%q) = %q, %v", spelling, got, err)
		}
		info, err := Local{}.Stat(ctx, spelling)
		if err != nil || info.Size != 19 || info.Path != spelling {
			t.Fatalf("Stat(%q) = %+v, %v", spelling, info, err)
		}
		ok, err := Local{}.Exists(ctx, spelling)
		if !ok || err != nil {
			t.Fatalf("Exists(%q) = %v, %v", spelling, ok, err)
		}
	}

	f, err := Local{}.Open(ctx, "file://"+p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != 19 {
		t.Fatalf("Size = %d", f.Size())
	}
	buf := make([]byte, 6)
	if n, err := f.ReadAt(buf, 7); n != 6 || err != nil || string(buf) != "ranged" {
		t.Fatalf("ReadAt = %d %v %q", n, err, buf)
	}
	if n, err := f.ReadAt(buf, 15); n != 4 || err != io.EOF {
		t.Fatalf("ReadAt past the end = %d %v, want 4 io.EOF", n, err)
	}
}

func TestLocalMissingFilesWrapErrNotExist(t *testing.T) {
	ctx := t.Context()
	missing := filepath.Join(t.TempDir(), "nope", "x.parquet")
	_, errOpen := Local{}.Open(ctx, missing)
	_, errRead := Local{}.ReadFile(ctx, missing)
	_, errStat := Local{}.Stat(ctx, missing)
	errDelete := Local{}.Delete(ctx, missing)
	_, errList := Local{}.List(ctx, filepath.Dir(missing))
	for name, err := range map[string]error{"Open": errOpen, "ReadFile": errRead, "Stat": errStat, "Delete": errDelete, "List": errList} {
		if !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s of a missing path: %v, want fs.ErrNotExist", name, err)
		}
	}
	if ok, err := (Local{}).Exists(ctx, missing); ok || err != nil {
		t.Errorf("Exists(missing) = %v, %v", ok, err)
	}
}

func TestLocalDirectoriesAreNotFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	writeOSFile(t, file, "x")
	if _, err := (Local{}).Open(ctx, dir); err == nil {
		t.Error("Open(dir) succeeded")
	}
	if _, err := (Local{}).Stat(ctx, dir); err == nil {
		t.Error("Stat(dir) succeeded")
	}
	if ok, err := (Local{}).Exists(ctx, dir); ok || err != nil {
		t.Errorf("Exists(dir) = %v, %v", ok, err)
	}
	// A path that runs through a file is simply absent, as a key would be.
	if ok, err := (Local{}).Exists(ctx, filepath.Join(file, "child")); ok || err != nil {
		t.Errorf("Exists(file/child) = %v, %v", ok, err)
	}
	sub := filepath.Join(dir, "empty")
	if err := os.Mkdir(sub, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := (Local{}).Delete(ctx, sub); err == nil {
		t.Error("Delete(dir) succeeded")
	}
	if _, err := os.Stat(sub); err != nil {
		t.Errorf("Delete(dir) removed it: %v", err)
	}
}

func TestLocalFileURIWithRemoteHostIsRefused(t *testing.T) {
	_, err := Local{}.ReadFile(t.Context(), "file://otherhost/etc/hostname")
	if err == nil || !strings.Contains(err.Error(), "otherhost") {
		t.Fatalf("err = %v", err)
	}
	if _, err := (Local{}).ReadFile(t.Context(), "file://"); err == nil {
		t.Fatal("file:// with no path was accepted")
	}
}

func TestLocalListKeepsCallerSpellingAndSkipsNonFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	writeOSFile(t, filepath.Join(dir, "b.avro"), "bb")
	writeOSFile(t, filepath.Join(dir, "a.json"), "a")
	writeOSFile(t, filepath.Join(dir, "sub", "deep.json"), "deep")
	if err := os.Symlink(filepath.Join(dir, "b.avro"), filepath.Join(dir, "c-link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "gone"), filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}

	infos, err := Local{}.List(ctx, "file://"+dir+"/")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, in := range infos {
		got = append(got, in.Path)
	}
	want := []string{"file://" + dir + "/a.json", "file://" + dir + "/b.avro", "file://" + dir + "/c-link"}
	if !slices.Equal(got, want) {
		t.Fatalf("List = %q, want %q", got, want)
	}
	if infos[2].Size != 2 {
		t.Errorf("link size = %d, want the target's 2", infos[2].Size)
	}
}

func TestLocalRefusesOtherSchemes(t *testing.T) {
	_, err := Local{}.ReadFile(t.Context(), "s3://bucket/key")
	if !errors.Is(err, ErrUnsupportedScheme) {
		t.Fatalf("err = %v", err)
	}
}

func TestCancelledContextStopsOperations(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	p := filepath.Join(t.TempDir(), "x")
	if err := (Local{}).WriteFile(ctx, p, []byte("x")); err == nil {
		t.Error("WriteFile with a cancelled context succeeded")
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("file exists after a cancelled write: %v", err)
	}
}
