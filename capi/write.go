package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/cdata"
	"github.com/floedb/floe/iceberg"
	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/manifest"
	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/writer"
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
	where, err := resolveLocation(C.GoString(location), opts.Warehouse)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if where == "" {
		return fail(fn, invalidArgument("location is empty"), statusInvalidArgument)
	}
	raw, err := checkJSON(cBytes(schemaJSON), "schema")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	if raw == nil {
		return fail(fn, invalidArgument("schema is empty"), statusInvalidArgument)
	}
	var schema iceberg.Schema
	if err := json.Unmarshal(raw, &schema); err != nil {
		return fail(fn, invalidArgument("schema: %v", err), statusInvalidArgument)
	}
	spec, err := opts.spec(&schema)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	order, err := opts.sortOrder()
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	files, err := table.Options{S3: opts.S3}.FileIO(where)
	if err != nil {
		return fail(fn, err, statusUnsupported)
	}
	ctx := context.Background()
	var t *table.Table
	if opts.Ensure {
		t, err = table.EnsureTable(ctx, files, where, &schema, spec, order, opts.Properties, opts.FormatVersion)
	} else {
		t, err = table.Create(ctx, files, where, &schema, spec, order, opts.Properties, opts.FormatVersion)
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
	return writeAndCommit("floe_append", h, data, commitJSON, snapshotID, (*table.Table).Append)
}

//export capiReplacePartitions
func capiReplacePartitions(h C.uintptr_t, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	return writeAndCommit("floe_replace_partitions", h, data, commitJSON, snapshotID, (*table.Table).ReplacePartitions)
}

// commitFunc is a commit of added files: Append or ReplacePartitions.
type commitFunc func(t *table.Table, ctx context.Context, files []manifest.DataFile, opts table.CommitOptions) (table.CommitResult, error)

