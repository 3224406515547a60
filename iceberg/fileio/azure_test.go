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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/azuritetest"
	"github.com/floedb/floe/internal/s3test"
)

// The Azure FileIO against Azurite, the same contract the S3 tests hold
// versitygw to.

func TestAzureRangedReadsAtOddOffsetsAndEOF(t *testing.T) {
	srv := azuritetest.Start(t)
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
	// Concurrent ranged reads, as the reader's coalesced fetches make them.
	var wg sync.WaitGroup
	cases := []struct{ off, n int }{{0, 1}, {1, 7}, {4095, 4097}, {65_537, 12_345}, {99_990, 13}, {0, len(data)}}
	errs := make([]error, len(cases))
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, c.n)
			n, err := f.ReadAt(buf, int64(c.off))
			if n != c.n || err != nil || !bytes.Equal(buf, data[c.off:c.off+c.n]) {
				errs[i] = fmt.Errorf("ReadAt(%d bytes at %d) = %d, %v, equal=%v", c.n, c.off, n, err, bytes.Equal(buf, data[c.off:c.off+c.n]))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
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
	// OpenSized with the right size reads without a properties request.
	before := files.Requests()
	g, _ = files.OpenSized(ctx, loc, int64(len(data)))
	if n, err := g.ReadAt(buf, 5); n != 10 || err != nil || !bytes.Equal(buf, data[5:15]) {
		t.Fatalf("OpenSized ReadAt = %d, %v", n, err)
	}
	if got := files.Requests() - before; got != 1 {
		t.Errorf("OpenSized + ReadAt sent %d requests, want 1", got)
	}
}

func TestAzureStatExistsReadFileDeleteInEverySpelling(t *testing.T) {
	srv := azuritetest.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	data := pattern(5000, 2)
	loc := srv.Location("t/metadata/v1.metadata.json") // abfs://c@devstoreaccount1.dfs.core.windows.net/…
	put(t, files, loc, data)

	got, err := files.ReadFile(ctx, loc)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("ReadFile = %d bytes, %v", len(got), err)
	}
	// abfss://, wasb:// and wasbs:// name the same blob, on the blob or
	// dfs host alike.
	for _, other := range []string{
		strings.Replace(loc, "abfs://", "abfss://", 1),
		strings.Replace(strings.Replace(loc, "abfs://", "wasb://", 1), ".dfs.", ".blob.", 1),
		strings.Replace(loc, "abfs://", "wasbs://", 1),
	} {
		info, err := files.Stat(ctx, other)
		if err != nil || info.Size != 5000 || info.Path != other || info.ModTime.IsZero() {
			t.Fatalf("Stat(%s) = %+v, %v", other, info, err)
		}
	}
	if ok, err := files.Exists(ctx, loc); !ok || err != nil {
		t.Fatalf("Exists = %v, %v", ok, err)
	}
	if ok, err := files.Exists(ctx, srv.Location("t/metadata")); ok || err != nil {
		t.Fatalf("Exists(prefix) = %v, %v", ok, err)
	}
	missing := srv.Location("t/metadata/v9.metadata.json")
	if _, err := files.ReadFile(ctx, missing); !errors.Is(err, fs.ErrNotExist) || !errors.Is(err, errkind.NotFound) || !strings.Contains(err.Error(), missing) {
		t.Fatalf("ReadFile(missing) = %v", err)
	}
	if _, err := files.Open(ctx, missing); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Open(missing) = %v", err)
	}
	if _, err := fileio.ReadFileLimited(ctx, files, loc, 4999); !errors.Is(err, errkind.Corrupt) {
		t.Fatalf("ReadFileLimited under the size: %v", err)
	}
	if err := files.Delete(ctx, loc); err != nil {
		t.Fatal(err)
	}
	if ok, _ := files.Exists(ctx, loc); ok {
		t.Fatal("blob still exists after Delete")
	}
	if err := files.Delete(ctx, loc); err != nil {
		t.Fatalf("deleting a missing blob: %v", err)
	}
	// A container that does not exist is not found, not an I/O failure.
	other := strings.Replace(loc, srv.Container+"@", "no-such-container@", 1)
	if _, err := files.Stat(ctx, other); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("Stat in a missing container: %v", err)
	}
	for _, bad := range []string{"abfs://c@acc.dfs.core.windows.net", "abfs://@acc.dfs.core.windows.net/k", "abfs://c@a/b.dfs.core.windows.net/k", "abfs:c/k"} {
		if _, err := files.Stat(ctx, bad); err == nil {
			t.Errorf("Stat(%q) succeeded", bad)
		}
	}
}

