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
	"net"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/s3test"
)

// pattern is deterministic data whose every byte depends on its offset, so
// a read from the wrong place or a stale buffer shows.
func pattern(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, uint64(n)))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func put(t *testing.T, files fileio.FileIO, loc string, data []byte) {
	t.Helper()
	if err := files.WriteFile(t.Context(), loc, data); err != nil {
		t.Fatalf("WriteFile(%s): %v", loc, err)
	}
}

func TestS3RangedReadsAtOddOffsetsAndEOF(t *testing.T) {
	srv := s3test.Start(t)
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
	// Across the end: the bytes that exist, then io.EOF.
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
	// OpenSized with the right size reads without a HEAD.
	before := files.Requests()
	g, _ = files.OpenSized(ctx, loc, int64(len(data)))
	if n, err := g.ReadAt(buf, 5); n != 10 || err != nil || !bytes.Equal(buf, data[5:15]) {
		t.Fatalf("OpenSized ReadAt = %d, %v", n, err)
	}
	if got := files.Requests() - before; got != 1 {
		t.Errorf("OpenSized + ReadAt sent %d requests, want 1", got)
	}
}

func TestS3StatExistsReadFileDelete(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(5000, 2)
	loc := srv.Location("t/metadata/v1.metadata.json")
	put(t, files, loc, data)

	got, err := files.ReadFile(ctx, loc)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	// s3a:// is the same object.
	s3a := strings.Replace(loc, "s3://", "s3a://", 1)
	info, err := files.Stat(ctx, s3a)
	if err != nil || info.Size != 5000 || info.Path != s3a || info.ModTime.IsZero() {
		t.Fatalf("Stat(s3a) = %+v, %v", info, err)
	}
	if ok, err := files.Exists(ctx, loc); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	// A prefix other objects share is not an object.
	if ok, err := files.Exists(ctx, srv.Location("t/metadata")); ok || err != nil {
		t.Fatalf("Exists(prefix) = %v, %v", ok, err)
	}
	if files.BytesRead() < int64(len(data)) {
		t.Errorf("BytesRead = %d after reading %d", files.BytesRead(), len(data))
	}

	if err := files.Delete(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if ok, err := files.Exists(ctx, loc); ok || err != nil {
		t.Fatalf("Exists after Delete = %v, %v", ok, err)
	}
	if err := files.Delete(ctx, loc); err != nil {
		t.Errorf("Delete of a missing object: %v (S3 deletes are idempotent)", err)
	}
	_, errOpen := files.Open(ctx, loc)
	_, errRead := files.ReadFile(ctx, loc)
	_, errStat := files.Stat(ctx, loc)
	for name, err := range map[string]error{"Open": errOpen, "ReadFile": errRead, "Stat": errStat} {
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), loc) {
			t.Errorf("%s of a missing object: %v, want fs.ErrNotExist naming the location", name, err)
		}
	}
	if _, err := files.ReadFile(ctx, "s3://"+srv.Bucket); err == nil {
		t.Error("ReadFile of a bare bucket succeeded")
	}
}