// writeAndCommit writes the stream's batches as data files and commits
// them with commit; when anything fails the files written are deleted.
func writeAndCommit(fn string, h C.uintptr_t, data *C.struct_ArrowArrayStream, commitJSON *C.char, snapshotID *C.int64_t, commit commitFunc) (rc C.int) {
	defer recoverStatus(fn, &rc)
	opts, err := parseCommitOptions(cBytes(commitJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return writeAndCommitWith(fn, h, data, opts, snapshotID, commit)
}

// writeAndCommitWith is writeAndCommit with the commit options parsed.
func writeAndCommitWith(fn string, h C.uintptr_t, data *C.struct_ArrowArrayStream, opts table.CommitOptions, snapshotID *C.int64_t, commit commitFunc) C.int {
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	ctx := context.Background()
	base := *th.current()
	if id, ok := table.SnapshotWithToken(base.Metadata, opts.Token); ok {
		// A retried step whose commit already happened: nothing to write.
		*snapshotID = C.int64_t(id)
		return C.int(statusOK)
	}
	w, files, err := writeStream(ctx, &base, data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	res, err := commit(&base, ctx, files, opts)
	if err != nil {
		if !outcomeUnknown(err) {
			_ = w.Abort()
		}
		return fail(fn, err, commitFailureStatus(err))
	}
	if res.TokenFound {
		_ = w.Abort() // the token was committed by another attempt meanwhile
	}
	th.set(&base)
	*snapshotID = C.int64_t(res.SnapshotID)
	return C.int(statusOK)
}

// outcomeUnknown: the metadata file may have been published, so the data
// files may be in the table and must stay.
func outcomeUnknown(err error) bool { return errors.Is(err, table.ErrCommitStateUnknown) }

// commitFailureStatus: conflicts are FLOE_CONFLICT; the table package's
// other refusals are about what the caller asked for.
func commitFailureStatus(err error) status {
	if errors.Is(err, table.ErrConflict) {
		return statusConflict
	}
	return classify(err, statusInvalidArgument)
}

// writeStream writes every batch of the stream as data files of t's
// current schema and default spec and returns the writer (to Abort) and
// the files. The stream is consumed and released.
func writeStream(ctx context.Context, t *table.Table, data *C.struct_ArrowArrayStream) (*writer.Writer, []manifest.DataFile, error) {
	imported, err := cdata.ImportCRecordReader((*cdata.CArrowArrayStream)(unsafe.Pointer(data)), nil)
	if err != nil {
		return nil, nil, invalidArgument("import the Arrow stream: %v", err)
	}
	rdr, ok := imported.(array.RecordReader)
	if !ok {
		return nil, nil, withStatus(statusInternal, fmt.Errorf("imported Arrow stream is a %T, not a record reader", imported))
	}
	defer rdr.Release()
	md := t.Metadata
	schema := md.CurrentSchema()
	if schema == nil {
		return nil, nil, withStatus(statusFormat, fmt.Errorf("table %s has no current schema", md.Location))
	}
	wopts, err := writer.OptionsFromProperties(md.Properties, schema)
	if err != nil {
		return nil, nil, err
	}
	w, err := writer.New(ctx, t.IO, dataLocation(md.Location, md.Properties), schema, md.DefaultSpec(), wopts)
	if err != nil {
		return nil, nil, err
	}
	for rdr.Next() {
		if err := w.Write(rdr.RecordBatch()); err != nil {
			_ = w.Abort()
			return nil, nil, err
		}
	}
	if err := rdr.Err(); err != nil {
		_ = w.Abort()
		return nil, nil, withStatus(statusIO, fmt.Errorf("read the Arrow stream: %w", err))
	}
	files, err := w.Close()
	if err != nil {
		_ = w.Abort()
		return nil, nil, err
	}
	return w, files, nil
}

// dataLocation is where a table's data files go: write.data.path, or the
// legacy write.folder-storage.path, else <location>/data.
func dataLocation(location string, props map[string]string) string {
	for _, key := range []string{"write.data.path", "write.folder-storage.path"} {
		if p := props[key]; p != "" {
			return p
		}
	}
	return fileio.JoinPath(location, "data")
}

//export capiWriteFiles
func capiWriteFiles(h C.uintptr_t, data *C.struct_ArrowArrayStream, out **C.uint8_t, n *C.size_t) (rc C.int) {
	const fn = "floe_write_files"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	w, files, err := writeStream(context.Background(), th.current(), data)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	encoded, err := writer.EncodeDataFiles(files)
	if err != nil {
		_ = w.Abort()
		return fail(fn, err, statusInternal)
	}
	*out = cByteBuffer(encoded)
	*n = C.size_t(len(encoded))
	return C.int(statusOK)
}

//export capiAppendFiles
func capiAppendFiles(h C.uintptr_t, files *C.uint8_t, n C.size_t, commitJSON *C.char, snapshotID *C.int64_t) (rc C.int) {
	const fn = "floe_append_files"
	defer recoverStatus(fn, &rc)
	added, err := decodeFiles(files, n)
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	return commitOnHandle(fn, h, commitJSON, snapshotID, func(t *table.Table, ctx context.Context, opts table.CommitOptions) (table.CommitResult, error) {
		return t.Append(ctx, added, opts)
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
	return commitOnHandle(fn, h, commitJSON, snapshotID, func(t *table.Table, ctx context.Context, opts table.CommitOptions) (table.CommitResult, error) {
		return t.Commit(ctx, added, removed, opts)
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

// commitOnHandle runs one commit on the handle's table version and keeps
// the committed version on success.
func commitOnHandle(fn string, h C.uintptr_t, commitJSON *C.char, snapshotID *C.int64_t, commit func(*table.Table, context.Context, table.CommitOptions) (table.CommitResult, error)) C.int {
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	opts, err := parseCommitOptions(cBytes(commitJSON))
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	th.commitMu.Lock()
	defer th.commitMu.Unlock()
	base := *th.current()
	res, err := commit(&base, context.Background(), opts)
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
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
	res, err := base.ExpireSnapshots(context.Background(), opts.OlderThanMs, opts.RetainLast, table.ExpireOptions{KeepFiles: opts.KeepFiles})
	if err != nil {
		return fail(fn, err, commitFailureStatus(err))
	}
	th.set(&base)
	out := expireResult{
		ExpiredSnapshots: nonNil(res.ExpiredSnapshots), RemovedRefs: nonNil(res.RemovedRefs),
		DeletedFiles: nonNil(res.DeletedFiles), FailedDeletes: res.FailedDeletes,
	}
	data, err := json.Marshal(out)
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
