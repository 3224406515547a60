package committest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/s3test"
)

// faultAttempts is the store client's try budget under the injected faults.
// Concurrent requests share the proxy's every-n-th counters, so which try
// fails is close to random: at a failure rate near 0.4 per try, 16 tries
// fail together about once in two million requests.
const faultAttempts = 16

// faultyStore is a store reached through a proxy: the store's options with
// its endpoint replaced by url and attempts tries per request.
type faultyStore func(url string, attempts int) store

// Commits through a FaultProxy that answers 503 to every 5th request, cuts
// every 4th response body short and delays every request: each operation
// succeeds (the store's client retries), and every read, through the same
// faults and directly, gives exactly the right rows.
func testCommitsSurviveThrottlingTruncationAndDelay(t *testing.T, direct store, via faultyStore, proxy *s3test.FaultProxy) {
	ctx := context.Background()
	faulty := via(proxy.URL, faultAttempts)

	tbl := direct.create(t, 2, &byInt, nil)
	loc := tbl.Metadata.Location
	a := direct.writeData(t, byInt, rowsIn(1, 0, 60, 1, 2, 3), 10)
	b := direct.writeData(t, byInt, rowsIn(2, 100, 9, 2), 5)
	c := direct.writeData(t, byInt, rowsIn(3, 200, 6, 3), 10)

	proxy.SetFailEvery(5)
	proxy.SetTruncateEvery(4)
	proxy.SetDelay(time.Millisecond)
	h := faulty.open(t, loc)
	check := func(what string, want []int64) {
		t.Helper()
		checkIDs(t, what+", read through the faults", faulty.scanIDs(t, loc, nil), want)
		checkIDs(t, what+", read directly", direct.scanIDs(t, loc, nil), want)
	}
	if _, err := h.Append(ctx, a.files, table.CommitOptions{Token: "a"}); err != nil {
		t.Fatal(err)
	}
	check("after the append", a.allIDs())
	if _, err := h.ReplacePartitions(ctx, b.files, table.CommitOptions{Token: "b"}); err != nil {
		t.Fatal(err)
	}
	afterB := union(without(a.allIDs(), a.idsIn(2)), b.allIDs())
	check("after replacing partition 2", afterB)
	three, _ := expr.NewPredicate(expr.OpEq, "i", int64(3))
	if _, err := h.Overwrite(ctx, three, c.files, table.CommitOptions{Token: "c"}); err != nil {
		t.Fatal(err)
	}
	afterC := union(without(afterB, a.idsIn(3)), c.allIDs())
	check("after overwriting i = 3", afterC)
	gone := b.files[0]
	if _, err := h.Commit(ctx, nil, []string{gone.FilePath}, table.CommitOptions{Token: "d"}); err != nil {
		t.Fatal(err)
	}
	afterD := without(afterC, b.ids[gone.FilePath])
	check("after removing a file", afterD)
	keep := 1
	now := h.Metadata.LastUpdatedMs + 1
	res, err := h.ExpireSnapshots(ctx, &now, &keep, table.ExpireOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.ExpiredSnapshots) != 3 {
		t.Fatalf("expiry through the faults: %+v", res)
	}
	check("after expiry", afterD)
	// A retried step changes nothing (its snapshot is the one expiry kept).
	if _, err := faulty.open(t, loc).Commit(ctx, nil, []string{gone.FilePath}, table.CommitOptions{Token: "d"}); err != nil {
		t.Fatal(err)
	}
	check("after retrying the removal", afterD)
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
	t.Logf("%d requests through the proxy, %d answered SlowDown, %d cut short", proxy.Requests(), proxy.Failed(), proxy.Truncated())
}

