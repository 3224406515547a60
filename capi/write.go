package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
	"github.com/floedb/floe/writer/ops"
)

// The write and commit entry points. Each works on the table version its
// handle holds and, on success, leaves the committed version there; the
// commit loop refreshes and retries on its own when other writers won.

//export capiTableCreate
func capiTableCreate(location, schemaJSON, optionsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_table_create"
	defer recoverStatus(fn, &rc)
	opts, err := parseCreateOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if opts.Location != "" {
		return fail(fn, invalidArgument("create options: location is for a catalog table; a path table is created at the location argument"), statusInvalidArgument)
	}
	where, err := resolveLocation(C.GoString(location), opts.Warehouse)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if where == "" {
		return fail(fn, invalidArgument("location is empty"), statusInvalidArgument)
	}
	schema, spec, order, err := opts.tableDefinition(cBytes(schemaJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	files, err := table.Options{S3: opts.S3, GCS: opts.GCS, Azure: opts.Azure}.FileIO(where)
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	ctx := context.Background()
	var t *table.Table
	if opts.Ensure {
		t, err = table.EnsureTable(ctx, files, where, schema, spec, order, opts.Properties, opts.FormatVersion)
	} else {
		t, err = table.Create(ctx, files, where, schema, spec, order, opts.Properties, opts.FormatVersion)
	}
	if err != nil {
		return fail(fn, err, createFailureStatus(err))
	}
	*out = C.uintptr_t(newHandle(&tableHandle{table: t}))
	return C.int(statusOK)
}

// createFailureStatus: an existing table is FLOE_CONFLICT; storage errors
// are classified as usual; what is left is a schema, spec or property the
// caller gave that does not make a table.
func createFailureStatus(err error) status {
	if errors.Is(err, table.ErrTableExists) {
		return statusConflict
	}
	return classify(err, statusInvalidArgument)
}

//export capiAppend
func capiAppend(h C.uintptr_t, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	return writeAndCommit("floe_append", h, data, commitJSON, snapshotID, ops.Append)
}

//export capiReplacePartitions
func capiReplacePartitions(h C.uintptr_t, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	return writeAndCommit("floe_replace_partitions", h, data, commitJSON, snapshotID, ops.ReplacePartitions)
}

// streamOp writes a stream's rows and commits them (package ops, which
// removes the files it wrote unless they are in the table).
type streamOp func(ctx context.Context, t *table.Table, data array.RecordReader, opts table.CommitOptions) (ops.Result, error)

// writeAndCommit runs op on the stream's batches with the commit options
// commitJSON gives. The stream is released whatever happens.
func writeAndCommit(fn string, h C.uintptr_t, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t, op streamOp) (rc C.int) {
	defer recoverStatus(fn, &rc)
	rdr, err := importStream(data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	defer rdr.Release()
	opts, timeout, err := parseCommitOptions(cBytes(commitJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		return op(ctx, t, countRows(ctx, rdr), opts)
	})
}

// commitFailureStatus: a commit's errors have their kinds (a conflict, an
// unknown outcome); the table package's other refusals are about what the
// caller asked for.
func commitFailureStatus(err error) status { return classify(err, statusInvalidArgument) }

// importStream takes the caller's Arrow stream as a record reader, whose
// read errors are FLOE_IO. Releasing it releases the caller's stream.
func importStream(data *C.struct_ArrowArrayStream) (array.RecordReader, error) {
	if data == nil {
		return nil, invalidArgument("the Arrow stream is NULL")
	}
	imported, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(data)), nil)
	if err != nil {
		return nil, invalidArgument("import the Arrow stream: %v", err)
	}
	rdr, ok := imported.(array.RecordReader)
	if !ok {
		return nil, withStatus(statusInternal, fmt.Errorf("imported Arrow stream is a %T, not a record reader", imported))
	}
	return streamReader{rdr}, nil
}

// streamReader marks the errors of reading the caller's stream as I/O.
type streamReader struct{ array.RecordReader }

func (r streamReader) Err() error {
	if err := r.RecordReader.Err(); err != nil {
		return withStatus(statusIO, fmt.Errorf("read the Arrow stream: %w", err))
	}
	return nil
}

//export capiWriteFiles
func capiWriteFiles(h C.uintptr_t, data *C.struct_ArrowArrayStream, out **C.uint8_t, n *C.size_t) (rc C.int) {
	const fn = "floe_write_files"
	defer recoverStatus(fn, &rc)
	rdr, err := importStream(data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	defer rdr.Release()
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx := context.Background()
	t := th.current()
	files, err := ops.WriteFiles(ctx, t, rdr)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	encoded, err := writer.EncodeDataFiles(files)
	if err != nil {
		ops.RemoveFiles(ctx, t, files)
		return fail(fn, err, statusInternal)
	}
	*out = cByteBuffer(encoded)
	*n = C.size_t(len(encoded))
	return C.int(statusOK)
}

//export capiAppendFiles
func capiAppendFiles(h C.uintptr_t, files *C.uint8_t, n C.size_t, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	return commitWrittenFiles("floe_append_files", h, files, n, commitJSON, snapshotID, ops.AppendFiles)
}

//export capiReplacePartitionsFiles
func capiReplacePartitionsFiles(h C.uintptr_t, files *C.uint8_t, n C.size_t, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	return commitWrittenFiles("floe_replace_partitions_files", h, files, n, commitJSON, snapshotID, ops.ReplacePartitionsFiles)
}

// filesOp commits data files floe_write_files wrote (package ops, which
// never deletes them).
type filesOp func(ctx context.Context, t *table.Table, files []manifest.DataFile, opts table.CommitOptions) (ops.Result, error)

func commitWrittenFiles(fn string, h C.uintptr_t, files *C.uint8_t, n C.size_t, commitJSON *C.char, snapshotID *C.int64_t, op filesOp) (rc C.int) {
	defer recoverStatus(fn, &rc)
	added, err := decodeFiles(files, n)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	var o filesCommitOptions
	if err := decodeStrict(cBytes(commitJSON), &o, "commit options"); err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	timeout, err := o.timeout()
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts := o.table()
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		if o.DiscardRefused {
			return ops.DiscardNotTaken(ctx, t, added)(op(ctx, t, added, opts))
		}
		return op(ctx, t, added, opts)
	})
}