func TestAzureListsDirectChildrenTreesAndPages(t *testing.T) {
	srv := azuritetest.Start(t)
	files := srv.FileIO(t)
	ctx := t.Context()
	defer fileio.SetAzureListPageSize(7)()
	var want []string
	for i := range 23 {
		name := fmt.Sprintf("d/f%02d", i)
		put(t, files, srv.Location(name), []byte{byte(i)})
		want = append(want, srv.Location(name))
	}
	put(t, files, srv.Location("d/sub/deep"), []byte("x"))
	put(t, files, srv.Location("d/sub2/x/deeper"), []byte("y"))
	put(t, files, srv.Location("dx"), []byte("not under d/"))

	before := files.Requests()
	infos, err := files.List(ctx, srv.Location("d"))
	if err != nil || len(infos) != len(want) {
		t.Fatalf("List = %d entries, %v; want %d", len(infos), err, len(want))
	}
	for i, in := range infos {
		if in.Path != want[i] || in.Size != 1 || in.ModTime.IsZero() {
			t.Fatalf("entry %d = %+v, want %s", i, in, want[i])
		}
	}
	if pages := files.Requests() - before; pages < 4 {
		t.Errorf("List of 25 entries in pages of 7 took %d requests", pages)
	}
	// The caller's spelling, trailing slash or not.
	wasbs := strings.Replace(srv.Location("d"), "abfs://", "wasbs://", 1) + "/"
	if infos, err := files.List(ctx, wasbs); err != nil || len(infos) != len(want) || !strings.HasPrefix(infos[0].Path, "wasbs://") {
		t.Fatalf("List(wasbs) = %v, %v", infos, err)
	}
	dirs, err := files.ListDirs(ctx, srv.Location("d"))
	if err != nil || len(dirs) != 2 || dirs[0] != srv.Location("d/sub") || dirs[1] != srv.Location("d/sub2") {
		t.Fatalf("ListDirs = %v, %v", dirs, err)
	}
	tree, err := fileio.ListTree(ctx, files, srv.Location("d"))
	if err != nil || len(tree) != len(want)+2 {
		t.Fatalf("ListTree = %d entries, %v", len(tree), err)
	}
	if last := tree[len(tree)-1]; last.Path != srv.Location("d/sub2/x/deeper") {
		t.Fatalf("ListTree's last entry = %+v", last)
	}
	if infos, err := files.List(ctx, srv.Location("nothing/here")); err != nil || len(infos) != 0 {
		t.Fatalf("List(empty prefix) = %v, %v", infos, err)
	}
	top, err := files.List(ctx, srv.Location())
	if err != nil || len(top) != 1 || top[0].Path != srv.Location("dx") {
		t.Fatalf("List(container) = %v, %v", top, err)
	}
}

func TestAzureWriteFileIfAbsentHasExactlyOneWinner(t *testing.T) {
	srv := azuritetest.Start(t)
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

func TestAzureCreateStagesBlocksAndSmallFilesArePutWhole(t *testing.T) {
	srv := azuritetest.Start(t)
	opts := srv.Options()
	opts.BlockSize = 1 << 20
	files := azuritetest.NewFileIO(t, opts)
	ctx := t.Context()

	big := pattern(5<<20+12345, 4)
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
		t.Fatal("blob visible before Close")
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	// 6 blocks + the block list, plus the Exists probe.
	if got := files.Requests() - before; got != 8 {
		t.Errorf("staged write sent %d requests, want 8", got)
	}
	if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("read back %d bytes, %v; equal=%v", len(got), err, bytes.Equal(got, big))
	}
	if err := w.Abort(); err != nil {
		t.Errorf("Abort after Close: %v", err)
	}
	for _, size := range []int{1 << 20, 5, 0} {
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
			t.Errorf("%d-byte file: %d requests, want one Put Blob", size, got)
		}
		if got, err := files.ReadFile(ctx, loc); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d-byte file read back %d bytes, %v", size, len(got), err)
		}
	}

	// Aborted and cancelled writes leave nothing visible.
	abortLoc, cancelLoc := srv.Location("t/data/aborted"), srv.Location("t/data/cancelled")
	w, _ = files.Create(ctx, abortLoc)
	w.Write(big)
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err == nil {
		t.Error("Close after Abort succeeded")
	}
	cctx, cancel := context.WithCancel(ctx)
	w, _ = files.Create(cctx, cancelLoc)
	w.Write(big)
	cancel()
	if err := w.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close with a cancelled context: %v", err)
	}
	for _, l := range []string{abortLoc, cancelLoc} {
		if ok, err := files.Exists(ctx, l); ok || err != nil {
			t.Errorf("Exists(%s) = %v, %v after an aborted write", l, ok, err)
		}
	}
}

