// Package weedtest starts SeaweedFS's `weed mini` for tests: a real
// Iceberg REST catalog with its own S3 server, on 127.0.0.1 at free
// ports, in a temporary directory. The binary is $FLOE_WEED, weed on
// PATH, or the one .ci/build-weed caches per version. Without it the
// tests skip, unless FLOE_REQUIRE_WEED is set (as .ci/run sets it), when
// they fail.
package weedtest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/floedb/floe/internal/sharedserver"
)

// Version is the SeaweedFS module version .ci/build-weed builds.
const Version = "v0.0.0-20261109003541-7506e5f91cd6"

// The key pair weed's S3 server accepts; it is also the OAuth2 client id
// and secret of its REST catalog.
const (
	AccessKey = "floeweedadmin"
	SecretKey = "floe-weed-secret-key-0123456789"
	// Bucket is the table bucket weed creates; REST clients pass it as
	// the warehouse and get it as their prefix.
	Bucket = "warehouse"
)

// Server is one running weed mini.
type Server struct {
	// CatalogURL is the Iceberg REST catalog, S3URL the S3 endpoint.
	CatalogURL, S3URL string
	dir               string
	cmd               *exec.Cmd
	namespaces        atomic.Int64
}

var shared = sharedserver.Server[*Server]{What: "weedtest", Require: "FLOE_REQUIRE_WEED", Start: Launch, StopFunc: (*Server).Stop}

// Shared starts the test binary's weed on first use; StopShared stops
// it (from TestMain).
func Shared(t testing.TB) *Server {
	t.Helper()
	return shared.Get(t)
}

// StopShared stops the shared server, if one was started.
func StopShared() { shared.Stop() }

// Find locates the weed binary.
func Find() (string, error) {
	if p := os.Getenv("FLOE_WEED"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("weed"); err == nil {
		return p, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	p := filepath.Join(cache, "floe", "weed-"+versionTag(), "weed")
	if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
		return p, nil
	}
	return "", fmt.Errorf("no weed binary ($FLOE_WEED, PATH, %s); build it with .ci/build-weed", p)
}

// versionTag is the directory name's part of the version: its timestamp.
func versionTag() string {
	parts := strings.Split(Version, "-")
	if len(parts) == 3 {
		return parts[1]
	}
	return Version
}

// Launch starts a weed mini for a program that is not a test; Stop it.
func Launch() (*Server, error) {
	bin, err := Find()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "floe-weed-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	// A free port found is free only until someone takes it: try again
	// with other ports if weed could not bind.
	for range 3 {
		s, err := start(bin, dir)
		if err == nil {
			return s, nil
		}
		lastErr = err
		os.RemoveAll(dir)
		if dir, err = os.MkdirTemp("", "floe-weed-"); err != nil {
			return nil, err
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func start(bin, dir string) (*Server, error) {
	names := []string{"master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
		"s3.port", "s3.port.grpc", "s3.port.iceberg", "admin.port", "admin.port.grpc"}
	ports := map[string]int{}
	var listeners []net.Listener
	for _, n := range names {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports[n] = l.Addr().(*net.TCPAddr).Port
	}
	for _, l := range listeners {
		l.Close()
	}
	args := []string{"mini", "-dir=" + filepath.Join(dir, "data"), "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-webdav=false", "-admin.ui=false", "-master.telemetry=false", "-s3.port.lance=0", "-admin.port.legacy=0",
		"-tableBucket=" + Bucket}
	for _, n := range names {
		args = append(args, "-"+n+"="+strconv.Itoa(ports[n]))
	}
	if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "AWS_ACCESS_KEY_ID="+AccessKey, "AWS_SECRET_ACCESS_KEY="+SecretKey)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	logFile, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	cmd.Stdout = io.MultiWriter(logFile, pw)
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{
		CatalogURL: fmt.Sprintf("http://127.0.0.1:%d", ports["s3.port.iceberg"]),
		S3URL:      fmt.Sprintf("http://127.0.0.1:%d", ports["s3.port"]),
		dir:        dir, cmd: cmd,
	}
	ready := make(chan struct{})
	exited := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "All enabled components") {
				close(ready)
				break
			}
		}
		_, _ = io.Copy(io.Discard, pr)
	}()
	go func() {
		err := cmd.Wait()
		pw.Close()
		logFile.Close()
		exited <- err
	}()
	select {
	case <-ready:
	case err := <-exited:
		log, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
		return nil, fmt.Errorf("weed mini exited before it was ready (%v):\n%s", err, tail(log))
	case <-time.After(90 * time.Second):
		s.Stop()
		log, _ := os.ReadFile(filepath.Join(dir, "weed.log"))
		return nil, fmt.Errorf("weed mini was not ready after 90s:\n%s", tail(log))
	}
	// The catalog answers once its table bucket is there.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for ctx.Err() == nil {
		resp, err := http.Get(s.CatalogURL + "/v1/config")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("weed's catalog at %s does not answer", s.CatalogURL)
}

func tail(b []byte) string {
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// Stop stops weed and removes its files.
func (s *Server) Stop() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
		_ = s.cmd.Process.Kill()
	}
	time.Sleep(100 * time.Millisecond)
	os.RemoveAll(s.dir)
}

// Properties are a floe (or pyiceberg-style) catalog's properties for
// this server, with the catalog at uri (CatalogURL, or a proxy in front
// of it): OAuth2 with weed's key pair, its table bucket as warehouse,
// and S3 credentials for the table files (weed's LoadTable config names
// its S3 endpoint but vends no credentials).
func (s *Server) Properties() map[string]string {
	return map[string]string{
		"credential":           AccessKey + ":" + SecretKey,
		"warehouse":            "s3://" + Bucket,
		"s3.endpoint":          s.S3URL,
		"s3.access-key-id":     AccessKey,
		"s3.secret-access-key": SecretKey,
		"s3.region":            "us-east-1",
		"s3.path-style-access": "true",
	}
}

// Namespace is a namespace name no other test of this binary uses.
func (s *Server) Namespace(prefix string) string {
	return fmt.Sprintf("%s_%d_%d", prefix, os.Getpid(), s.namespaces.Add(1))
}
