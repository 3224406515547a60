package fileio

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
)

// zeros is an endless reader, as /dev/zero is.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	clear(p)
	z.n += int64(len(p))
	return len(p), nil
}

// TestReadUpToStopsAnEndlessReader: a body without a length (a chunked S3
// answer) is read only up to the cap, whatever the stream holds.
func TestReadUpToStopsAnEndlessReader(t *testing.T) {
	z := &zeros{}
	_, err := readUpTo(z, "s3://b/zero", -1, 1<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), "s3://b/zero is over the 1 MiB cap") {
		t.Fatalf("err = %v", err)
	}
	if z.n > 2<<20 {
		t.Errorf("read %d bytes for a 1 MiB cap", z.n)
	}
	data, err := readUpTo(strings.NewReader("hello"), "p", -1, 5)
	if err != nil || string(data) != "hello" {
		t.Errorf("a file of exactly the cap: %q, %v", data, err)
	}
	if _, err := readUpTo(strings.NewReader("hello!"), "p", 6, 5); !errors.As(err, &tl) {
		t.Errorf("a known size over the cap: %v", err)
	}
}

// plainFiles is a FileIO that does not implement LimitedReader.
type plainFiles struct{ FileIO }

func (p plainFiles) ReadFile(ctx context.Context, path string) ([]byte, error) {
	return p.FileIO.ReadFile(ctx, path)
}

// limitRecorder is the local store, recording the limit of each read.
type limitRecorder struct {
	Local
	limits []int64
}

func (l *limitRecorder) ReadFileLimited(ctx context.Context, path string, limit int64) ([]byte, error) {
	l.limits = append(l.limits, limit)
	return l.Local.ReadFileLimited(ctx, path, limit)
}

// TestReadFileLimitedOnEveryPath: local files through every wrapper floe
// puts around them, and a FileIO that knows nothing of limits, read a file
// of the cap and refuse one a byte over it; devices and pipes are refused
// by their mode before they are opened (a pipe no one writes to would
// block the open), and a sparse file by its size before it is read.
func TestReadFileLimitedOnEveryPath(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := NewLocationMap(map[string]string{"hdfs://nn/wh": dir})
	if err != nil {
		t.Fatal(err)
	}
	// rec is the store under every wrapper: it records the limits that
	// reach it, so a wrapper that dropped the limit (and read the whole
	// file) shows.
	rec := &limitRecorder{}
	router := NewRouter()
	router.Register("", rec)
	stores := map[string]FileIO{
		"local":         Local{},
		"remapped":      NewRemapping(router, m),
		"hinting":       WithMissingHint(NewRemapping(router, m), func(string) string { return "" }),
		"confined":      Confine(NewRemapping(router, m), dir),
		"without limit": plainFiles{Local{}},
	}
	for name, files := range stores {
		path := small
		if name == "remapped" || name == "hinting" || name == "confined" {
			path = "hdfs://nn/wh/small"
		}
		if data, err := ReadFileLimited(ctx, files, path, 10); err != nil || string(data) != "0123456789" {
			t.Errorf("%s: a file of the cap: %q, %v", name, data, err)
		}
		_, err := ReadFileLimited(ctx, files, path, 9)
		var tl *TooLargeError
		if !errors.As(err, &tl) || errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), " is over the 9 bytes cap") {
			t.Errorf("%s: a file a byte over the cap: %v", name, err)
		}
	}
	if len(rec.limits) != 6 || rec.limits[0] != 10 || rec.limits[5] != 9 {
		t.Errorf("limits that reached the store under the wrappers: %v, want 10, 9 three times", rec.limits)
	}

	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(dir, "huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 40); err != nil { // a terabyte, sparse
		t.Fatal(err)
	}
	f.Close()
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero is not a regular file but a character device"},
		{pipe, pipe + " is not a regular file but a named pipe"},
		{huge, huge + " is over the 1 GiB cap"},
	} {
		done := make(chan error, 1)
		go func() { _, err := Local{}.ReadFile(ctx, c.path); done <- err }()
		select {
		case err := <-done:
			if errkind.Of(err) != errkind.Corrupt || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ReadFile(%s) = %v, want a corrupt error saying %q", c.path, err, c.want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("ReadFile(%s) still running after 10 s", c.path)
		}
	}
}
