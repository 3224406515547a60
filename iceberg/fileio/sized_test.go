package fileio

import (
	"context"
	"path/filepath"
	"testing"
)

// sizeRecorder is a FileIO that can open sized, recording which way each
// path was opened.
type sizeRecorder struct {
	Local
	sized map[string]int64
	plain []string
}

type fakeFile struct{ size int64 }

func (f fakeFile) ReadAt([]byte, int64) (int, error) { return 0, nil }
func (f fakeFile) Close() error                      { return nil }
func (f fakeFile) Size() int64                       { return f.size }

func (s *sizeRecorder) Open(_ context.Context, path string) (File, error) {
	s.plain = append(s.plain, path)
	return fakeFile{size: -1}, nil
}

func (s *sizeRecorder) OpenSized(_ context.Context, path string, size int64) (File, error) {
	s.sized[path] = size
	return fakeFile{size: size}, nil
}

func TestOpenSizedPassesTheSizeThroughRemappingAndRouter(t *testing.T) {
	ctx := t.Context()
	rec := &sizeRecorder{sized: map[string]int64{}}
	r := NewRouter()
	r.Register("mem", rec)
	m, err := NewLocationMap(map[string]string{"hdfs://nn/wh": "mem://bucket/wh"})
	if err != nil {
		t.Fatal(err)
	}
	files := NewRemapping(r, m)

	f, err := OpenSized(ctx, files, "hdfs://nn/wh/f", 5)
	if err != nil || f.Size() != 5 {
		t.Fatalf("OpenSized = %v, %v", f, err)
	}
	if got, ok := rec.sized["mem://bucket/wh/f"]; !ok || got != 5 || len(rec.plain) != 0 {
		t.Fatalf("sized opens %v, plain opens %v; want mem://bucket/wh/f with size 5", rec.sized, rec.plain)
	}
	// An unknown size is a plain Open.
	if _, err := OpenSized(ctx, files, "hdfs://nn/wh/g", 0); err != nil {
		t.Fatal(err)
	}
	if len(rec.plain) != 1 || rec.plain[0] != "mem://bucket/wh/g" {
		t.Fatalf("plain opens = %v", rec.plain)
	}

	// A FileIO that cannot open sized (Local) is opened the usual way, and
	// its File reports the real size, whatever the caller believed.
	dir := t.TempDir()
	writeOSFile(t, filepath.Join(dir, "f"), "12345")
	lf, err := OpenSized(ctx, NewRouter(), filepath.Join(dir, "f"), 99)
	if err != nil {
		t.Fatal(err)
	}
	defer lf.Close()
	if lf.Size() != 5 {
		t.Fatalf("local file size = %d, want 5", lf.Size())
	}
	if _, err := OpenSized(ctx, NewRouter(), "gs://b/o", 5); err == nil {
		t.Fatal("an unroutable scheme was opened")
	}

	var _ SizedOpener = (*Router)(nil)
	var _ SizedOpener = (*Remapping)(nil)
	var _ SizedOpener = (*S3)(nil)
	var _ SizedOpener = (*lazyS3)(nil)
}