// Writers in one process append through the faults at once: every append
// lands exactly once.
func testConcurrentCommitsThroughFaults(t *testing.T, direct store, via faultyStore, proxy *s3test.FaultProxy) {
	ctx := context.Background()
	faulty := via(proxy.URL, faultAttempts)
	const writers, appends = 4, 5
	tbl := direct.create(t, 2, nil, contentionProps)
	loc := tbl.Metadata.Location
	data := direct.writeData(t, iceberg.PartitionSpec{}, rowsIn(1, 0, writers*appends*2), 2)
	proxy.SetFailEvery(7)
	proxy.SetTruncateEvery(5)
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h, err := table.Open(ctx, loc, faulty.opts)
			if err != nil {
				errs <- err
				return
			}
			for a := range appends {
				f := data.files[w*appends+a]
				if _, err := h.Append(ctx, []manifest.DataFile{f}, table.CommitOptions{Token: fmt.Sprintf("w%d-a%d", w, a)}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n := len(direct.open(t, loc).Metadata.Snapshots); n != writers*appends {
		t.Fatalf("%d snapshots, want %d", n, writers*appends)
	}
	checkIDs(t, "after concurrent appends through faults", direct.scanIDs(t, loc, nil), data.allIDs())
	if proxy.Failed() == 0 || proxy.Truncated() == 0 {
		t.Fatalf("faults not exercised: %d failed, %d truncated", proxy.Failed(), proxy.Truncated())
	}
}

// A commit is broken at each of its requests in turn, in two ways: the
// store goes away from that request on (every later request answered 503),
// or that one request takes effect but its response is lost. Whatever the
// commit reports, the table then opens and reads either the rows before or
// the rows after, never a mixture and never a broken table; a commit that
// reported success really happened; and retrying it with its token, as a
// pipeline would, gives exactly one snapshot of it.
func testCommitBrokenAtEveryRequestLeavesAConsistentTable(t *testing.T, direct store, via faultyStore, proxy *s3test.FaultProxy) {
	ctx := context.Background()
	arm := startArmingProxy(t, proxy)
	faulty := via(arm.url, 3)

	tbl := direct.create(t, 2, nil, nil)
	loc := tbl.Metadata.Location
	rows := direct.scanIDs(t, loc, nil)
	nextID := int64(0)
	step := 0
	sawUnknown := false
	commitOne := func(mode armMode, at int64) (requests int64, committed bool) {
		t.Helper()
		step++
		data := direct.writeData(t, iceberg.PartitionSpec{}, rowsIn(uint64(step), nextID, 3), 3)
		nextID += 1000
		token := fmt.Sprintf("step-%d", step)
		h := faulty.open(t, loc)
		before := len(h.Metadata.Snapshots)
		arm.arm(mode, at)
		_, err := h.Append(ctx, data.files, table.CommitOptions{Token: token})
		requests = arm.disarm()
		what := fmt.Sprintf("step %d (%s at request %d of the commit)", step, mode, at)

		got := direct.scanIDs(t, loc, nil)
		after := union(rows, data.allIDs())
		switch {
		case slices.Equal(got, after):
			committed = true
		case slices.Equal(got, rows):
			if err == nil {
				t.Fatalf("%s: the commit reported success, but the table reads the rows before it", what)
			}
		default:
			t.Fatalf("%s: the table reads %d rows, neither the %d before nor the %d after", what, len(got), len(rows), len(after))
		}
		if err != nil && !strings.Contains(err.Error(), direct.scheme()) {
			t.Errorf("%s: the error does not say which object failed: %v", what, err)
		}
		if errors.Is(err, table.ErrCommitStateUnknown) {
			sawUnknown = true
		} else if err != nil && committed {
			t.Fatalf("%s: the commit happened, yet it reported a plain failure: %v", what, err)
		}
		// The pipeline retries the step with its token.
		retry := direct.open(t, loc)
		if _, err := retry.Append(ctx, data.files, table.CommitOptions{Token: token}); err != nil {
			t.Fatalf("%s: retrying: %v", what, err)
		}
		checkIDs(t, what+", after the retry", direct.scanIDs(t, loc, nil), after)
		md := direct.open(t, loc).Metadata
		if n := len(md.Snapshots); n != before+1 {
			t.Fatalf("%s: %d snapshots after the retry, want %d", what, n, before+1)
		}
		if _, ok, err := table.SnapshotWithToken(md, token); err != nil || !ok {
			t.Fatalf("%s: no snapshot carries the token", what)
		}
		rows = after
		return requests, committed
	}

	clean, _ := commitOne(armNone, 0)
	if clean < 4 {
		t.Fatalf("a commit made only %d requests", clean)
	}
	outcomes := map[armMode][2]int{}
	for _, mode := range []armMode{armFailFrom, armDrop, armDropThenFail} {
		for at := int64(1); at <= clean; at++ {
			_, committed := commitOne(mode, at)
			o := outcomes[mode]
			if committed {
				o[1]++
			} else {
				o[0]++
			}
			outcomes[mode] = o
		}
	}
	t.Logf("a commit makes %d requests; (not committed, committed) outcomes: %v", clean, outcomes)
	if outcomes[armFailFrom][0] == 0 || outcomes[armDropThenFail][0] == 0 {
		t.Error("the store failing never stopped a commit: the faults did not reach it")
	}
	if !sawUnknown {
		t.Error("no commit whose publishing answer was lost reported an unknown outcome")
	}
}

type armMode int

const (
	armNone armMode = iota
	// armFailFrom makes the FaultProxy answer 503 to the armed request and
	// every one after it.
	armFailFrom
	// armDrop makes the FaultProxy lose the armed request's response after
	// the server has acted on it.
	armDrop
	// armDropThenFail loses the armed request's response and then fails
	// every later request: a write whose outcome cannot be learnt.
	armDropThenFail
)

func (m armMode) String() string {
	return [...]string{"no fault", "store gone", "response lost", "response lost, then store gone"}[m]
}

// armingProxy stands in front of a FaultProxy and turns its knobs when the
// armed request (counted from arm) arrives, so a test can break an
// operation at a chosen request. The response of a request the FaultProxy
// dropped is dropped here too: the client's connection is closed without
// an answer.
type armingProxy struct {
	url   string
	fault *s3test.FaultProxy
	mu    sync.Mutex
	mode  armMode
	at    int64
	n     atomic.Int64
}

func startArmingProxy(t *testing.T, fault *s3test.FaultProxy) *armingProxy {
	target, err := url.Parse(fault.URL)
	if err != nil {
		t.Fatal(err)
	}
	a := &armingProxy{fault: fault}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(target)
			r.Out.Host = r.In.Host // signed by SigV4 on S3
		},
		ErrorHandler: func(w http.ResponseWriter, _ *http.Request, _ error) {
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
		},
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := a.n.Add(1)
		a.mu.Lock()
		switch {
		case a.mode == armNone:
		case k == a.at && a.mode == armFailFrom:
			fault.SetFailEvery(1)
		case k == a.at:
			fault.DropResponses(1)
		case k == a.at+1 && a.mode == armDropThenFail:
			fault.SetFailEvery(1)
		}
		a.mu.Unlock()
		rp.ServeHTTP(w, r)
	})}
	ln := listenLoopback(t)
	a.url = "http://" + ln.Addr().String()
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return a
}

func (a *armingProxy) arm(mode armMode, at int64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.n.Store(0)
	a.mode, a.at = mode, at
}

// disarm turns the faults off and returns the requests since arm.
func (a *armingProxy) disarm() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mode = armNone
	a.fault.SetFailEvery(0)
	a.fault.DropResponses(0)
	return a.n.Load()
}

func listenLoopback(t *testing.T) net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}