// Through a proxy that answers every 3rd request 503 and cuts every 4th
// response body in half, every operation still gives exactly the right
// bytes.
func TestAzureSurvivesThrottlingAndTruncatedBodies(t *testing.T) {
	srv := azuritetest.Start(t)
	proxy := s3test.StartFaultProxy(t, "http://"+srv.Authority)
	proxy.SetFailEvery(3)
	proxy.SetTruncateEvery(4)
	opts := srv.OptionsVia(strings.TrimPrefix(proxy.URL, "http://"))
	opts.BlockSize = 1 << 20
	opts.MaxAttempts = 10
	files := azuritetest.NewFileIO(t, opts)
	ctx := t.Context()
	defer fileio.SetAzureListPageSize(3)()

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
	for range 100 {
		off := r.IntN(len(data) - 1)
		n := min(1+r.IntN(len(buf)), len(data)-off)
		k, err := f.ReadAt(buf[:n], int64(off))
		if err != nil || k != n || !bytes.Equal(buf[:n], data[off:off+n]) {
			t.Fatalf("ReadAt(%d at %d) = %d, %v, equal=%v", n, off, k, err, bytes.Equal(buf[:k], data[off:off+k]))
		}
	}
	big := pattern(4<<20, 8)
	w, err := files.Create(ctx, srv.Location("faulty/big"))
	if err != nil {
		t.Fatal(err)
	}
	w.Write(big)
	if err := w.Close(); err != nil {
		t.Fatalf("staged Close through faults: %v", err)
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
	if got, err := srv.FileIO(t).ReadFile(ctx, srv.Location("faulty/big")); err != nil || !bytes.Equal(got, big) {
		t.Fatalf("staged blob read back directly: %d bytes, %v", len(got), err)
	}
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
	t.Logf("%d requests through the proxy, %d answered 503, %d truncated", proxy.Requests(), proxy.Failed(), proxy.Truncated())
}

// A conditional put that landed but whose answer was lost is retried,
// finds the blob, and must then recognise its own bytes; someone else's
// bytes are still ErrExists.
func TestAzureWriteFileIfAbsentRecognisesItsOwnEarlierSuccess(t *testing.T) {
	srv := azuritetest.Start(t)
	proxy := s3test.StartFaultProxy(t, "http://"+srv.Authority)
	files := azuritetest.NewFileIO(t, srv.OptionsVia(strings.TrimPrefix(proxy.URL, "http://")))
	ctx := t.Context()

	mine := srv.Location("t/metadata/v3.metadata.json")
	proxy.DropResponses(1)
	if err := files.WriteFileIfAbsent(ctx, mine, []byte("ours")); err != nil {
		t.Fatalf("WriteFileIfAbsent after a lost answer: %v", err)
	}
	if proxy.Dropped() != 1 || proxy.Requests() != 3 {
		t.Fatalf("%d dropped, %d requests; want 1 dropped and PUT, PUT (exists), GET", proxy.Dropped(), proxy.Requests())
	}
	theirs := srv.Location("t/metadata/v4.metadata.json")
	put(t, srv.FileIO(t), theirs, []byte("theirs"))
	proxy.DropResponses(1)
	if err := files.WriteFileIfAbsent(ctx, theirs, []byte("ours")); !errors.Is(err, fileio.ErrExists) {
		t.Fatalf("WriteFileIfAbsent over another writer's blob after a lost answer: %v, want ErrExists", err)
	}
	if got, _ := files.ReadFile(ctx, theirs); string(got) != "theirs" {
		t.Fatalf("the other writer's blob became %q", got)
	}
}

// When every request fails, every operation ends within a bounded time with
// an error that says why, and a read reports no bytes.
func TestAzureGivesUpClearlyWhenEveryRequestFails(t *testing.T) {
	srv := azuritetest.Start(t)
	data := pattern(10_000, 10)
	loc := srv.Location("broken/obj")
	put(t, srv.FileIO(t), loc, data)
	proxy := s3test.StartFaultProxy(t, "http://"+srv.Authority)
	files := azuritetest.NewFileIO(t, srv.OptionsVia(strings.TrimPrefix(proxy.URL, "http://")))
	ctx := t.Context()

	proxy.SetFailEvery(1)
	start := time.Now()
	_, err := files.ReadFile(ctx, loc)
	if err == nil || !strings.Contains(err.Error(), "503") || !strings.Contains(err.Error(), "after 5 tries") || !strings.Contains(err.Error(), loc) {
		t.Fatalf("ReadFile through an always-503 proxy: %v", err)
	}
	if strings.Contains(err.Error(), "\n") {
		t.Errorf("the error is the SDK's many-line dump: %q", err)
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
	if got, _ := srv.FileIO(t).ReadFile(ctx, loc); !bytes.Equal(got, data) {
		t.Fatal("the blob changed although every write failed")
	}
}

func TestAzureUnreachableEndpointAndDeadlineFailFast(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	files := azuritetest.NewFileIO(t, fileio.AzureOptions{AccountName: azuritetest.Account, AccountKey: azuritetest.Key,
		BlobStorageAuthority: addr, BlobStorageScheme: "http", RetryBaseDelay: time.Millisecond, RetryMaxDelay: 10 * time.Millisecond})
	start := time.Now()
	_, err = files.Stat(t.Context(), "abfs://c@devstoreaccount1.dfs.core.windows.net/k")
	if err == nil || !strings.Contains(err.Error(), "connection refused") || !strings.Contains(err.Error(), "after 5 tries") {
		t.Fatalf("Stat against a closed port: %v", err)
	}
	if files.Requests() != 5 {
		t.Errorf("%d requests, want 5", files.Requests())
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}

	srv := azuritetest.Start(t)
	loc := srv.Location("slow/obj")
	put(t, srv.FileIO(t), loc, []byte("x"))
	proxy := s3test.StartFaultProxy(t, "http://"+srv.Authority)
	proxy.SetDelay(time.Minute)
	slow := azuritetest.NewFileIO(t, srv.OptionsVia(strings.TrimPrefix(proxy.URL, "http://")))
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	if _, err := slow.ReadFile(ctx, loc); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("ReadFile past its deadline: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v to notice the deadline", d)
	}
}

// Credentials come from the options or the AZURE_STORAGE_* environment;
// none gives a clear error naming the account and never a key; a wrong
// key is refused by the server.
func TestAzureCredentialsFromOptionsEnvironmentAndConnectionString(t *testing.T) {
	srv := azuritetest.Start(t)
	ctx := t.Context()
	loc := srv.Location("creds/x")
	put(t, srv.FileIO(t), loc, []byte("secret data"))
	for _, name := range []string{fileio.EnvAzureAccount, fileio.EnvAzureKey, fileio.EnvAzureConnectionString, fileio.EnvAzureSASToken} {
		t.Setenv(name, "")
	}
	emulator := fileio.AzureOptions{BlobStorageAuthority: srv.Authority, BlobStorageScheme: "http"}
	none := azuritetest.NewFileIO(t, emulator)
	_, err := none.ReadFile(ctx, loc)
	if err == nil || !errors.Is(err, errkind.InvalidArgument) || !strings.Contains(err.Error(), "no credentials for storage account \"devstoreaccount1\"") {
		t.Fatalf("ReadFile without credentials: %v", err)
	}
	if none.Requests() != 0 {
		t.Errorf("%d requests sent without credentials", none.Requests())
	}

	// The connection string alone, its BlobEndpoint giving the emulator.
	byConn := azuritetest.NewFileIO(t, fileio.AzureOptions{ConnectionString: srv.ConnectionString()})
	if got, err := byConn.ReadFile(ctx, loc); err != nil || string(got) != "secret data" {
		t.Fatalf("ReadFile with a connection string = %q, %v", got, err)
	}
	// The environment.
	t.Setenv(fileio.EnvAzureAccount, azuritetest.Account)
	t.Setenv(fileio.EnvAzureKey, azuritetest.Key)
	byEnv := azuritetest.NewFileIO(t, emulator)
	if got, err := byEnv.ReadFile(ctx, loc); err != nil || string(got) != "secret data" {
		t.Fatalf("ReadFile with AZURE_STORAGE_ACCOUNT/KEY = %q, %v", got, err)
	}
	t.Setenv(fileio.EnvAzureAccount, "")
	t.Setenv(fileio.EnvAzureKey, "")
	t.Setenv(fileio.EnvAzureConnectionString, srv.ConnectionString())
	byEnvConn := azuritetest.NewFileIO(t, fileio.AzureOptions{})
	if got, err := byEnvConn.ReadFile(ctx, loc); err != nil || string(got) != "secret data" {
		t.Fatalf("ReadFile with AZURE_STORAGE_CONNECTION_STRING = %q, %v", got, err)
	}
	t.Setenv(fileio.EnvAzureConnectionString, "")

	// A wrong key: the server refuses, with no retry and no key in the message.
	wrongKey := strings.Repeat("A", 86) + "=="
	wrong := emulator
	wrong.AccountName, wrong.AccountKey = azuritetest.Account, wrongKey
	bad := azuritetest.NewFileIO(t, wrong)
	_, err = bad.ReadFile(ctx, loc)
	if err == nil || errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), wrongKey) || strings.Contains(err.Error(), "tries") {
		t.Fatalf("ReadFile with a wrong key: %v", err)
	}
	t.Logf("wrong key: %v", err)

	for _, o := range []fileio.AzureOptions{
		{AccountKey: "k"},
		{Anonymous: true, SASToken: "sv=1"},
		{BlobStorageScheme: "ftp"},
		{BlobStorageAuthority: "host/path"},
		{ConnectionString: "AccountName=a"},
		{BlockSize: 1},
		{MaxAttempts: -1},
	} {
		if _, err := fileio.NewAzure(o); err == nil {
			t.Errorf("NewAzure(%+v) succeeded", o)
		}
	}
	if _, err := fileio.NewAzure(fileio.AzureOptions{ConnectionString: "AccountName=a;AccountKey=" + wrongKey}); err != nil {
		t.Errorf("a valid connection string: %v", err)
	}
	if _, err := fileio.NewAzure(fileio.AzureOptions{ConnectionString: "AccountName=a"}); err == nil || strings.Contains(err.Error(), "AccountName=a") {
		t.Errorf("a connection string without a key: %v (it must not be quoted)", err)
	}
}

