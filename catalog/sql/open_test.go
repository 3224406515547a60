package sql

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/table"
)

// silentServer accepts connections on 127.0.0.1 and never answers: a
// PostgreSQL server that hangs in its handshake.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	done := make(chan struct{})
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

// Opening a PostgreSQL catalog whose server accepts and never answers
// ends within timeout-ms, or within the default bound when none is given,
// as a deadline, without the password.
func TestPostgresConnectIsBounded(t *testing.T) {
	uri := "postgresql://floe:hunter22@" + silentServer(t) + "/db"
	open := func(props map[string]string) (time.Duration, error) {
		props[PropWarehouse] = t.TempDir()
		start := time.Now()
		c, err := Open(context.Background(), uri, props, table.Options{})
		if c != nil {
			c.Close()
		}
		return time.Since(start), err
	}
	took, err := open(map[string]string{"timeout-ms": "300"})
	if err == nil || took > 5*time.Second || !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "hunter22") {
		t.Errorf("timeout-ms=300: %v after %v", err, took)
	}
	defer func(d time.Duration) { defaultConnectTimeout = d }(defaultConnectTimeout)
	defaultConnectTimeout = 300 * time.Millisecond
	took, err = open(map[string]string{})
	if err == nil || took > 5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("default bound: %v after %v", err, took)
	}
	if _, err := open(map[string]string{"timeout-ms": "soon"}); errkind.Of(err) != errkind.InvalidArgument {
		t.Errorf("timeout-ms=soon: %v", err)
	}
}

// A sqlite: URI's query (where other drivers take _auth_pass=…) is
// refused naming its keys, never showing its values.
func TestSQLiteURIQueryRefusedWithoutItsValues(t *testing.T) {
	dir := t.TempDir()
	for _, uri := range []string{
		"sqlite://" + filepath.Join(dir, "c.db") + "?_auth_pass=S3CRETVALUE",
		"sqlite://" + filepath.Join(dir, "missing", "c.db") + "?_auth_user=u&_auth_pass=S3CRETVALUE",
		"sqlite:c.db?password=S3CRETVALUE",
	} {
		c, err := Open(context.Background(), uri, nil, table.Options{})
		if c != nil {
			c.Close()
		}
		if errkind.Of(err) != errkind.InvalidArgument || strings.Contains(err.Error(), "S3CRETVALUE") || !strings.Contains(err.Error(), "_auth_pass") && !strings.Contains(err.Error(), "password") {
			t.Errorf("%s: %v", uri, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("files left: %v", entries)
	}
}

// OpenExisting, for reads, finds a missing SQLite database not found and
// creates no file; it opens one that exists.
func TestOpenExistingCreatesNoDatabase(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo.db")
	_, err := OpenExisting(context.Background(), "sqlite:"+path, nil, table.Options{})
	if errkind.Of(err) != errkind.NotFound {
		t.Errorf("missing database: %v", err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the database was created: %v", err)
	}
	openCatalog(t, dir).Close()
	c, err := OpenExisting(context.Background(), "sqlite:"+filepath.Join(dir, "catalog.db"), nil, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
