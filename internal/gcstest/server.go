// Package gcstest runs a real GCS server for tests: fake-gcs-server (in
// memory) on 127.0.0.1 at a free port, one per test binary, started on
// first use, and a fresh bucket for every Start, so tests sharing the
// server never see each other's objects. A fault proxy (s3test's, which
// speaks plain HTTP) can stand in front of it.
//
// Tests skip when the fake-gcs-server binary is not installed, unless
// FLOE_REQUIRE_GCS=1 (as CI sets), which turns the skip into a failure.
// Programs that are not tests (benchmarks) use Launch, which returns an
// error, and stop the server with Close. The binary is looked up as
// $FLOE_FAKE_GCS_SERVER, then on PATH, then in
// ~/.cache/floe/fake-gcs-server-<Version>/ (where .ci/run installs it),
// then $(go env GOPATH)/bin; install it with
// go install github.com/fsouza/fake-gcs-server@v1.56.1.
package gcstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/sharedserver"
)

// Version is the fake-gcs-server release the tests are run with.
const Version = "v1.56.1"

// ErrNoServer is what Launch returns (wrapped) when the binary is not
// installed.
var ErrNoServer = errors.New("fake-gcs-server not found")

const startTimeout = 30 * time.Second

// Server is a running fake-gcs-server; Bucket is the bucket this handle's
// test owns.
type Server struct {
	Endpoint string // http://127.0.0.1:PORT
	Bucket   string

	proc *process
}

// process is the server process several Servers (buckets) share.
type process struct {
	endpoint string
	stop     func()
	once     sync.Once
}

var shared = sharedserver.Server[*process]{What: "gcstest", Require: "FLOE_REQUIRE_GCS", Start: startProcess, StopFunc: (*process).close}

var bucketSeq atomic.Int64

// Start returns a handle on the test binary's fake-gcs-server (started on
// first use) with a new empty bucket.
func Start(t testing.TB) *Server {
	t.Helper()
	p := shared.Get(t)
	s := &Server{Endpoint: p.endpoint, Bucket: fmt.Sprintf("floe-test-%d-%d", os.Getpid(), bucketSeq.Add(1))}
	if err := s.createBucket(); err != nil {
		t.Fatalf("gcstest: %v", err)
	}
	return s
}

// Launch is Start for programs that are not tests: a server of their own,
// with one bucket, stopped with Close. An error wrapping ErrNoServer means
// the binary is not installed.
func Launch() (*Server, error) {
	p, err := startProcess()
	if err != nil {
		return nil, err
	}
	s := &Server{Endpoint: p.endpoint, Bucket: "floe-bench", proc: p}
	if err := s.createBucket(); err != nil {
		p.close()
		return nil, err
	}
	return s, nil
}

// Close stops a server made by Launch; the shared one of Start stops with
// the test binary.
func (s *Server) Close() {
	if s.proc != nil {
		s.proc.close()
	}
}

func (p *process) close() { p.once.Do(p.stop) }

// Options are fileio.GCSOptions for this server, with short retry delays
// so fault tests run quickly.
func (s *Server) Options() fileio.GCSOptions {
	return fileio.GCSOptions{ServiceHost: s.Endpoint, RetryBaseDelay: 5 * time.Millisecond, RetryMaxDelay: 100 * time.Millisecond}
}

// OptionsVia are Options that reach the server through a proxy at url.
func (s *Server) OptionsVia(url string) fileio.GCSOptions {
	o := s.Options()
	o.ServiceHost = url
	return o
}

// FileIO returns a fileio.GCS of its own (own request counts) for this
// server.
func (s *Server) FileIO(t testing.TB) *fileio.GCS {
	t.Helper()
	return NewFileIO(t, s.Options())
}

