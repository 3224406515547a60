package fileio_test

import (
	"bytes"
	"testing"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/s3test"
)

// A table's FileIO (location map, router, shared S3 client) opens a data
// file whose size the manifest gives without a HEAD request: one ranged GET
// per read. A size larger than the object is an error, never short data.
func TestS3OpenSizedSkipsTheHeadRequest(t *testing.T) {
	srv := s3test.Start(t)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	opts := srv.OptionsVia(proxy)
	data := pattern(10_000, 3)
	put(t, srv.FileIO(t), srv.Location("wh/t/data/f.parquet"), data)
	m := map[string]string{"hdfs://nn/wh": srv.Location("wh")}
	locations, err := fileio.NewLocationMap(m)
	if err != nil {
		t.Fatal(err)
	}
	files, err := fileio.ForLocation("hdfs://nn/wh/t", fileio.Options{LocationMap: locations, S3: &opts})
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	path := "hdfs://nn/wh/t/data/f.parquet"

	read := func(f fileio.File) {
		t.Helper()
		buf := make([]byte, 100)
		if n, err := f.ReadAt(buf, 9_900); n != 100 || err != nil || !bytes.Equal(buf, data[9_900:]) {
			t.Fatalf("ReadAt = %d, %v", n, err)
		}
	}
	before := proxy.Requests()
	f, err := fileio.OpenSized(ctx, files, path, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	read(f)
	if n := proxy.Requests() - before; n != 1 {
		t.Fatalf("a sized open and one read sent %d requests, want 1 (no HEAD)", n)
	}
	before = proxy.Requests()
	f, err = files.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	read(f)
	if n := proxy.Requests() - before; n != 2 {
		t.Fatalf("Open and one read sent %d requests, want 2 (HEAD, GET)", n)
	}

	wrong, err := fileio.OpenSized(ctx, files, path, int64(len(data))+50)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 100)
	if n, err := wrong.ReadAt(buf, int64(len(data))-50); err == nil {
		t.Fatalf("a read past the object's real end gave %d bytes and no error", n)
	}
}
