// Package sharedserver is one real server per test binary, started on
// first use: the policy the test servers share (PostgreSQL, weed). A
// server that cannot start skips the test, unless the environment
// variable that requires it is set (as .ci/run sets them), when the test
// fails.
package sharedserver

import (
	"os"
	"sync"
	"testing"
)

// Server starts a T once and stops it at the end.
type Server[T any] struct {
	// What names the server in messages; Require is the variable that
	// turns a skip into a failure.
	What, Require string
	Start         func() (T, error)
	StopFunc      func(T)

	once    sync.Once
	v       T
	err     error
	started bool
}

// Get starts the server on first use.
func (s *Server[T]) Get(t testing.TB) T {
	t.Helper()
	s.once.Do(func() {
		s.v, s.err = s.Start()
		s.started = s.err == nil
	})
	if s.err != nil {
		if os.Getenv(s.Require) != "" {
			t.Fatalf("%s: %v (%s is set)", s.What, s.err, s.Require)
		}
		t.Skipf("%s: %v; skipping (set %s=1 to fail instead)", s.What, s.err, s.Require)
	}
	return s.v
}

// Stop stops the server if it was started; for TestMain.
func (s *Server[T]) Stop() {
	if s.started {
		s.StopFunc(s.v)
	}
}