// NewFileIO returns a fileio.GCS built from opts, failing the test on error.
func NewFileIO(t testing.TB, opts fileio.GCSOptions) *fileio.GCS {
	t.Helper()
	files, err := fileio.NewGCS(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Location is gs://bucket/elems….
func (s *Server) Location(elems ...string) string {
	return fileio.JoinPath("gs://"+s.Bucket, elems...)
}

// Upload copies every regular file under localDir to the location prefix
// (gs://bucket/some/dir), keeping relative paths.
func (s *Server) Upload(t testing.TB, localDir, prefix string) {
	t.Helper()
	if err := s.UploadDir(context.Background(), localDir, prefix); err != nil {
		t.Fatalf("gcstest: %v", err)
	}
}

// UploadDir is Upload for programs that are not tests.
func (s *Server) UploadDir(ctx context.Context, localDir, prefix string) error {
	files, err := fileio.NewGCS(ctx, s.Options())
	if err != nil {
		return err
	}
	err = filepath.WalkDir(localDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(localDir, path)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return files.WriteFile(ctx, fileio.JoinPath(prefix, filepath.ToSlash(rel)), data)
	})
	if err != nil {
		return fmt.Errorf("uploading %s to %s: %w", localDir, prefix, err)
	}
	return nil
}

// createBucket makes s.Bucket through the JSON API.
func (s *Server) createBucket() error {
	body, _ := json.Marshal(map[string]string{"name": s.Bucket})
	resp, err := http.Post(s.Endpoint+"/storage/v1/b?project=floe-test", "application/json", bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("creating bucket %s: %w", s.Bucket, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("creating bucket %s: %s: %s", s.Bucket, resp.Status, msg)
	}
	return nil
}

func startProcess() (*process, error) {
	bin, err := findBinary()
	if err != nil {
		return nil, err
	}
	var lastErr error
	for range 3 { // a free port can be taken between probe and bind
		p, err := startOnce(bin)
		if err == nil {
			return p, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("starting %s: %w", bin, lastErr)
}

func startOnce(bin string) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	endpoint := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "-scheme", "http", "-host", "127.0.0.1", "-port", fmt.Sprint(port),
		"-backend", "memory", "-external-url", endpoint, "-public-host", fmt.Sprintf("127.0.0.1:%d", port), "-log-level", "error")
	var output lockedBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	p := &process{endpoint: endpoint, stop: func() {
		cmd.Process.Kill()
		<-exited
	}}
	if err := waitAnswering(endpoint, exited); err != nil {
		p.close()
		return nil, fmt.Errorf("%w; its output:\n%s", err, output.String())
	}
	return p, nil
}

func findBinary() (string, error) {
	const name = "fake-gcs-server"
	if p := os.Getenv("FLOE_FAKE_GCS_SERVER"); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w: FLOE_FAKE_GCS_SERVER=%s is not an executable file", ErrNoServer, p)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	var candidates []string
	cache := os.Getenv("XDG_CACHE_HOME")
	if home, err := os.UserHomeDir(); cache == "" && err == nil {
		cache = filepath.Join(home, ".cache")
	}
	if cache != "" {
		candidates = append(candidates, filepath.Join(cache, "floe", name+"-"+Version, name))
	}
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			candidates = append(candidates, filepath.Join(dir, "bin", name))
		}
	}
	for _, p := range candidates {
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w ($FLOE_FAKE_GCS_SERVER, PATH, ~/.cache/floe/%s-%s, $(go env GOPATH)/bin); "+
		"install it with: go install github.com/fsouza/fake-gcs-server@%s", ErrNoServer, name, Version, Version)
}

func isExecutable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// waitAnswering polls until the server lists its buckets.
func waitAnswering(endpoint string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("fake-gcs-server exited during start-up")
		default:
		}
		if resp, err := client.Get(endpoint + "/storage/v1/b?project=floe-test"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("fake-gcs-server did not answer at %s within %v", endpoint, startTimeout)
}

// lockedBuffer collects a child's output, written from the exec goroutines
// and read on failure.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
