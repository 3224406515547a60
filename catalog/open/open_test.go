package open

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg/table"
)

// silentServer accepts connections on 127.0.0.1 and never answers.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var conns []net.Conn
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// Opening a catalog whose server accepts and never answers ends within
// timeout-ms, or within the default bound when none is given, for every
// kind that talks to a server, as a deadline.
func TestOpeningASilentServerIsBounded(t *testing.T) {
	addr := silentServer(t)
	uris := []string{"http://" + addr, "postgresql://u:p@" + addr + "/db"}
	try := func(uri string, props map[string]string) {
		t.Helper()
		props["warehouse"] = t.TempDir()
		start := time.Now()
		cat, err := Catalog(context.Background(), uri, props, table.Options{})
		if cat != nil {
			cat.Close()
		}
		if took := time.Since(start); err == nil || took > 10*time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s %v: %v after %v", uri, props, err, took)
		}
	}
	for _, uri := range uris {
		try(uri, map[string]string{"timeout-ms": "300"})
	}
	defer func(d time.Duration) { DefaultOpenTimeout = d }(DefaultOpenTimeout)
	DefaultOpenTimeout = 300 * time.Millisecond
	for _, uri := range uris {
		try(uri, map[string]string{})
	}
}
