package resttest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
)

// Fault is an injected failure: requests matching Method and a path
// ending in PathSuffix (empty: any) get Status instead of an answer, or,
// with CutAfter, are handled and then left without an answer (the
// connection is closed). It applies to the next Times matching requests.
type Fault struct {
	Method     string
	PathSuffix string
	Status     int
	Message    string
	RetryAfter string
	// Location is sent with a 3xx Status.
	Location string
	CutAfter bool
	// GarbageAfter lets the request take effect, then answers 200 with a
	// body that is not JSON.
	GarbageAfter bool
	Times        int
}

// Faults are the faults to inject into a catalog's requests, and the
// requests seen. The zero value injects nothing.
type Faults struct {
	mu       sync.Mutex
	faults   []*Fault
	requests []string
	headers  http.Header
}

// LastHeaders are the headers of the last request seen.
func (f *Faults) LastHeaders() http.Header {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.headers.Clone()
}

// Inject adds a fault.
func (f *Faults) Inject(fault Fault) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if fault.Times == 0 {
		fault.Times = 1
	}
	f.faults = append(f.faults, &fault)
}

// Requests are the requests seen so far, as "METHOD /path".
func (f *Faults) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func (f *Faults) match(r *http.Request) *Fault {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.requests = append(f.requests, r.Method+" "+r.URL.EscapedPath())
	f.headers = r.Header.Clone()
	for _, x := range f.faults {
		if x.Times > 0 && (x.Method == "" || x.Method == r.Method) && strings.HasSuffix(r.URL.EscapedPath(), x.PathSuffix) {
			x.Times--
			return x
		}
	}
	return nil
}

// Handler applies the faults in front of next.
func (f *Faults) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fault := f.match(r)
		if fault == nil {
			next.ServeHTTP(w, r)
			return
		}
		if fault.GarbageAfter {
			next.ServeHTTP(httptest.NewRecorder(), r)
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write([]byte("<html>ok</html>"))
			return
		}
		if !fault.CutAfter {
			if fault.RetryAfter != "" {
				w.Header().Set("Retry-After", fault.RetryAfter)
			}
			if fault.Location != "" {
				w.Header().Set("Location", fault.Location)
			}
			msg := fault.Message
			if msg == "" {
				msg = "injected fault"
			}
			writeError(w, fault.Status, "InjectedFault", msg)
			return
		}
		// Let the request take effect, then close the connection without
		// an answer, as a timeout or a network cut after sending does.
		next.ServeHTTP(httptest.NewRecorder(), r)
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler)
	})
}