// The table-open options carry Azure settings as JSON under "azure";
// ForLocation serves every Azure scheme with them, and a bad Azure
// configuration only fails Azure paths.
func TestForLocationServesAzureFromJSONOptions(t *testing.T) {
	srv := azuritetest.Start(t)
	raw := fmt.Sprintf(`{"azure": {"account_name": %q, "account_key": %q, "blob_storage_authority": %q, "blob_storage_scheme": "http", "max_attempts": 3}}`,
		azuritetest.Account, azuritetest.Key, srv.Authority)
	var opts fileio.Options
	if err := json.Unmarshal([]byte(raw), &opts); err != nil {
		t.Fatal(err)
	}
	files, err := fileio.ForLocation(srv.Location("t"), opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	wasbs := strings.Replace(srv.Location("t/x"), "abfs://", "wasbs://", 1)
	if err := files.WriteFile(ctx, wasbs, []byte("via wasbs")); err != nil {
		t.Fatal(err)
	}
	if got, err := files.ReadFile(ctx, srv.Location("t/x")); err != nil || string(got) != "via wasbs" {
		t.Fatalf("ReadFile(abfs://) = %q, %v", got, err)
	}
	if infos, err := fileio.ListTree(ctx, files, srv.Location("t")); err != nil || len(infos) != 1 {
		t.Fatalf("ListTree through the router = %v, %v", infos, err)
	}
	local := t.TempDir() + "/f"
	if err := os.WriteFile(local, []byte("local"), 0o666); err != nil {
		t.Fatal(err)
	}
	bad, err := fileio.ForLocation(local, fileio.Options{Azure: &fileio.AzureOptions{BlockSize: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := bad.ReadFile(ctx, local); err != nil || string(got) != "local" {
		t.Fatalf("local read beside a bad Azure config = %q, %v", got, err)
	}
	if _, err := bad.ReadFile(ctx, srv.Location("t/x")); err == nil || !strings.Contains(err.Error(), "block_size") {
		t.Fatalf("Azure read with a bad Azure config: %v", err)
	}
}