// filesCommitOptions is the commit_json of floe_append_files and
// floe_replace_partitions_files: a commit's, and whether the files go when
// the commit does not take them.
type filesCommitOptions struct {
	commitOptions
	// DiscardRefused: the files were written for this commit only, so
	// they are deleted (ops.DiscardNotTaken) when it fails with a known
	// outcome or finds its token committed. The commit knows which
	// happened; a caller that discards afterwards cannot always tell a
	// found token from its own commit.
	DiscardRefused bool `json:"discard_refused"`
}

//export capiDiscardFiles
func capiDiscardFiles(h C.uintptr_t, files *C.uint8_t, n C.size_t) (rc C.int) {
	const fn = "floe_discard_files"
	defer recoverStatus(fn, &rc)
	discarded, err := decodeFiles(files, n)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	ctx, cancel := callContext(context.Background(), th.timeout)
	defer cancel()
	if err := ops.DiscardFiles(ctx, th.current(), discarded); err != nil {
		return fail(fn, err, classify(err, statusIO))
	}
	return C.int(statusOK)
}

//export capiAddFiles
func capiAddFiles(h C.uintptr_t, pathsJSON, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_add_files"
	defer recoverStatus(fn, &rc)
	paths, err := parsePaths(cBytes(pathsJSON), "file paths")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if len(paths) == 0 {
		return fail(fn, invalidArgument("file paths: none given"), statusInvalidArgument)
	}
	opts, timeout, err := parseCommitOptions(cBytes(commitJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		return ops.AddFiles(ctx, t, paths, opts)
	})
}