func TestS3ListsDirectChildrenInCallerSpelling(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	for key, size := range map[string]int{"t/b.avro": 2, "t/a.json": 1, "t/sub/deep.json": 3, "t/sub/x/y": 1, "tother": 1, "t-sibling/z": 1} {
		put(t, files, srv.Location(key), pattern(size, 3))
	}
	for _, dir := range []string{"s3a://" + srv.Bucket + "/t", "s3a://" + srv.Bucket + "/t/"} {
		infos, err := files.List(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, in := range infos {
			paths = append(paths, in.Path)
		}
		base := "s3a://" + srv.Bucket + "/t/"
		if want := []string{base + "a.json", base + "b.avro"}; !slices.Equal(paths, want) {
			t.Fatalf("List(%s) = %q, want %q", dir, paths, want)
		}
		if infos[1].Size != 2 || infos[0].ModTime.IsZero() {
			t.Errorf("List infos = %+v", infos)
		}
	}
	if infos, err := files.List(ctx, srv.Location("nothing/here")); err != nil || len(infos) != 0 {
		t.Fatalf("List(missing) = %v, %v", infos, err)
	}
	infos, err := files.List(ctx, "s3://"+srv.Bucket)
	if err != nil || len(infos) != 1 || infos[0].Path != srv.Location("tother") {
		t.Fatalf("List(bucket) = %+v, %v", infos, err)
	}
	dirs, err := fileio.ListDirs(ctx, files, "s3a://"+srv.Bucket+"/t")
	if want := []string{"s3a://" + srv.Bucket + "/t/sub"}; err != nil || !slices.Equal(dirs, want) {
		t.Fatalf("ListDirs(t) = %q, %v; want %q", dirs, err, want)
	}
	dirs, err = fileio.ListDirs(ctx, files, "s3://"+srv.Bucket)
	if want := []string{srv.Location("t"), srv.Location("t-sibling")}; err != nil || !slices.Equal(dirs, want) {
		t.Fatalf("ListDirs(bucket) = %q, %v; want %q", dirs, err, want)
	}
}

// More objects than one ListObjectsV2 page (1000) must all come back.
func TestS3ListFollowsPages(t *testing.T) {
	srv := s3test.Start(t)
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
			errs <- files.WriteFile(t.Context(), srv.Location(fmt.Sprintf("many/f%04d", i)), []byte{byte(i)})
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	infos, err := files.List(t.Context(), srv.Location("many"))
	if err != nil || len(infos) != n {
		t.Fatalf("List = %d entries, %v; want %d", len(infos), err, n)
	}
	for i, in := range infos {
		if want := srv.Location(fmt.Sprintf("many/f%04d", i)); in.Path != want {
			t.Fatalf("entry %d = %s, want %s", i, in.Path, want)
		}
	}
}

func TestS3WriteFileIfAbsentHasExactlyOneWinner(t *testing.T) {
	srv := s3test.Start(t)
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
		case !errors.Is(err, fileio.ErrExists) || !errors.Is(err, fs.ErrExist):
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
	// Same bytes as the winner, but a fresh call: still ErrExists, since
	// this call never had a try that may have landed.
	if err := files.WriteFileIfAbsent(t.Context(), loc, got); !errors.Is(err, fileio.ErrExists) {
		t.Errorf("second identical write: %v, want ErrExists", err)
	}
}

func TestS3CreateStreamsSmallAndMultipartFiles(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()

	big := pattern(12<<20+12345, 4)
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
	// create + 2 parts + complete, plus the Exists probe.
	if got := files.Requests() - before; got < 5 {
		t.Errorf("multipart write sent %d requests", got)
	}
	if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes, %v; equal=%v", len(got), err, bytes.Equal(got, big))
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Close: %v", err)
	}

	// A file of exactly one part is one PUT; a tiny file too.
	for _, size := range []int{8 << 20, 5} {
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
			t.Errorf("%d-byte file: %d requests, want one PUT", size, got)
		}
		if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d-byte file read back %d bytes, %v", size, len(got), err)
		}
	}
	if n := srv.PendingUploads(t); n != 0 {
		t.Errorf("%d multipart uploads left pending", n)
	}
}

func TestS3AbortedAndCancelledWritesLeaveNothing(t *testing.T) {
	srv := s3test.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(12<<20, 6)

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
	if n := srv.PendingUploads(t); n != 0 {
		t.Errorf("%d multipart uploads left pending", n)
	}
}

