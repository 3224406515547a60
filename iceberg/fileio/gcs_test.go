package fileio_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/gcstest"
	"github.com/floedb/floe/internal/s3test"
)

// The GCS FileIO against fake-gcs-server: the same contract the S3 tests
// hold S3 to.

func TestGCSRangedReadsAtOddOffsetsAndEOF(t *testing.T) {
	srv := gcstest.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(100_003, 1)
	loc := srv.Location("ranged/obj.bin")
	put(t, files, loc, data)

	f, err := files.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Size() != int64(len(data)) {
		t.Fatalf("Size = %d, want %d", f.Size(), len(data))
	}
	for _, c := range []struct{ off, n int }{{0, 1}, {1, 7}, {4095, 4097}, {65_537, 12_345}, {99_990, 13}, {0, len(data)}} {
		buf := make([]byte, c.n)
		n, err := f.ReadAt(buf, int64(c.off))
		if n != c.n || err != nil || !bytes.Equal(buf, data[c.off:c.off+c.n]) {
			t.Fatalf("ReadAt(%d bytes at %d) = %d, %v, equal=%v", c.n, c.off, n, err, bytes.Equal(buf, data[c.off:c.off+c.n]))
		}
	}
	buf := make([]byte, 10)
	if n, err := f.ReadAt(buf, int64(len(data)-4)); n != 4 || err != io.EOF || !bytes.Equal(buf[:4], data[len(data)-4:]) {
		t.Fatalf("ReadAt across EOF = %d, %v", n, err)
	}
	if n, err := f.ReadAt(buf, int64(len(data))); n != 0 || err != io.EOF {
		t.Fatalf("ReadAt at EOF = %d, %v", n, err)
	}
	if _, err := f.ReadAt(buf, -1); err == nil {
		t.Fatal("ReadAt at a negative offset succeeded")
	}

	// A size recorded wrongly (too large) gives an error, never short data.
	g, err := files.OpenSized(ctx, loc, int64(len(data)+100))
	if err != nil {
		t.Fatal(err)
	}
	if n, err := g.ReadAt(make([]byte, 200), int64(len(data)-100)); err == nil || n != 0 {
		t.Fatalf("ReadAt past the real end with a wrong size = %d, %v", n, err)
	}
	// OpenSized with the right size reads with one request, no metadata
	// request.
	before := files.Requests()
	g, _ = files.OpenSized(ctx, loc, int64(len(data)))
	if n, err := g.ReadAt(buf, 5); n != 10 || err != nil || !bytes.Equal(buf, data[5:15]) {
		t.Fatalf("OpenSized ReadAt = %d, %v", n, err)
	}
	if got := files.Requests() - before; got != 1 {
		t.Errorf("OpenSized + ReadAt sent %d requests, want 1", got)
	}
}

func TestGCSStatExistsReadFileDelete(t *testing.T) {
	srv := gcstest.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(5000, 2)
	loc := srv.Location("t/metadata/v1.metadata.json")
	put(t, files, loc, data)

	got, err := files.ReadFile(ctx, loc)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	info, err := files.Stat(ctx, loc)
	if err != nil || info.Size != 5000 || info.Path != loc || info.ModTime.IsZero() {
		t.Fatalf("Stat = %+v, %v", info, err)
	}
	if ok, err := files.Exists(ctx, loc); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	if ok, err := files.Exists(ctx, srv.Location("t/metadata")); ok || err != nil {
		t.Fatalf("Exists(prefix) = %v, %v", ok, err)
	}
	if files.BytesRead() < int64(len(data)) {
		t.Errorf("BytesRead = %d after reading %d", files.BytesRead(), len(data))
	}
	if _, err := fileio.ReadFileLimited(ctx, files, loc, 4999); !errors.Is(err, errkind.Corrupt) || !strings.Contains(err.Error(), loc) {
		t.Errorf("ReadFileLimited under the size: %v, want a Corrupt error naming the object", err)
	}

	if err := files.Delete(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if ok, err := files.Exists(ctx, loc); ok || err != nil {
		t.Fatalf("Exists after Delete = %v, %v", ok, err)
	}
	if err := files.Delete(ctx, loc); err != nil {
		t.Errorf("Delete of a missing object: %v (deletes are idempotent)", err)
	}
	_, errOpen := files.Open(ctx, loc)
	_, errRead := files.ReadFile(ctx, loc)
	_, errStat := files.Stat(ctx, loc)
	for name, err := range map[string]error{"Open": errOpen, "ReadFile": errRead, "Stat": errStat} {
		if !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, errkind.NotFound) || !strings.Contains(err.Error(), loc) {
			t.Errorf("%s of a missing object: %v, want fs.ErrNotExist naming the location", name, err)
		}
	}
	if _, err := files.ReadFile(ctx, "gs://"+srv.Bucket); err == nil {
		t.Error("ReadFile of a bare bucket succeeded")
	}
}

