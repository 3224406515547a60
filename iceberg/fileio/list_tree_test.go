package fileio_test

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/s3test"
)

// A tree of more objects than one ListObjectsV2 page, at several depths,
// comes back whole in one listing, in the caller's spelling (through a
// location map too); a local disk has no tree listing.
func TestS3ListTreeFollowsPagesAndDepth(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	const n = 1003
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("p=%d/q=%d/f%04d", i%3, i%2, i))
	}
	var wg sync.WaitGroup
	errs := make(chan error, n+1)
	sem := make(chan struct{}, 16)
	for _, rel := range want {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs <- files.WriteFile(t.Context(), srv.Location("tree", rel), []byte("x"))
		}()
	}
	wg.Wait()
	errs <- files.WriteFile(t.Context(), srv.Location("tree-sibling", "f"), []byte("x"))
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(want)
	check := func(files fileio.FileIO, dir string) {
		t.Helper()
		infos, err := fileio.ListTree(t.Context(), files, dir)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, in := range infos {
			got = append(got, in.Path)
			if in.Size != 1 || in.ModTime.IsZero() {
				t.Fatalf("%+v", in)
			}
		}
		slices.Sort(got)
		var wantPaths []string
		for _, rel := range want {
			wantPaths = append(wantPaths, fileio.JoinPath(dir, rel))
		}
		if !slices.Equal(got, wantPaths) {
			t.Fatalf("ListTree(%s): %d entries, want %d (first %v)", dir, len(got), len(wantPaths), got[:min(3, len(got))])
		}
	}
	check(files, srv.Location("tree"))
	check(files, "s3a://"+srv.Bucket+"/tree/")
	m, err := fileio.NewLocationMap(map[string]string{"hdfs://nn/wh": srv.Location()})
	if err != nil {
		t.Fatal(err)
	}
	check(fileio.NewRemapping(files, m), "hdfs://nn/wh/tree")

	if _, err := fileio.ListTree(t.Context(), fileio.Local{}, t.TempDir()); !errors.Is(err, fileio.ErrNoTreeListing) || !errors.Is(err, errkind.Unsupported) {
		t.Fatalf("local tree listing: %v", err)
	}
}