//export capiCommit
func capiCommit(h C.uintptr_t, files *C.uint8_t, n C.size_t, removedJSON, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_commit"
	defer recoverStatus(fn, &rc)
	var added []manifest.DataFile
	if files != nil && n > 0 {
		var err error
		if added, err = decodeFiles(files, n); err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
	}
	removed, err := parseRemovedPaths(cBytes(removedJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts, timeout, err := parseCommitOptions(cBytes(commitJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return runOnHandle(fn, h, snapshotID, timeout, func(t *table.Table, ctx context.Context) (ops.Result, error) {
		return ops.CommitFiles(ctx, t, added, removed, opts)
	})
}

// decodeFiles reads the caller's floe_write_files bytes in place.
func decodeFiles(files *C.uint8_t, n C.size_t) ([]manifest.DataFile, error) {
	if files == nil {
		return nil, invalidArgument("files are NULL")
	}
	added, err := writer.DecodeDataFiles(unsafe.Slice((*byte)(unsafe.Pointer(files)), int(n)))
	if err != nil {
		return nil, withStatus(statusInvalidArgument, err)
	}
	return added, nil
}

// runOnHandle runs one operation on the handle's table version, one at a
// time per handle, and keeps the version it leaves on success.
func runOnHandle(fn string, h C.uintptr_t, snapshotID *C.int64_t, timeout *time.Duration, op func(*table.Table, context.Context) (ops.Result, error)) C.int {
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	ctx, cancel := callContext(th.metered(context.Background()), overridden(th.timeout, timeout))
	defer cancel()
	res, err := op(&base, ctx)
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	statisticsOnCommit(ctx, &base)
	th.set(&base)
	*snapshotID = C.int64_t(res.SnapshotID)
	return C.int(statusOK)
}

// expireResult is the JSON floe_expire_snapshots returns.
type expireResult struct {
	ExpiredSnapshots []int64  `json:"expired_snapshots"`
	RemovedRefs      []string `json:"removed_refs"`
	DeletedFiles     []string `json:"deleted_files"`
	FailedDeletes    int      `json:"failed_deletes"`
	// Outside are unreferenced files left because they lie outside the
	// table's location.
	Outside []string `json:"outside"`
}

//export capiExpireSnapshots
func capiExpireSnapshots(h C.uintptr_t, optionsJSON *C.char, resultJSON **C.char) (rc C.int) {
	const fn = "floe_expire_snapshots"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts, err := parseExpireOptions(cBytes(optionsJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	res, err := base.ExpireSnapshots(th.metered(context.Background()), opts.OlderThanMs, opts.RetainLast, table.ExpireOptions{KeepFiles: opts.KeepFiles})
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	th.set(&base)
	data, err := json.Marshal(newExpireResult(res))
	if err != nil {
		return fail(fn, err, statusInternal)
	}
	*resultJSON = cString(data)
	return C.int(statusOK)
}

// nonNil makes empty lists encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// cByteBuffer copies b into a new malloc'd buffer (freed by
// floe_bytes_free); a 1-byte buffer for empty b, so the result is never
// NULL.
func cByteBuffer(b []byte) *C.uint8_t {
	p := (*C.uint8_t)(C.malloc(C.size_t(max(len(b), 1))))
	if p == nil {
		panic("out of memory")
	}
	copy(unsafe.Slice((*byte)(unsafe.Pointer(p)), len(b)), b)
	return p
}

// tableDefinition reads a new table's schema JSON and the partition spec
// and sort order the create options give for it.
func (o createOptions) tableDefinition(schemaJSON []byte) (*iceberg.Schema, *iceberg.PartitionSpec, *iceberg.SortOrder, error) {
	raw, err := checkJSON(schemaJSON, "schema")
	if err != nil {
		return nil, nil, nil, err
	}
	if raw == nil {
		return nil, nil, nil, invalidArgument("schema is empty")
	}
	var schema iceberg.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, nil, nil, invalidArgument("schema: %v", err)
	}
	spec, err := o.spec(&schema)
	if err != nil {
		return nil, nil, nil, err
	}
	order, err := o.sortOrder()
	if err != nil {
		return nil, nil, nil, err
	}
	return &schema, spec, order, nil
}

// newExpireResult is what expiry did, as floe_expire_snapshots and a
// transaction's expire-snapshots action report it.
func newExpireResult(res table.ExpireResult) expireResult {
	return expireResult{
		ExpiredSnapshots: nonNil(res.ExpiredSnapshots), RemovedRefs: nonNil(res.RemovedRefs),
		DeletedFiles: nonNil(res.DeletedFiles), FailedDeletes: res.FailedDeletes, Outside: nonNil(res.Outside),
	}
}