func TestGCSListsDirectChildren(t *testing.T) {
	srv := gcstest.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	for key, size := range map[string]int{"t/b.avro": 2, "t/a.json": 1, "t/sub/deep.json": 3, "t/sub/x/y": 1, "tother": 1, "t-sibling/z": 1} {
		put(t, files, srv.Location(key), pattern(size, 3))
	}
	for _, dir := range []string{srv.Location("t"), srv.Location("t") + "/"} {
		infos, err := files.List(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, in := range infos {
			paths = append(paths, in.Path)
		}
		if want := []string{srv.Location("t/a.json"), srv.Location("t/b.avro")}; !slices.Equal(paths, want) {
			t.Fatalf("List(%s) = %q, want %q", dir, paths, want)
		}
		if infos[1].Size != 2 || infos[0].ModTime.IsZero() {
			t.Errorf("List infos = %+v", infos)
		}
	}
	if infos, err := files.List(ctx, srv.Location("nothing/here")); err != nil || len(infos) != 0 {
		t.Fatalf("List(missing) = %v, %v", infos, err)
	}
	infos, err := files.List(ctx, "gs://"+srv.Bucket)
	if err != nil || len(infos) != 1 || infos[0].Path != srv.Location("tother") {
		t.Fatalf("List(bucket) = %+v, %v", infos, err)
	}
	dirs, err := fileio.ListDirs(ctx, files, srv.Location("t"))
	if want := []string{srv.Location("t/sub")}; err != nil || !slices.Equal(dirs, want) {
		t.Fatalf("ListDirs(t) = %q, %v; want %q", dirs, err, want)
	}
	dirs, err = fileio.ListDirs(ctx, files, "gs://"+srv.Bucket)
	if want := []string{srv.Location("t"), srv.Location("t-sibling")}; err != nil || !slices.Equal(dirs, want) {
		t.Fatalf("ListDirs(bucket) = %q, %v; want %q", dirs, err, want)
	}
	tree, err := fileio.ListTree(ctx, files, srv.Location("t"))
	var paths []string
	for _, in := range tree {
		paths = append(paths, in.Path)
	}
	slices.Sort(paths)
	if want := []string{srv.Location("t/a.json"), srv.Location("t/b.avro"), srv.Location("t/sub/deep.json"), srv.Location("t/sub/x/y")}; err != nil || !slices.Equal(paths, want) {
		t.Fatalf("ListTree(t) = %q, %v; want %q", paths, err, want)
	}
}

// More objects than one listing page (1000) must all come back, in List
// and in ListTree.
func TestGCSListFollowsPages(t *testing.T) {
	srv := gcstest.Start(t)
	files := srv.FileIO(t)
	const n = 1003
	var wg sync.WaitGroup
	errs := make(chan error, n)
	sem := make(chan struct{}, 16)
	for i := range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			name := fmt.Sprintf("many/f%04d", i)
			if i%2 == 1 {
				name = fmt.Sprintf("many/d%d/f%04d", i%5, i)
			}
			errs <- files.WriteFile(t.Context(), srv.Location(name), []byte{byte(i)})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	before := files.Requests()
	tree, err := files.ListTree(t.Context(), srv.Location("many"))
	if err != nil || len(tree) != n {
		t.Fatalf("ListTree = %d entries, %v; want %d", len(tree), err, n)
	}
	if got := files.Requests() - before; got != 2 {
		t.Errorf("ListTree of %d objects took %d requests, want 2 pages", n, got)
	}
	infos, err := files.List(t.Context(), srv.Location("many"))
	if err != nil || len(infos) != (n+1)/2 {
		t.Fatalf("List = %d entries, %v; want %d", len(infos), err, (n+1)/2)
	}
	for i, in := range infos {
		if want := srv.Location(fmt.Sprintf("many/f%04d", 2*i)); in.Path != want {
			t.Fatalf("entry %d = %s, want %s", i, in.Path, want)
		}
	}
}

func TestGCSWriteFileIfAbsentHasExactlyOneWinner(t *testing.T) {
	srv := gcstest.Start(t)
	files := srv.FileIO(t)
	loc := srv.Location("t/metadata/v2.metadata.json")
	const writers = 16
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = files.WriteFileIfAbsent(t.Context(), loc, []byte(fmt.Sprintf("writer %d", i)))
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner >= 0:
			t.Fatalf("writers %d and %d both won", winner, i)
		case err == nil:
			winner = i
		case !errors.Is(err, fileio.ErrExists) || !errors.Is(err, fs.ErrExist) || !errors.Is(err, errkind.Conflict):
			t.Errorf("writer %d: %v, want ErrExists", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no writer won")
	}
	got, err := files.ReadFile(t.Context(), loc)
	if err != nil || string(got) != fmt.Sprintf("writer %d", winner) {
		t.Fatalf("content = %q, %v; winner was %d", got, err, winner)
	}
	if err := files.WriteFileIfAbsent(t.Context(), loc, got); !errors.Is(err, fileio.ErrExists) {
		t.Errorf("second identical write: %v, want ErrExists", err)
	}
}

func TestGCSCreateStreamsSmallAndResumableFiles(t *testing.T) {
	srv := gcstest.Start(t)
	opts := srv.Options()
	opts.ChunkSize = 1 << 20
	files := gcstest.NewFileIO(t, opts)
	ctx := t.Context()

	big := pattern(3<<20+12345, 4)
	loc := srv.Location("t/data/big.parquet")
	w, err := files.Create(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	before := files.Requests()
	for rest := big; len(rest) > 0; {
		n := min(len(rest), 100_003)
		if k, err := w.Write(rest[:n]); k != n || err != nil {
			t.Fatalf("Write = %d, %v", k, err)
		}
		rest = rest[n:]
	}
	if ok, _ := files.Exists(ctx, loc); ok {
		t.Fatal("object visible before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// A session and four chunks, plus the Exists probe.
	if got := files.Requests() - before; got < 5 {
		t.Errorf("resumable write sent %d requests", got)
	}
	if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes, %v; equal=%v", len(got), err, bytes.Equal(got, big))
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Close: %v", err)
	}

	// A file of exactly one chunk is one request; a tiny file too.
	for _, size := range []int{1 << 20, 5} {
		data := pattern(size, 5)
		loc := srv.Location(fmt.Sprintf("t/data/small-%d", size))
		w, err := files.Create(ctx, loc)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
		before := files.Requests()
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if got := files.Requests() - before; got != 1 {
			t.Errorf("%d-byte file: %d requests, want one", size, got)
		}
		if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d-byte file read back %d bytes, %v", size, len(got), err)
		}
	}
}

func TestGCSAbortedAndCancelledWritesLeaveNothing(t *testing.T) {
	srv := gcstest.Start(t)
	opts := srv.Options()
	opts.ChunkSize = 1 << 20
	files := gcstest.NewFileIO(t, opts)
	ctx := t.Context()
	data := pattern(3<<20, 6)

	abortLoc := srv.Location("t/data/aborted")
	w, err := files.Create(ctx, abortLoc)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}

	cctx, cancel := context.WithCancel(ctx)
	cancelLoc := srv.Location("t/data/cancelled")
	w, err = files.Create(cctx, cancelLoc)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(data)
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with a cancelled context: %v", err)
	}

	small, err := files.Create(ctx, srv.Location("t/data/small-aborted"))
	if err != nil {
		t.Fatal(err)
	}
	small.Write([]byte("x"))
	small.Abort()

	for _, loc := range []string{abortLoc, cancelLoc, srv.Location("t/data/small-aborted")} {
		if ok, err := files.Exists(ctx, loc); ok || err != nil {
			t.Errorf("Exists(%s) = %v, %v after an aborted write", loc, ok, err)
		}
	}
}

