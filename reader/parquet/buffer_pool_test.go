package parquet

import (
	"runtime"
	"testing"
	"unsafe"
)

// Kept buffers and decoders outlive garbage collections: sync.Pools did
// not, and scans between a host's collections paid for new ones.
func TestScratchSurvivesCollections(t *testing.T) {
	const n = 3<<20 + 5               // an odd size, in the 4 MiB class
	SetScratchKeep(SetScratchKeep(0)) // room for it, whatever earlier tests left
	b := GetBytes(n)
	if len(b) != n || cap(b) != 4<<20 {
		t.Fatalf("GetBytes(%d): len %d cap %d", n, len(b), cap(b))
	}
	PutBytes(b)
	runtime.GC()
	runtime.GC()
	again := GetBytes(4 << 20)
	defer PutBytes(again)
	if unsafe.SliceData(again) != unsafe.SliceData(b) {
		t.Fatal("a scratch buffer handed back was not reused after two collections")
	}

	d, err := getZstd()
	if err != nil {
		t.Fatal(err)
	}
	putZstd(d)
	runtime.GC()
	runtime.GC()
	d2, err := getZstd()
	if err != nil {
		t.Fatal(err)
	}
	defer putZstd(d2)
	if d2 != d {
		t.Fatal("a zstd decoder handed back was not reused after two collections")
	}
}

// The free list holds no more than its limit, and lowering the limit
// drops what it holds beyond it.
func TestScratchKeepBoundsWhatIsHeld(t *testing.T) {
	old := SetScratchKeep(8 << 20)
	defer SetScratchKeep(old)
	held := func() int {
		scratchFree.mu.Lock()
		defer scratchFree.mu.Unlock()
		return scratchFree.held
	}
	bufs := make([][]byte, 4)
	for i := range bufs {
		bufs[i] = GetBytes(4 << 20)
	}
	for _, b := range bufs {
		PutBytes(b)
	}
	if h := held(); h > 8<<20 || h < 4<<20 {
		t.Fatalf("holding %d bytes under an 8 MiB limit after four 4 MiB buffers came back", h)
	}
	SetScratchKeep(0)
	if h := held(); h != 0 {
		t.Fatalf("holding %d bytes after the limit went to 0", h)
	}
	PutBytes(GetBytes(1 << 20))
	if h := held(); h != 0 {
		t.Fatalf("holding %d bytes with a limit of 0", h)
	}
}