// Through a proxy that answers every 3rd request 503 SlowDown and cuts every
// 4th response body in half, every operation still gives exactly the
// right bytes.
func TestS3SurvivesThrottlingAndTruncatedBodies(t *testing.T) {
	srv := s3test.Start(t)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	proxy.SetFailEvery(3)
	proxy.SetTruncateEvery(4)
	opts := srv.OptionsVia(proxy)
	files := s3test.NewFileIO(t, opts)
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
	// Sequential reads: with a fixed every-3rd-request rule, concurrent
	// readers falling into a steady rhythm could pin every failure on one
	// of them, which tests the proxy's arithmetic rather than the client.
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
	// The tail, through io.EOF.
	if k, err := f.ReadAt(buf[:100], int64(len(data)-40)); k != 40 || err != io.EOF || !bytes.Equal(buf[:40], data[len(data)-40:]) {
		t.Fatalf("ReadAt across EOF through faults = %d, %v", k, err)
	}

	// Writes, listings and a multipart upload go through the same faults.
	big := pattern(12<<20, 8)
	w, err := files.Create(ctx, srv.Location("faulty/big"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(big)
	if err := w.Close(); err != nil {
		t.Fatalf("multipart Close through faults: %v", err)
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
		t.Fatalf("multipart object read back directly: %d bytes, %v", len(got), err)
	}
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
	t.Logf("%d requests through the proxy, %d answered SlowDown, %d truncated", proxy.Requests(), proxy.Failed(), proxy.Truncated())
}

// A conditional PUT that landed but whose answer was lost is retried, meets
// 412, and must then recognise its own bytes; someone else's bytes are
// still ErrExists.
func TestS3WriteFileIfAbsentRecognisesItsOwnEarlierSuccess(t *testing.T) {
	srv := s3test.Start(t)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	files := s3test.NewFileIO(t, srv.OptionsVia(proxy))
	ctx := t.Context()

	mine := srv.Location("t/metadata/v3.metadata.json")
	proxy.DropResponses(1)
	if err := files.WriteFileIfAbsent(ctx, mine, []byte("ours")); err != nil {
		t.Fatalf("WriteFileIfAbsent after a lost answer: %v", err)
	}
	if proxy.Dropped() != 1 || proxy.Requests() != 3 {
		t.Fatalf("%d dropped, %d requests; want 1 dropped and PUT, PUT (412), GET", proxy.Dropped(), proxy.Requests())
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
func TestS3GivesUpClearlyWhenEveryRequestFails(t *testing.T) {
	srv := s3test.Start(t)
	data := pattern(10_000, 10)
	loc := srv.Location("broken/obj")
	put(t, srv.FileIO(t), loc, data)
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	files := s3test.NewFileIO(t, srv.OptionsVia(proxy))
	ctx := t.Context()

	proxy.SetFailEvery(1)
	start := time.Now()
	_, err := files.ReadFile(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), "SlowDown") || !strings.Contains(err.Error(), "after 5 tries") || !strings.Contains(err.Error(), loc) {
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

	proxy.SetFailEvery(0)
	proxy.SetTruncateEvery(1)
	f, err := files.OpenSized(ctx, loc, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4000)
	if n, err := f.ReadAt(buf, 3); n != 0 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("ReadAt with every body cut = %d, %v; want 0 and a short-body error", n, err)
	}
	if _, err := files.ReadFile(ctx, loc); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("ReadFile with every body cut: %v", err)
	}
	if got, _ := srv.FileIO(t).ReadFile(ctx, loc); !bytes.Equal(got, data) {
		t.Fatal("the object changed although every write failed")
	}
}

func TestS3UnreachableEndpointFailsFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens here now
	files := s3test.NewFileIO(t, fileio.S3Options{Endpoint: "http://" + addr, AccessKeyID: "a", SecretAccessKey: "b",
		PathStyle: true, RetryBaseDelay: time.Millisecond, RetryMaxDelay: 10 * time.Millisecond})
	start := time.Now()
	_, err = files.Stat(t.Context(), "s3://b/k")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "after 5 tries") {
		t.Fatalf("Stat against a closed port: %v", err)
	}
	if files.Requests() != 5 {
		t.Errorf("%d requests, want 5", files.Requests())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

func TestS3HonoursContextDeadline(t *testing.T) {
	srv := s3test.Start(t)
	loc := srv.Location("slow/obj")
	put(t, srv.FileIO(t), loc, []byte("x"))
	proxy := s3test.StartFaultProxy(t, srv.Endpoint)
	proxy.SetDelay(time.Minute)
	files := s3test.NewFileIO(t, srv.OptionsVia(proxy))
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

// No credentials anywhere: a clear error at once, not a probe of the EC2
// metadata service.
func TestS3MissingCredentialsFailClearly(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
		"AWS_DEFAULT_PROFILE", "AWS_ROLE_ARN", "AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_CONTAINER_CREDENTIALS_FULL_URI",
		"AWS_CONTAINER_CREDENTIALS_RELATIVE_URI", "AWS_EC2_METADATA_DISABLED"} {
		t.Setenv(name, "")
	}
	t.Setenv("AWS_CONFIG_FILE", dir+"/none")
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", dir+"/none")
	start := time.Now()
	_, err := fileio.NewS3(t.Context(), fileio.S3Options{Endpoint: "http://127.0.0.1:1"})
	if !errors.Is(err, errkind.Unauthorized) || !strings.Contains(err.Error(), "no usable credentials") {
		t.Fatalf("NewS3 without credentials: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v: something was probed", d)
	}
	if _, err := fileio.NewS3(t.Context(), fileio.S3Options{AccessKeyID: "only-half"}); err == nil {
		t.Error("an access key without a secret was accepted")
	}
	if _, err := fileio.NewS3(t.Context(), fileio.S3Options{Anonymous: true, PartSize: 1 << 20}); err == nil || !strings.Contains(err.Error(), "part_size") {
		t.Errorf("a 1 MiB part size: %v", err)
	}
}

// The table-open options carry S3 settings as JSON under "s3"; ForLocation
// serves s3:// and s3a:// with them and still serves local paths, and a bad
// S3 configuration only fails S3 paths.
func TestForLocationServesS3FromJSONOptions(t *testing.T) {
	srv := s3test.Start(t)
	o := srv.Options()
	raw := fmt.Sprintf(`{"s3": {"endpoint": %q, "region": %q, "access_key_id": %q, "secret_access_key": %q, "path_style": true, "max_attempts": 3}}`,
		o.Endpoint, o.Region, o.AccessKeyID, o.SecretAccessKey)
	var opts fileio.Options
	if err := json.Unmarshal([]byte(raw), &opts); err != nil {
		t.Fatal(err)
	}
	if opts.S3 == nil || !opts.S3.PathStyle || opts.S3.MaxAttempts != 3 || opts.S3.AccessKeyID != o.AccessKeyID {
		t.Fatalf("parsed options = %+v", opts.S3)
	}
	files, err := fileio.ForLocation(srv.Location("t"), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if err := files.WriteFile(ctx, "s3a://"+srv.Bucket+"/t/x", []byte("via s3a")); err != nil {
		t.Fatal(err)
	}
	if got, err := files.ReadFile(ctx, srv.Location("t/x")); err != nil || string(got) != "via s3a" {
		t.Fatalf("ReadFile(s3://) = %q, %v", got, err)
	}

	local := t.TempDir() + "/f"
	if err := os.WriteFile(local, []byte("local"), 0o666); err != nil {
		t.Fatal(err)
	}
	bad, err := fileio.ForLocation(local, fileio.Options{S3: &fileio.S3Options{PartSize: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bad.ReadFile(ctx, local); err != nil || string(got) != "local" {
		t.Fatalf("local read beside a bad S3 config = %q, %v", got, err)
	}
	if _, err := bad.ReadFile(ctx, srv.Location("t/x")); err == nil || !strings.Contains(err.Error(), "part_size") {
		t.Fatalf("S3 read with a bad S3 config: %v", err)
	}
}
