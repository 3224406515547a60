package s3test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// seed stores an object of size patterned bytes and returns them.
func seed(t *testing.T, s *Server, key string, size int) []byte {
	t.Helper()
	data := make([]byte, size)
	for i := range data {
		data[i] = byte(i*7 + i>>8)
	}
	if err := s.FileIO(t).WriteFile(t.Context(), s.Location(key), data); err != nil {
		t.Fatal(err)
	}
	return data
}

func TestServerStoresAndUploadsTrees(t *testing.T) {
	s := Start(t)
	dir := t.TempDir()
	for name, body := range map[string]string{"a.json": "{}", "sub/b.bin": "bb", "sub/deeper/c": "ccc"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	s.Upload(t, dir, s.Location("up", "t"))
	files := s.FileIO(t)
	got, err := files.ReadFile(t.Context(), s.Location("up/t/sub/deeper/c"))
	if err != nil || string(got) != "ccc" {
		t.Fatalf("uploaded file = %q, %v", got, err)
	}
	if !strings.HasPrefix(s.Endpoint, "http://127.0.0.1:") {
		t.Errorf("endpoint %s is not loopback", s.Endpoint)
	}
}

// The proxy's faults must be real at the HTTP level: a plain client sees a
// 503 SlowDown, and a body shorter than its Content-Length.
func TestFaultProxyFailsAndTruncatesForReal(t *testing.T) {
	s := Start(t)
	data := seed(t, s, "obj", 1000)
	p := StartFaultProxy(t, s.Endpoint)

	// An unsigned GET is refused by the server (403), which is enough to
	// see a response pass through untouched.
	resp, err := http.Get(p.URL + "/" + s.Bucket + "/obj")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("unsigned GET through the proxy: %d, want 403 from the server", resp.StatusCode)
	}

	p.SetFailEvery(1)
	resp, err = http.Get(p.URL + "/" + s.Bucket + "/obj")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !bytes.Contains(body, []byte("<Code>SlowDown</Code>")) {
		t.Fatalf("fail-every-1: %d %s", resp.StatusCode, body)
	}
	p.SetFailEvery(0)

	// Truncation is only applied to 2xx bodies; check it with a signed read
	// through the S3 client, which must still get every byte by retrying.
	p.SetTruncateEvery(1)
	opts := s.OptionsVia(p)
	opts.MaxAttempts = 2
	_, err = NewFileIO(t, opts).ReadFile(t.Context(), s.Location("obj"))
	if err == nil {
		t.Fatal("every response truncated, yet ReadFile succeeded")
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("error does not show a short body: %v", err)
	}
	if p.Truncated() != 2 {
		t.Errorf("truncated %d responses, want 2 (one per try)", p.Truncated())
	}
	p.SetTruncateEvery(0)
	got, err := NewFileIO(t, opts).ReadFile(t.Context(), s.Location("obj"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after truncation off: %d bytes, %v", len(got), err)
	}
	if p.Requests() < 5 || p.ResponseBytes() < int64(len(data)+len(data)/2*2) {
		t.Errorf("counters: %d requests, %d bytes", p.Requests(), p.ResponseBytes())
	}
}

func TestFaultProxyDelays(t *testing.T) {
	s := Start(t)
	seed(t, s, "obj", 10)
	p := StartFaultProxy(t, s.Endpoint)
	p.SetDelay(150 * time.Millisecond)
	start := time.Now()
	if _, err := NewFileIO(t, s.OptionsVia(p)).ReadFile(t.Context(), s.Location("obj")); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("read took %v through a 150ms delay", d)
	}
}

// Launch and LaunchFaultProxy serve without a testing.TB, and Close really
// stops them: afterwards nothing answers at their addresses.
func TestLaunchServesUntilClosed(t *testing.T) {
	if _, err := findVersitygw(); err != nil {
		t.Skipf("s3test: %v", err)
	}
	s, err := Launch(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p, err := LaunchFaultProxy(s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x"), []byte("launched"), 0o666); err != nil {
		t.Fatal(err)
	}
	if err := s.UploadDir(t.Context(), dir, s.Location("l")); err != nil {
		t.Fatal(err)
	}
	got, err := NewFileIO(t, s.OptionsVia(p)).ReadFile(t.Context(), s.Location("l", "x"))
	if err != nil || string(got) != "launched" || p.Requests() == 0 {
		t.Fatalf("read through the launched proxy: %q, %v, %d requests", got, err, p.Requests())
	}
	p.Close()
	s.Close()
	s.Close() // a second Close is harmless
	client := &http.Client{Timeout: time.Second}
	for _, url := range []string{s.Endpoint, p.URL} {
		if resp, err := client.Get(url + "/"); err == nil {
			resp.Body.Close()
			t.Errorf("%s still answers after Close", url)
		}
	}
}

func TestLaunchWithoutBinary(t *testing.T) {
	t.Setenv("FLOE_VERSITYGW", filepath.Join(t.TempDir(), "missing"))
	if _, err := Launch(t.TempDir()); !errors.Is(err, ErrNoVersitygw) {
		t.Fatalf("Launch with no binary: %v, want ErrNoVersitygw", err)
	}
}
