package main

// #include "capi.h"
import "C"

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/metadata"
	"github.com/floedb/floe/iceberg/table"
)

// floe_table_transaction_preview: the table as a transaction's metadata
// actions would leave it, so that data files for a later step of it are
// written (and JSON rows or pandas frames bound) with the schema, spec
// and write properties it will have: pyiceberg's
// `tx.update_schema().add_column(…)` then `tx.append(df)` holding the new
// column. The preview never commits.

// previewMetadata applies the metadata actions of a list to md, as the
// transaction would on its first attempt (snapshot steps change no
// schema or spec, and are skipped).
func previewMetadata(md *metadata.Metadata, actions *txActions) (*metadata.Metadata, error) {
	for i, s := range actions.steps {
		if s.act == nil {
			continue
		}
		updates, err := s.act.Build(md)
		if err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i, s.act.Name(), err)
		}
		if len(updates) == 0 {
			continue
		}
		c := metadata.Edit(md)
		if err := c.Apply(updates...); err != nil {
			return nil, fmt.Errorf("step %d (%s): %w", i, s.act.Name(), err)
		}
		md = c.Metadata()
	}
	return md, nil
}

// previewPublisher refuses every commit through a preview handle: its
// metadata is no version of the table.
type previewPublisher struct{}

var errPreview = errkind.New(errkind.InvalidArgument, "this handle is a preview of a transaction's changes (floe_table_transaction_preview), for writing files; commit through the table's own handle")

func (previewPublisher) Publish(context.Context, *table.Table, *metadata.Changes) (*table.Table, error) {
	return nil, errPreview
}

func (previewPublisher) Refresh(context.Context, *table.Table) (*table.Table, error) {
	return nil, errPreview
}

//export capiTableTransactionPreview
func capiTableTransactionPreview(h C.uintptr_t, actionsJSON *C.char, out *C.uintptr_t) (rc C.int) {
	const fn = "floe_table_transaction_preview"
	defer recoverStatus(fn, &rc)
	th, err := lookup[*tableHandle](uintptr(h), "floe_table")
	if err != nil {
		return fail(fn, err, statusInvalidArgument)
	}
	preview := *th.current()
	var list []json.RawMessage
	if data := cBytes(actionsJSON); len(data) > 0 && !(json.Unmarshal(data, &list) == nil && len(list) == 0) {
		actions, err := parseTxActions(data)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		md, err := previewMetadata(preview.Metadata, actions)
		if err != nil {
			return fail(fn, err, statusInvalidArgument)
		}
		preview.Metadata = md
	}
	preview.Publisher = previewPublisher{}
	*out = C.uintptr_t(newHandle(&tableHandle{table: &preview, timeout: th.timeout, memoryLimit: th.memoryLimit}))
	return C.int(statusOK)
}
