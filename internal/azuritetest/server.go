// Package azuritetest runs a real Azure Blob Storage server for tests:
// Azurite's blob service (azurite-blob, an npm package) on 127.0.0.1 at a
// free port, one per test binary, started on first use, with its data in a
// temporary directory, and a fresh container for every Start, so tests
// sharing the server never see each other's blobs. s3test's fault proxy,
// which speaks plain HTTP, can stand in front of it: Azure's shared-key
// signature does not cover the host.
//
// Tests skip when azurite-blob is not installed, unless FLOE_REQUIRE_AZURE=1
// (as CI sets), which turns the skip into a failure. Programs that are not
// tests (benchmarks) use Launch, which returns an error, and stop the
// server with Close. The binary is looked up as $FLOE_AZURITE, then
// azurite-blob on PATH, then ~/.cache/floe/azurite-<Version>/node_modules/
// .bin/azurite-blob (where .ci/run installs it); install it with
// npm install --prefix ~/.cache/floe/azurite-3.37.0 azurite@3.37.0.
package azuritetest

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
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/internal/sharedserver"
)

// Version is the Azurite release .ci/run installs.
const Version = "3.37.0"

// Azurite's well-known development account (documented, not a secret).
const (
	Account = "devstoreaccount1"
	Key     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// ErrNoServer is what Launch returns (wrapped) when azurite-blob is not
// installed.
var ErrNoServer = errors.New("azurite-blob not found")

const startTimeout = 60 * time.Second

// Server is a running Azurite; Container is the container this handle's
// test owns.
type Server struct {
	Authority string // 127.0.0.1:PORT
	Container string

	proc *process
}

type process struct {
	authority string
	stop      func()
	once      sync.Once
}

var shared = sharedserver.Server[*process]{What: "azuritetest", Require: "FLOE_REQUIRE_AZURE", Start: func() (*process, error) { return startProcess("") }, StopFunc: (*process).close}

var containerSeq atomic.Int64

// Start returns a handle on the test binary's Azurite (started on first
// use) with a new empty container.
func Start(t testing.TB) *Server {
	t.Helper()
	p := shared.Get(t)
	s := &Server{Authority: p.authority, Container: fmt.Sprintf("floe-test-%d-%d", os.Getpid(), containerSeq.Add(1))}
	if err := s.createContainer(); err != nil {
		t.Fatalf("azuritetest: %v", err)
	}
	return s
}

// Launch is Start for programs that are not tests: a server of its own
// keeping its data under dir (which must exist), with one container,
// stopped with Close. An error wrapping ErrNoServer means azurite-blob is
// not installed.
func Launch(dir string) (*Server, error) {
	p, err := startProcess(dir)
	if err != nil {
		return nil, err
	}
	s := &Server{Authority: p.authority, Container: "floe-bench", proc: p}
	if err := s.createContainer(); err != nil {
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

// Endpoint is the account's blob service URL, path style:
// http://127.0.0.1:PORT/devstoreaccount1.
func (s *Server) Endpoint() string { return "http://" + s.Authority + "/" + Account }

// ConnectionString is the emulator's connection string, with BlobEndpoint.
func (s *Server) ConnectionString() string {
	return "DefaultEndpointsProtocol=http;AccountName=" + Account + ";AccountKey=" + Key + ";BlobEndpoint=" + s.Endpoint() + ";"
}

// Options are fileio.AzureOptions for this server: the development
// account's key, the emulator's authority over plain HTTP, and short retry
// delays so fault tests run quickly.
func (s *Server) Options() fileio.AzureOptions {
	return s.OptionsVia(s.Authority)
}

// OptionsVia are Options that reach the server at authority (a proxy's
// host:port).
func (s *Server) OptionsVia(authority string) fileio.AzureOptions {
	return fileio.AzureOptions{
		AccountName: Account, AccountKey: Key,
		BlobStorageAuthority: authority, BlobStorageScheme: "http",
		RetryBaseDelay: 5 * time.Millisecond, RetryMaxDelay: 100 * time.Millisecond,
	}
}

// FileIO returns a fileio.Azure of its own (own request counts) for this
// server.
func (s *Server) FileIO(t testing.TB) *fileio.Azure {
	t.Helper()
	return NewFileIO(t, s.Options())
}

// NewFileIO returns a fileio.Azure built from opts, failing the test on
// error.
func NewFileIO(t testing.TB, opts fileio.AzureOptions) *fileio.Azure {
	t.Helper()
	files, err := fileio.NewAzure(opts)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// Location is abfs://container@devstoreaccount1.dfs.core.windows.net/elems….
func (s *Server) Location(elems ...string) string {
	return fileio.JoinPath("abfs://"+s.Container+"@"+Account+".dfs.core.windows.net", elems...)
}

// Upload copies every regular file under localDir to the location prefix,
// keeping relative paths.
func (s *Server) Upload(t testing.TB, localDir, prefix string) {
	t.Helper()
	if err := s.UploadDir(context.Background(), localDir, prefix); err != nil {
		t.Fatalf("azuritetest: %v", err)
	}
}

// UploadDir is Upload for programs that are not tests.
func (s *Server) UploadDir(ctx context.Context, localDir, prefix string) error {
	files, err := fileio.NewAzure(s.Options())
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

// Client is a plain SDK client for the account, for checks the FileIO
// interface does not offer.
func (s *Server) Client() (*service.Client, error) {
	cred, err := service.NewSharedKeyCredential(Account, Key)
	if err != nil {
		return nil, err
	}
	return service.NewClientWithSharedKeyCredential(s.Endpoint()+"/", cred, &service.ClientOptions{
		ClientOptions: policy.ClientOptions{InsecureAllowCredentialWithHTTP: true},
	})
}

// SAS is an account shared access signature (the query string, without
// "?") for reading, writing, listing and deleting blobs for an hour, as a
// REST catalog would vend it.
func (s *Server) SAS(t testing.TB) string {
	t.Helper()
	c, err := s.Client()
	if err != nil {
		t.Fatal(err)
	}
	u, err := c.GetSASURL(sas.AccountResourceTypes{Service: true, Container: true, Object: true},
		sas.AccountPermissions{Read: true, Write: true, Create: true, List: true, Delete: true, Add: true},
		time.Now().Add(time.Hour), nil)
	if err != nil {
		t.Fatalf("azuritetest: making a SAS: %v", err)
	}
	_, query, _ := strings.Cut(u, "?")
	return query
}

func (s *Server) createContainer() error {
	c, err := s.Client()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	if _, err := c.CreateContainer(ctx, s.Container, nil); err != nil {
		return fmt.Errorf("creating container %s: %w", s.Container, err)
	}
	return nil
}

func startProcess(dir string) (*process, error) {
	bin, err := findBinary()
	if err != nil {
		return nil, err
	}
	cleanup := func() {}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "azuritetest-"); err != nil {
			return nil, err
		}
		cleanup = func() { os.RemoveAll(dir) }
	}
	var lastErr error
	for range 3 { // a free port can be taken between probe and bind
		p, err := startOnce(bin, dir, cleanup)
		if err == nil {
			return p, nil
		}
		lastErr = err
	}
	cleanup()
	return nil, fmt.Errorf("starting %s: %w", bin, lastErr)
}

func startOnce(bin, dir string, cleanup func()) (*process, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	authority := fmt.Sprintf("127.0.0.1:%d", port)
	// --skipApiVersionCheck: the SDK asks for a newer service version than
	// Azurite announces, for features floe does not use.
	// --disableProductStyleUrl: the account is always the URL's first
	// path segment, whatever the Host header says (a proxy's included).
	cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port), "--location", dir,
		"--skipApiVersionCheck", "--disableProductStyleUrl", "--disableTelemetry", "--silent")
	var output lockedBuffer
	cmd.Stdout, cmd.Stderr = &output, &output
	setDeathSignal(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	p := &process{authority: authority, stop: func() {
		cmd.Process.Kill()
		<-exited
		cleanup()
	}}
	if err := waitAnswering("http://"+authority+"/"+Account+"?comp=list", exited); err != nil {
		cmd.Process.Kill()
		<-exited
		return nil, fmt.Errorf("%w; its output:\n%s", err, output.String())
	}
	return p, nil
}

func findBinary() (string, error) {
	const name = "azurite-blob"
	if p := os.Getenv("FLOE_AZURITE"); p != "" {
		if isExecutable(p) {
			return p, nil
		}
		return "", fmt.Errorf("%w: FLOE_AZURITE=%s is not an executable file", ErrNoServer, p)
	}
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if home, err := os.UserHomeDir(); cache == "" && err == nil {
		cache = filepath.Join(home, ".cache")
	}
	if cache != "" {
		if p := filepath.Join(cache, "floe", "azurite-"+Version, "node_modules", ".bin", name); isExecutable(p) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w ($FLOE_AZURITE, PATH, ~/.cache/floe/azurite-%s/node_modules/.bin); "+
		"install it with: npm install --prefix ~/.cache/floe/azurite-%s azurite@%s", ErrNoServer, Version, Version, Version)
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

// waitAnswering polls until the server gives any HTTP answer (an unsigned
// listing is refused, which is answer enough).
func waitAnswering(url string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(startTimeout)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return errors.New("azurite-blob exited during start-up")
		default:
		}
		if resp, err := client.Get(url); err == nil {
			resp.Body.Close()
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("azurite-blob did not answer at %s within %v", url, startTimeout)
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