// Through a proxy that answers every 3rd request 503 and cuts every 4th
// response body in half, every operation still gives exactly the right
// bytes.
func TestGCSSurvivesThrottlingAndTruncatedBodies(t *testing.T) {
	srv := gcstest.Start(t)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	proxy.SetFailEvery(3)
	proxy.SetTruncateEvery(4)
	opts := srv.OptionsVia(proxy.URL)
	opts.ChunkSize = 1 << 20
	files := gcstest.NewFileIO(t, opts)
	ctx := t.Context()

	data := pattern(1<<20+17, 7)
	loc := srv.Location("faulty/obj.bin")
	put(t, files, loc, data)
	got, err := files.ReadFile(ctx, loc)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile: %d bytes, %v", len(got), err)
	}
	f, err := files.Open(ctx, loc)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 9))
	buf := make([]byte, 64<<10)
	for range 150 {
		off := r.IntN(len(data) - 1)
		n := min(1+r.IntN(len(buf)), len(data)-off)
		k, err := f.ReadAt(buf[:n], int64(off))
		if err != nil || k != n || !bytes.Equal(buf[:n], data[off:off+n]) {
			t.Fatalf("ReadAt(%d at %d) = %d, %v, equal=%v", n, off, k, err, bytes.Equal(buf[:k], data[off:off+k]))
		}
	}
	if k, err := f.ReadAt(buf[:100], int64(len(data)-40)); k != 40 || err != io.EOF || !bytes.Equal(buf[:40], data[len(data)-40:]) {
		t.Fatalf("ReadAt across EOF through faults = %d, %v", k, err)
	}

	// Writes, listings and a resumable upload go through the same faults.
	big := pattern(3<<20, 8)
	w, err := files.Create(ctx, srv.Location("faulty/big"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(big)
	if err := w.Close(); err != nil {
		t.Fatalf("resumable Close through faults: %v", err)
	}
	for i := range 6 {
		if err := files.WriteFileIfAbsent(ctx, srv.Location(fmt.Sprintf("faulty/m%d", i)), []byte{byte(i)}); err != nil {
			t.Fatalf("WriteFileIfAbsent %d through faults: %v", i, err)
		}
	}
	infos, err := files.List(ctx, srv.Location("faulty"))
	if err != nil || len(infos) != 8 {
		t.Fatalf("List through faults = %d entries, %v", len(infos), err)
	}

	direct := srv.FileIO(t)
	if got, err := direct.ReadFile(ctx, srv.Location("faulty/big")); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("resumable object read back directly: %d bytes, %v", len(got), err)
	}
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
	t.Logf("%d requests through the proxy, %d answered 503, %d truncated", proxy.Requests(), proxy.Failed(), proxy.Truncated())
}

