package scan

import (
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

func int64Batch(t *testing.T, n int) arrow.RecordBatch {
	t.Helper()
	b := array.NewInt64Builder(memory.DefaultAllocator)
	defer b.Release()
	for i := range n {
		b.Append(int64(i))
	}
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: "x", Type: arrow.PrimitiveTypes.Int64}}, nil)
	return array.NewRecordBatch(schema, []arrow.Array{col}, int64(n))
}

// A task after the head decodes ahead until the byte budget is full, not
// just a couple of batches; then it waits until the consumer frees room.
// The head always gets room for its next batches.
func TestOrderedBufferBudget(t *testing.T) {
	batch := int64Batch(t, 1024) // 8 KiB of values
	size := recordBytes(batch)
	if size < 8192 {
		t.Fatalf("recordBytes = %d", size)
	}
	buf := newOrderedBuffer(2, 10*size)
	pushed := make(chan int, 100)
	go func() {
		for i := range 20 {
			batch.Retain()
			if !buf.push(1, taskResult{rec: batch}) {
				batch.Release()
				return
			}
			pushed <- i
		}
		buf.finish(1)
	}()
	waitFor := func(n int) {
		deadline := time.After(5 * time.Second)
		for len(pushed) < n {
			select {
			case <-deadline:
				t.Fatalf("task 1 queued %d batches, want %d", len(pushed), n)
			case <-time.After(time.Millisecond):
			}
		}
	}
	waitFor(10)
	time.Sleep(20 * time.Millisecond)
	if n := len(pushed); n != 10 {
		t.Fatalf("task 1 queued %d batches within a 10-batch budget", n)
	}
	// The head (task 0) still gets its batches in while the budget is full.
	batch.Retain()
	done := make(chan bool)
	go func() { done <- buf.push(0, taskResult{rec: batch}) }()
	select {
	case ok := <-done:
		if !ok {
			t.Fatal("the head's push was refused")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the head waited on a budget other tasks filled")
	}
	res, ok := buf.pop(0)
	if !ok || res.rec == nil {
		t.Fatal("the head's batch did not come out")
	}
	res.rec.Release()
	buf.finish(0)
	if _, ok := buf.pop(0); ok {
		t.Fatal("a finished, drained task gave another batch")
	}
	// Taking task 1's batches frees room for the rest, in order.
	for i := range 20 {
		res, ok := buf.pop(1)
		if !ok {
			t.Fatalf("task 1 ended after %d batches", i)
		}
		res.rec.Release()
	}
	if _, ok := buf.pop(1); ok {
		t.Fatal("task 1 gave more batches than it pushed")
	}
	buf.close()
	batch.Release()
}

// Closing wakes a push waiting for room; it reports the refusal.
func TestOrderedBufferCloseWakesWaiters(t *testing.T) {
	batch := int64Batch(t, 1024)
	buf := newOrderedBuffer(3, 1)
	batch.Retain()
	if !buf.push(2, taskResult{rec: batch}) { // an empty buffer takes one batch
		t.Fatal("first push refused")
	}
	done := make(chan bool)
	go func() { done <- buf.push(2, taskResult{rec: batch}) }()
	time.Sleep(10 * time.Millisecond)
	buf.close()
	select {
	case ok := <-done:
		if ok {
			t.Fatal("a push into a closed buffer was accepted")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("close did not wake the waiting push")
	}
	batch.Release()
}
