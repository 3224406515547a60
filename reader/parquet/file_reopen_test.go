package parquet

import (
	"bytes"
	"sync"
	"testing"
)

// A reopened file reads through its own reader, not the parsed one's, and
// decodes the same; both read at once, each with prefetches of its own,
// and closing the first leaves the second reading.
func TestReopenSharesTheFooterNotTheReader(t *testing.T) {
	data := multiGroupFile(t)
	firstIO := &countingFile{r: bytes.NewReader(data)}
	first, err := OpenFile(firstIO, int64(len(data)), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := readGroups(t, first, false)
	defer func() {
		for _, b := range want {
			b.Release()
		}
	}()
	secondIO := &countingFile{r: bytes.NewReader(data)}
	second := first.Reopen(secondIO, nil)
	if second.NumRows != first.NumRows || len(second.RowGroups) != len(first.RowGroups) {
		t.Fatalf("reopened: %d rows in %d row groups, parsed %d in %d", second.NumRows, len(second.RowGroups), first.NumRows, len(first.RowGroups))
	}
	var wg sync.WaitGroup
	got := make([][]*Batch, 2)
	for i, f := range []*File{first, second} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = readGroups(t, f, true)
		}()
	}
	wg.Wait()
	first.Close()
	readFirst := firstIO.calls.Load()
	after := readGroups(t, second, true)
	second.Close()
	for _, batches := range append(got, after) {
		for rg := range want {
			for c := range want[rg].Columns {
				assertSameArrays(t, "reopened column", want[rg].Columns[c], batches[rg].Columns[c])
			}
			batches[rg].Release()
		}
	}
	if secondIO.calls.Load() == 0 {
		t.Error("the reopened file read nothing through its own reader")
	}
	if n := firstIO.calls.Load() - readFirst; n != 0 {
		t.Errorf("reading the reopened file took %d reads through the parsed file's reader", n)
	}
}
