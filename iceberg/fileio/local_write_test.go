package fileio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
)

// dirEntries lists every name in dir, hidden temp files included.
func dirEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteFileReplacesAndCreatesParents(t *testing.T) {
	ctx := t.Context()
	root := t.TempDir()
	p := filepath.Join(root, "t", "metadata", "version-hint.text")
	if err := (Local{}).WriteFile(ctx, p, []byte("1")); err != nil {
		t.Fatal(err)
	}
	if err := (Local{}).WriteFile(ctx, "file://"+p, []byte("22")); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "22" {
		t.Fatalf("content = %q", got)
	}
	if names := dirEntries(t, filepath.Dir(p)); len(names) != 1 {
		t.Fatalf("directory holds %q, want only the hint", names)
	}

	// Table files must be as readable as any file this process creates.
	ref := filepath.Join(root, "ref")
	f, err := os.Create(ref)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(ref)
	got, _ := os.Stat(p)
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("mode = %v, want %v like os.Create", got.Mode().Perm(), want.Mode().Perm())
	}
}

func TestWriteFileIfAbsentNeverReplaces(t *testing.T) {
	ctx := t.Context()
	p := filepath.Join(t.TempDir(), "v1.metadata.json")
	if err := (Local{}).WriteFileIfAbsent(ctx, p, []byte("first")); err != nil {
		t.Fatal(err)
	}
	err := Local{}.WriteFileIfAbsent(ctx, p, []byte("second"))
	if !errors.Is(err, ErrExists) || !errors.Is(err, fs.ErrExist) {
		t.Fatalf("second write: %v, want ErrExists", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "first" {
		t.Fatalf("content = %q", got)
	}
	if names := dirEntries(t, filepath.Dir(p)); len(names) != 1 {
		t.Fatalf("directory holds %q", names)
	}
}

func TestWriteFileIfAbsentRaceHasOneWinner(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, "v2.metadata.json")
	const writers = 16
	payload := func(i int) []byte { return bytes.Repeat([]byte{byte('A' + i)}, 1<<20+i) }

	var start, done sync.WaitGroup
	start.Add(1)
	errs := make([]error, writers)
	for i := range writers {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			errs[i] = Local{}.WriteFileIfAbsent(ctx, p, payload(i))
		}()
	}
	start.Done()
	done.Wait()

	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both succeeded", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, ErrExists):
			t.Fatalf("writer %d: %v", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer succeeded")
	}
	got, err := os.ReadFile(p)
	if err != nil || !bytes.Equal(got, payload(winner)) {
		t.Fatalf("file is not writer %d's complete payload (len %d, err %v)", winner, len(got), err)
	}
	if names := dirEntries(t, dir); len(names) != 1 {
		t.Fatalf("temp files left behind: %q", names)
	}
}

// A version's content is its byte repeated a length that depends on it, so a
// reader can tell a whole version from a torn one.
func versionContent(v int) []byte { return bytes.Repeat([]byte{byte(v)}, 64<<10+v*4096) }

func checkWhole(data []byte) error {
	if len(data) == 0 {
		return errors.New("empty file")
	}
	want := versionContent(int(data[0]))
	if !bytes.Equal(data, want) {
		return fmt.Errorf("torn file: %d bytes starting with version %d", len(data), data[0])
	}
	return nil
}

func TestReadersNeverSeePartialFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	hint := filepath.Join(dir, "hint")
	const versions = 60
	var stop atomic.Bool
	var wg sync.WaitGroup
	readErr := make(chan error, 2)
	var reads atomic.Int64

	// One reader polls the replaced file, the other polls the next name a
	// put-if-absent is about to create.
	wg.Add(2)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			data, err := Local{}.ReadFile(ctx, hint)
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				err = checkWhole(data)
			}
			if err != nil {
				readErr <- err
				return
			}
			reads.Add(1)
		}
	}()
	go func() {
		defer wg.Done()
		for v := 1; v < versions && !stop.Load(); {
			data, err := Local{}.ReadFile(ctx, filepath.Join(dir, fmt.Sprintf("v%d", v)))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err == nil {
				err = checkWhole(data)
			}
			if err != nil {
				readErr <- err
				return
			}
			reads.Add(1)
			v++
		}
	}()

	for v := 1; v < versions; v++ {
		if err := (Local{}).WriteFileIfAbsent(ctx, filepath.Join(dir, fmt.Sprintf("v%d", v)), versionContent(v)); err != nil {
			t.Fatal(err)
		}
		if err := (Local{}).WriteFile(ctx, hint, versionContent(v)); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	select {
	case err := <-readErr:
		t.Fatal(err)
	default:
	}
	if reads.Load() == 0 {
		t.Fatal("the readers never saw a file")
	}
}

func TestCreateIsVisibleOnlyAfterClose(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, "data", "00000-0.parquet")
	w, err := Local{}.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	want := versionContent(3)
	for chunk := range slices.Chunk(want, 1000) {
		if _, err := w.Write(chunk); err != nil {
			t.Fatal(err)
		}
	}
	if ok, _ := (Local{}).Exists(ctx, p); ok {
		t.Fatal("file visible before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, want) {
		t.Fatalf("content differs: %d bytes", len(got))
	}
	if err := w.Abort(); err != nil {
		t.Fatalf("Abort after Close: %v", err)
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("Abort after Close removed the file: %v", err)
	}
	if _, err := w.Write([]byte("x")); err == nil {
		t.Fatal("Write after Close succeeded")
	}
	if err := w.Close(); err == nil {
		t.Fatal("second Close succeeded")
	}
	if names := dirEntries(t, filepath.Dir(p)); len(names) != 1 {
		t.Fatalf("directory holds %q", names)
	}
}

func TestCreateAbortLeavesNothing(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	p := filepath.Join(dir, "f.parquet")
	w, err := Local{}.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write(versionContent(1)); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Fatal("Close after Abort succeeded")
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Fatalf("Abort left %q", names)
	}
}

func TestCreateWithCancelledContextAbortsOnClose(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	dir := t.TempDir()
	p := filepath.Join(dir, "f.parquet")
	w, err := Local{}.Create(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("partial"))
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	if names := dirEntries(t, dir); len(names) != 0 {
		t.Fatalf("cancelled write left %q", names)
	}
}

func TestDeleteRemovesAFile(t *testing.T) {
	ctx := t.Context()
	p := filepath.Join(t.TempDir(), "x")
	writeOSFile(t, p, "x")
	if err := (Local{}).Delete(ctx, "file://"+p); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("still there: %v", err)
	}
}
