// Package pgtest starts a real PostgreSQL server for tests: Debian's
// postgresql package (initdb and pg_ctl from /usr/lib/postgresql/*/bin or
// PATH), in a temporary directory, on 127.0.0.1 at a free port, as the
// postgres user when the tests run as root (the server refuses to run as
// root). Without the package the tests skip, unless FLOE_REQUIRE_POSTGRES
// is set (as .ci/run sets it), when they fail.
package pgtest

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/floedb/floe/internal/sharedserver"
)

// Server is one running PostgreSQL.
type Server struct {
	dir, bin string
	port     int
	cred     *syscall.Credential
	dbs      atomic.Int64
}

var shared = sharedserver.Server[*Server]{What: "PostgreSQL", Require: "FLOE_REQUIRE_POSTGRES", Start: start, StopFunc: (*Server).Stop}

// Shared starts the package's server on first use; Stop it from TestMain.
func Shared(t testing.TB) *Server {
	t.Helper()
	return shared.Get(t)
}

// StopShared stops the shared server, if one was started.
func StopShared() { shared.Stop() }

func binDir() (string, error) {
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		sort.Strings(dirs)
		return dirs[len(dirs)-1], nil
	}
	p, err := exec.LookPath("initdb")
	if err != nil {
		return "", fmt.Errorf("initdb not found (install Debian's postgresql package)")
	}
	return filepath.Dir(p), nil
}

func start() (*Server, error) {
	bin, err := binDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "floe-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs the postgres user: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s.port = l.Addr().(*net.TCPAddr).Port
	l.Close()
	data := filepath.Join(dir, "data")
	if out, err := s.run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v: %s", err, out)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200", s.port, dir)
	if out, err := s.run("pg_ctl", "-D", data, "-o", opts, "-l", filepath.Join(dir, "log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "log"))
		os.RemoveAll(dir)
		return nil, fmt.Errorf("pg_ctl start: %v: %s\n%s", err, out, log)
	}
	return s, nil
}

func (s *Server) run(tool string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(s.bin, tool), args...)
	cmd.Dir = s.dir
	if s.cred != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred}
	}
	return cmd.CombinedOutput()
}

// Stop stops the server and removes its files.
func (s *Server) Stop() {
	_, _ = s.run("pg_ctl", "-D", filepath.Join(s.dir, "data"), "-m", "immediate", "-w", "stop")
	os.RemoveAll(s.dir)
}

// URI is the connection URI of database db.
func (s *Server) URI(db string) string {
	return fmt.Sprintf("postgresql://postgres@127.0.0.1:%d/%s?sslmode=disable", s.port, db)
}

// NewDatabase creates a fresh database and returns its URI.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("floe_test_%d", s.dbs.Add(1))
	if out, err := s.run("psql", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port), "-U", "postgres", "-d", "postgres", "-c", "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v: %s", err, out)
	}
	return s.URI(name)
}
