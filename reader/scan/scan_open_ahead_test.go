package scan

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/floedb/floe/iceberg/fileio"
)

// countingIO counts the files opened and closed through it.
type countingIO struct {
	fileio.FileIO
	opened, closed atomic.Int64
	mu             sync.Mutex
	order          []string
}

func (c *countingIO) Open(ctx context.Context, path string) (fileio.File, error) {
	f, err := c.FileIO.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	c.opened.Add(1)
	c.mu.Lock()
	c.order = append(c.order, path)
	c.mu.Unlock()
	return &countedFile{File: f, io: c}, nil
}

// dataFiles counts the Parquet files opened (deletion vectors are Puffin).
func (c *countingIO) dataFiles() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for _, p := range c.order {
		if strings.HasSuffix(p, ".parquet") {
			n++
		}
	}
	return n
}

type countedFile struct {
	fileio.File
	io   *countingIO
	once sync.Once
}

func (f *countedFile) Close() error {
	f.once.Do(func() { f.io.closed.Add(1) })
	return f.File.Close()
}

// Scans open the next tasks' files while the current ones decode, and
// every file opened is closed: after a full read, after a limit stops the
// scan early, and after a filter added mid-scan rules files out.
func TestOpenAheadOpensEarlyAndClosesEverything(t *testing.T) {
	ctx := context.Background()
	unordered := false
	for _, c := range []struct {
		name    string
		opts    Options
		stopAt  int  // release after this many batches; 0 reads all
		addRule bool // add a filter ruling out every file after the first batch
	}{
		{"one thread", Options{Threads: 1, SplitSize: 1}, 0, false},
		{"one thread, stopped early", Options{Threads: 1, SplitSize: 1}, 1, false},
		{"two threads", Options{Threads: 2, SplitSize: 1}, 0, false},
		{"two threads, stopped early", Options{Threads: 2, SplitSize: 1}, 1, false},
		{"unordered", Options{Threads: 2, SplitSize: 1, Ordered: &unordered}, 0, false},
		{"ruled out mid-scan", Options{Threads: 1, SplitSize: 1}, 0, true},
	} {
		tbl := openFixtureTable(t, "impala_iceberg_v3_deletion_vectors")
		counting := &countingIO{FileIO: tbl.IO}
		tbl.IO = counting
		s, err := New(ctx, tbl, c.opts)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(s.Tasks()); n < 3 {
			t.Fatalf("%s: %d tasks; the test needs several", c.name, n)
		}
		rr, err := s.Reader(ctx, memory.DefaultAllocator)
		if err != nil {
			t.Fatal(err)
		}
		batches := 0
		for rr.Next() {
			batches++
			if batches == 1 {
				if c.opts.Threads == 1 {
					// The next file opens in the background: give it time.
					deadline := time.Now().Add(5 * time.Second)
					for counting.dataFiles() < 2 && time.Now().Before(deadline) {
						time.Sleep(time.Millisecond)
					}
					if counting.dataFiles() < 2 {
						t.Errorf("%s: while the first task's batch was out, the next file was not opened", c.name)
					}
				}
				if c.addRule {
					if err := s.AddFilter(textFilter("i < -1000")); err != nil {
						t.Fatal(err)
					}
				}
			}
			if c.stopAt > 0 && batches >= c.stopAt {
				break
			}
		}
		if c.stopAt == 0 && rr.Err() != nil {
			t.Errorf("%s: %v", c.name, rr.Err())
		}
		rr.Release()
		if c.stopAt == 0 && !c.addRule && counting.dataFiles() != len(s.Tasks()) {
			t.Errorf("%s: %d data files opened for %d tasks", c.name, counting.dataFiles(), len(s.Tasks()))
		}
		if o, cl := counting.opened.Load(), counting.closed.Load(); o != cl || o == 0 {
			t.Errorf("%s: %d data and delete files opened, %d closed", c.name, o, cl)
		}
	}
}