// A create that landed but whose answer was lost is retried, meets 412,
// and must then recognise its own bytes; someone else's bytes are still
// ErrExists.
func TestGCSWriteFileIfAbsentRecognisesItsOwnEarlierSuccess(t *testing.T) {
	srv := gcstest.Start(t)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	files := gcstest.NewFileIO(t, srv.OptionsVia(proxy.URL))
	ctx := t.Context()

	mine := srv.Location("t/metadata/v3.metadata.json")
	proxy.DropResponses(1)
	if err := files.WriteFileIfAbsent(ctx, mine, []byte("ours")); err != nil {
		t.Fatalf("WriteFileIfAbsent after a lost answer: %v", err)
	}
	if proxy.Dropped() != 1 || proxy.Requests() != 3 {
		t.Fatalf("%d dropped, %d requests; want 1 dropped and create, create (412), GET", proxy.Dropped(), proxy.Requests())
	}

	theirs := srv.Location("t/metadata/v4.metadata.json")
	put(t, srv.FileIO(t), theirs, []byte("theirs"))
	proxy.DropResponses(1)
	if err := files.WriteFileIfAbsent(ctx, theirs, []byte("ours")); !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("WriteFileIfAbsent over another writer's object after a lost answer: %v, want ErrExists", err)
	}
	if got, _ := files.ReadFile(ctx, theirs); string(got) != "theirs" {
		t.Fatalf("the other writer's object became %q", got)
	}
}

