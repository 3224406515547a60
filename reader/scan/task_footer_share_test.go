package scan

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/floedb/floe/reader/parquet"
)

// Ranges of one file opening at once parse its footer once and reopen it;
// the entry goes when the last range has opened; a file not added is
// parsed every time.
func TestFooterShareParsesOncePerFile(t *testing.T) {
	var fs footerShare
	fs.add("a", 4)
	fs.add("bad", 2)
	parsed := &parquet.File{NumRows: 7}
	var parses, reopens atomic.Int64
	parse := func() (*parquet.File, error) { parses.Add(1); return parsed, nil }
	reopen := func(f *parquet.File) *parquet.File {
		reopens.Add(1)
		g := *f
		return &g
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f, err := fs.open("a", parse, reopen)
			if err != nil || f.NumRows != 7 {
				t.Errorf("a range opened %v, %v", f, err)
			}
		}()
	}
	wg.Wait()
	if parses.Load() != 1 || reopens.Load() != 3 {
		t.Errorf("four ranges: %d parses and %d reopens, want 1 and 3", parses.Load(), reopens.Load())
	}
	if fs.files["a"] != nil {
		t.Error("the entry outlived the file's last range")
	}
	// A failed parse is not handed on: the next range parses for itself
	// (the first may have failed for a reason of its own, a cancelled
	// stream).
	fail := errors.New("cancelled")
	if _, err := fs.open("bad", func() (*parquet.File, error) { return nil, fail }, reopen); !errors.Is(err, fail) {
		t.Errorf("the failing range: %v", err)
	}
	if f, err := fs.open("bad", parse, reopen); err != nil || f != parsed {
		t.Errorf("the range after a failed parse: %v, %v", f, err)
	}
	parses.Store(0)
	for range 2 {
		if _, err := fs.open("other", parse, reopen); err != nil {
			t.Fatal(err)
		}
	}
	if parses.Load() != 2 {
		t.Errorf("a file not added: %d parses for 2 opens", parses.Load())
	}
	var none *footerShare
	if f, err := none.open("a", parse, reopen); err != nil || f != parsed {
		t.Errorf("no share: %v, %v", f, err)
	}
}
