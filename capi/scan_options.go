package main

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg/expr"
	"github.com/floedb/floe/reader/parquet"
	"github.com/floedb/floe/reader/scan"
)

// scanOptionsJSON is scan_json as include/floe.h documents it (and Python
// writes it); the scan package takes the plain scan.Options it becomes.
type scanOptionsJSON struct {
	// Columns: absent (nil) is every column, [] none.
	Columns         []string        `json:"columns"`
	SnapshotID      *int64          `json:"snapshot_id,omitempty"`
	AsOfTimestamp   *int64          `json:"as_of_timestamp,omitempty"`
	Ref             string          `json:"ref,omitempty"`
	FromSnapshotID  *int64          `json:"from_snapshot_id,omitempty"` // incremental append scan
	ToSnapshotID    *int64          `json:"to_snapshot_id,omitempty"`
	Changelog       bool            `json:"changelog,omitempty"` // changelog scan of the same range
	Limit           *int64          `json:"limit,omitempty"`
	BatchSize       int             `json:"batch_size,omitempty"`
	Threads         int             `json:"threads,omitempty"`
	VerifyCRC       bool            `json:"verify_crc,omitempty"`
	CaseInsensitive bool            `json:"case_insensitive,omitempty"`
	Filter          json.RawMessage `json:"filter,omitempty"`
	SplitSize       int64           `json:"split_size,omitempty"`
	Ordered         *bool           `json:"ordered,omitempty"`
	BufferBytes     int64           `json:"buffer_bytes,omitempty"`
	CoalesceGap     int64           `json:"coalesce_gap,omitempty"`
	MaxRequest      int64           `json:"max_request,omitempty"`
	IOConcurrency   int             `json:"io_concurrency,omitempty"`
	PrefetchBytes   int64           `json:"prefetch_bytes,omitempty"`
	// TimeoutMs bounds the scan's planning and each of its streams (from
	// opening to the end), instead of the table handle's timeout_ms.
	TimeoutMs *int64 `json:"timeout_ms,omitempty"`
	// MemoryLimit bounds what the scan holds (scan.Options.MemoryLimit);
	// default the table handle's memory_limit.
	MemoryLimit int64 `json:"memory_limit,omitempty"`
}

// decodeScanOptions reads scan options from JSON, refusing unknown keys so
// a misspelt option is an error rather than silently ignored, and parses
// the filter once, here.
func decodeScanOptions(data []byte) (scan.Options, error) {
	opts, _, err := decodeScanRequest(data)
	return opts, err
}

// decodeScanRequest is decodeScanOptions and the scan's timeout_ms (nil
// when not given: the table handle's applies).
func decodeScanRequest(data []byte) (scan.Options, *time.Duration, error) {
	var o scanOptionsJSON
	if len(data) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			return scan.Options{}, nil, errkind.Errorf(errkind.InvalidArgument, "scan options: %w", err)
		}
	}
	filter, err := expr.ParseFilterJSON(o.Filter)
	if err != nil {
		return scan.Options{}, nil, err
	}
	var timeout *time.Duration
	if o.TimeoutMs != nil {
		d, err := timeoutOption("scan options", *o.TimeoutMs)
		if err != nil {
			return scan.Options{}, nil, err
		}
		timeout = &d
	}
	opts := scan.Options{
		Columns: o.Columns, SnapshotID: o.SnapshotID, AsOfTimestamp: o.AsOfTimestamp, Ref: o.Ref,
		FromSnapshotID: o.FromSnapshotID, ToSnapshotID: o.ToSnapshotID, Changelog: o.Changelog,
		Limit: o.Limit, BatchSize: o.BatchSize, Threads: o.Threads, VerifyCRC: o.VerifyCRC,
		CaseInsensitive: o.CaseInsensitive, Filter: filter, SplitSize: o.SplitSize, Ordered: o.Ordered,
		BufferBytes: o.BufferBytes, MemoryLimit: o.MemoryLimit,
		FetchOptions: parquet.FetchOptions{
			CoalesceGap: o.CoalesceGap, MaxRequest: o.MaxRequest, Concurrency: o.IOConcurrency, PrefetchBytes: o.PrefetchBytes,
		},
	}
	return opts, timeout, opts.Validate()
}