// When every request fails, every operation ends within a bounded time with
// an error that says why, and a read reports no bytes.
func TestGCSGivesUpClearlyWhenEveryRequestFails(t *testing.T) {
	srv := gcstest.Start(t)
	data := pattern(10_000, 10)
	loc := srv.Location("broken/obj")
	put(t, srv.FileIO(t), loc, data)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	files := gcstest.NewFileIO(t, srv.OptionsVia(proxy.URL))
	ctx := t.Context()

	proxy.SetFailEvery(1)
	start := time.Now()
	_, err := files.ReadFile(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "after 5 tries") || !strings.Contains(err.Error(), loc) {
		t.Fatalf("ReadFile through an always-503 proxy: %v", err)
	}
	if proxy.Requests() != 5 {
		t.Errorf("%d requests, want 5 tries", proxy.Requests())
	}
	if err := files.WriteFile(ctx, loc, []byte("x")); err == nil {
		t.Fatal("WriteFile succeeded through an always-503 proxy")
	}
	if _, err := files.Stat(ctx, loc); err == nil || errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat through an always-503 proxy: %v", err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("giving up took %v", elapsed)
	}

	// Every body cut in half: unlike S3's SDK, Google's library resumes a
	// cut read from the byte where it broke off, with a ranged request for
	// the rest, so each try makes progress and the bytes come out exact.
	proxy.SetFailEvery(0)
	proxy.SetTruncateEvery(1)
	f, err := files.OpenSized(ctx, loc, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4000)
	before := proxy.Requests()
	if n, err := f.ReadAt(buf, 3); n != 4000 || err != nil || !bytes.Equal(buf, data[3:4003]) {
		t.Fatalf("ReadAt with every body cut = %d, %v", n, err)
	}
	if got := proxy.Requests() - before; got < 5 {
		t.Errorf("a read with every body cut took %d requests; the cuts did not happen", got)
	}
	if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile with every body cut: %d bytes, %v", len(got), err)
	}
	if got, _ := srv.FileIO(t).ReadFile(ctx, loc); !bytes.Equal(got, data) {
		t.Fatal("the object changed although every write failed")
	}
}

func TestGCSHonoursContextDeadline(t *testing.T) {
	srv := gcstest.Start(t)
	loc := srv.Location("slow/obj")
	put(t, srv.FileIO(t), loc, []byte("x"))
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	proxy.SetDelay(time.Minute)
	files := gcstest.NewFileIO(t, srv.OptionsVia(proxy.URL))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := files.ReadFile(ctx, loc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadFile past its deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to notice the deadline", d)
	}
}

