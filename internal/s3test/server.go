// Package s3test runs a real S3 server for tests: versitygw with its posix
// backend on 127.0.0.1, one fresh bucket per server, and a FaultProxy that
// can stand in front of it to throttle, delay and cut short responses.
//
// Tests skip when the versitygw binary is not installed, unless
// FLOE_REQUIRE_S3=1 (as CI sets), which turns the skip into a failure.
// Programs that are not tests (benchmarks) use Launch and LaunchFaultProxy,
// which return errors and are stopped with Close. The
// binary is looked up as $FLOE_VERSITYGW, then on PATH, then in
// $(go env GOPATH)/bin, then /work/bin; install it with
// go install github.com/versity/versitygw/cmd/versitygw@v1.8.0.
package s3test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/floedb/floe/iceberg/fileio"
)

// Server is a running versitygw serving one bucket.
type Server struct {
	Endpoint  string // http://127.0.0.1:PORT
	Bucket    string
	AccessKey string
	SecretKey string
	Region    string

	stop     func()
	stopOnce sync.Once
}

// ErrNoVersitygw is what Launch returns (wrapped) when the versitygw
// binary is not installed.
var ErrNoVersitygw = errors.New("versitygw not found")

const (
	testBucket    = "floe-test"
	testAccessKey = "floetestaccess"
	testSecretKey = "floetestsecret0123456789"
	testRegion    = "us-east-1"
	startTimeout  = 30 * time.Second
)

// Start runs versitygw on a free loopback port over a new temporary
// directory, waits until it answers, creates the bucket, and stops it when
// the test ends.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := findVersitygw()
	if err != nil {
		if os.Getenv("FLOE_REQUIRE_S3") == "1" {
			t.Fatalf("s3test: %v (FLOE_REQUIRE_S3=1)", err)
		}
		t.Skipf("s3test: %v; skipping S3 test (set FLOE_REQUIRE_S3=1 to fail instead)", err)
	}
	s, err := launch(bin, t.TempDir())
	if err != nil {
		t.Fatalf("s3test: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Launch is Start for programs that are not tests: versitygw serves the
// bucket from dir (which must exist and should be empty), and the caller
// stops it with Close. An error wrapping ErrNoVersitygw means the binary is
// not installed.
func Launch(dir string) (*Server, error) {
	bin, err := findVersitygw()
	if err != nil {
		return nil, err
	}
	return launch(bin, dir)
}

// Close stops the server; later calls do nothing.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		if s.stop != nil {
			s.stop()
		}
	})
}

func launch(bin, root string) (*Server, error) {
	var lastErr error
	for range 3 { // a free port can be taken between probe and bind
		s, err := startOnce(bin, root)
		if err == nil {
			return s, nil
		}
		lastErr = err
	}
	return nil, fmt.Errorf("starting %s: %w", bin, lastErr)
}

func startOnce(bin, root string) (*Server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	cmd := exec.Command(bin, "--port", addr, "--keep-alive", "--quiet", "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+testAccessKey, "ROOT_SECRET_ACCESS_KEY="+testSecretKey)
	var output lockedBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	stop := func() {
		cmd.Process.Kill()
		<-exited
	}
	s := &Server{Endpoint: "http://" + addr, Bucket: testBucket, AccessKey: testAccessKey, SecretKey: testSecretKey, Region: testRegion, stop: stop}
	if err := waitAnswering(s.Endpoint, exited); err != nil {
		stop()
		return nil, fmt.Errorf("%w; its output:\n%s", err, output.String())
	}
	if err := s.createBucket(); err != nil {
		stop()
		return nil, fmt.Errorf("creating bucket %s: %w; server output:\n%s", s.Bucket, err, output.String())
	}
	return s, nil
}

// Options are fileio.S3Options for this server: path-style addressing, its
// root credentials, and short retry delays so fault tests run quickly.
func (s *Server) Options() fileio.S3Options {
	return fileio.S3Options{
		Endpoint:        s.Endpoint,
		Region:          s.Region,
		AccessKeyID:     s.AccessKey,
		SecretAccessKey: s.SecretKey,
		PathStyle:       true,
		RetryBaseDelay:  5 * time.Millisecond,
		RetryMaxDelay:   100 * time.Millisecond,
	}
}

// OptionsVia are Options that reach the server through a proxy.
func (s *Server) OptionsVia(p *FaultProxy) fileio.S3Options {
	o := s.Options()
	o.Endpoint = p.URL
	return o
}

// FileIO returns a fileio.S3 for this server.
func (s *Server) FileIO(t testing.TB) *fileio.S3 {
	t.Helper()
	return NewFileIO(t, s.Options())
}

// NewFileIO returns a fileio.S3 built from opts, failing the test on error.
func NewFileIO(t testing.TB, opts fileio.S3Options) *fileio.S3 {
	t.Helper()
	files, err := fileio.NewS3(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Location is s3://bucket/elems….
func (s *Server) Location(elems ...string) string {
	return fileio.JoinPath("s3://"+s.Bucket, elems...)
}

// Upload copies every regular file under localDir to the location prefix
// (s3://bucket/some/dir), keeping relative paths.
func (s *Server) Upload(t testing.TB, localDir, prefix string) {
	t.Helper()
	if err := s.UploadDir(context.Background(), localDir, prefix); err != nil {
		t.Fatalf("s3test: %v", err)
	}
}

// UploadDir is Upload for programs that are not tests.
func (s *Server) UploadDir(ctx context.Context, localDir, prefix string) error {
	files, err := fileio.NewS3(ctx, s.Options())
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

// PendingUploads counts the multipart uploads started and neither completed
// nor aborted, which a correct writer never leaves behind.
func (s *Server) PendingUploads(t testing.TB) int {
	t.Helper()
	out, err := s.Client().ListMultipartUploads(context.Background(), &s3.ListMultipartUploadsInput{Bucket: aws.String(s.Bucket)})
	if err != nil {
		t.Fatalf("s3test: listing multipart uploads: %v", err)
	}
	return len(out.Uploads)
}

// Client is a plain SDK client for this server, for checks the FileIO
// interface does not offer.
func (s *Server) Client() *s3.Client {
	return s3.New(s3.Options{
		BaseEndpoint: aws.String(s.Endpoint),
		Region:       s.Region,
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(s.AccessKey, s.SecretKey, ""),
	})
}

func (s *Server) createBucket() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	_, err := s.Client().CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)})
	return err
}

func findVersitygw() (string, error) {
	if p := os.Getenv("FLOE_VERSITYGW"); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w: FLOE_VERSITYGW=%s is not an executable file", ErrNoVersitygw, p)
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	var candidates []string
	if out, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
			candidates = append(candidates, filepath.Join(dir, "bin", "versitygw"))
		}
	}
	candidates = append(candidates, "/work/bin/versitygw")
	for _, p := range candidates {
		if isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w ($FLOE_VERSITYGW, PATH, $(go env GOPATH)/bin, /work/bin); "+
		"install it with: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0", ErrNoVersitygw)
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

// waitAnswering polls until the endpoint gives any HTTP answer.
func waitAnswering(endpoint string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("versitygw exited during start-up")
		default:
		}
		if resp, err := client.Get(endpoint + "/"); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("versitygw did not answer at %s within %v", endpoint, startTimeout)
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