// No credentials anywhere: a clear error, naming how to give some.
func TestGCSMissingCredentialsFailClearly(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("STORAGE_EMULATOR_HOST", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", dir+"/none.json")
	_, err := fileio.NewGCS(t.Context(), fileio.GCSOptions{})
	if !errors.Is(err, errkind.Unauthorized) || !strings.Contains(err.Error(), "no usable credentials") {
		t.Fatalf("NewGCS without credentials: %v", err)
	}
	if _, err := fileio.NewGCS(t.Context(), fileio.GCSOptions{Anonymous: true, ChunkSize: 1000}); err == nil || !strings.Contains(err.Error(), "chunk_size") {
		t.Errorf("a chunk size of 1000: %v", err)
	}
	if _, err := fileio.NewGCS(t.Context(), fileio.GCSOptions{ServiceHost: "ftp://x"}); err == nil {
		t.Error("an ftp:// service host was accepted")
	}
}

// The table-open options carry GCS settings as JSON under "gcs";
// ForLocation serves gs:// with them and still serves local paths, and a
// bad GCS configuration only fails gs:// paths. STORAGE_EMULATOR_HOST
// alone reaches the emulator too.
func TestForLocationServesGCSFromJSONOptions(t *testing.T) {
	srv := gcstest.Start(t)
	raw := fmt.Sprintf(`{"gcs": {"service_host": %q, "max_attempts": 3, "project_id": "p"}}`, srv.Endpoint)
	var opts fileio.Options
	if err := json.Unmarshal([]byte(raw), &opts); err != nil {
		t.Fatal(err)
	}
	if opts.GCS == nil || opts.GCS.ServiceHost != srv.Endpoint || opts.GCS.MaxAttempts != 3 || opts.GCS.ProjectID != "p" {
		t.Fatalf("parsed options = %+v", opts.GCS)
	}
	files, err := fileio.ForLocation(srv.Location("t"), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := files.WriteFile(ctx, srv.Location("t/x"), []byte("via options")); err != nil {
		t.Fatal(err)
	}
	if got, err := files.ReadFile(ctx, srv.Location("t/x")); err != nil || string(got) != "via options" {
		t.Fatalf("ReadFile(gs://) = %q, %v", got, err)
	}

	t.Setenv("STORAGE_EMULATOR_HOST", strings.TrimPrefix(srv.Endpoint, "http://"))
	env, err := fileio.ForLocation(srv.Location("t"), fileio.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := env.ReadFile(ctx, srv.Location("t/x")); err != nil || string(got) != "via options" {
		t.Fatalf("ReadFile through STORAGE_EMULATOR_HOST = %q, %v", got, err)
	}

	local := t.TempDir() + "/f"
	if err := os.WriteFile(local, []byte("local"), 0o666); err != nil {
		t.Fatal(err)
	}
	bad, err := fileio.ForLocation(local, fileio.Options{GCS: &fileio.GCSOptions{ChunkSize: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bad.ReadFile(ctx, local); err != nil || string(got) != "local" {
		t.Fatalf("local read beside a bad GCS config = %q, %v", got, err)
	}
	if _, err := bad.ReadFile(ctx, srv.Location("t/x")); err == nil || !strings.Contains(err.Error(), "chunk_size") {
		t.Fatalf("GCS read with a bad GCS config: %v", err)
	}
}

// pyiceberg's and Java's property names configure GCS; later sets win, and
// a token beside gcs.no-auth wins whatever the order.
func TestWithGCSProperties(t *testing.T) {
	if got := fileio.WithGCSProperties(nil, map[string]string{"s3.endpoint": "x"}); got != nil {
		t.Fatalf("no gcs.* property gave %+v", got)
	}
	got := fileio.WithGCSProperties(&fileio.GCSOptions{MaxAttempts: 7},
		map[string]string{"gcs.project-id": "p1", "gcs.service.host": "http://a", "gcs.no-auth": "true"},
		map[string]string{"gcs.service-host": "http://b", "gcs.oauth2.token": "tok", "gcs.no-auth": "true"})
	want := fileio.GCSOptions{MaxAttempts: 7, ProjectID: "p1", ServiceHost: "http://b", OAuth2Token: "tok"}
	if got == nil || *got != want {
		t.Fatalf("WithGCSProperties = %+v, want %+v", got, want)
	}
}
