package maintenance

import (
	"context"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/maintain"
)

func init() {
	actions["rewrite_position_deletes"] = deleteRewriteRequest("rewrite_position_deletes", maintain.RewritePositionDeletes)
	actions["convert_equality_deletes"] = deleteRewriteRequest("convert_equality_deletes", maintain.ConvertEqualityDeletes)
}

// deleteRewriteResultJSON is maintain.DeleteRewriteResult with committed
// said as the other committing actions say it.
type deleteRewriteResultJSON struct {
	maintain.DeleteRewriteResult
	Committed bool `json:"committed"`
}

// deleteRewriteRequest: the delete rewrites take the commit options and
// target_file_size_bytes (merged position delete files, v2);
// with nothing to rewrite the result is the branch head, uncommitted.
func deleteRewriteRequest(action string, run func(context.Context, *table.Table, maintain.DeleteRewriteOptions) (maintain.DeleteRewriteResult, error)) func([]byte) (Request, error) {
	return func(data []byte) (Request, error) {
		var o struct {
			maintainCommitOptions
			TargetFileSizeBytes int64 `json:"target_file_size_bytes"`
		}
		if err := decodeOptions(data, &o, action); err != nil {
			return Request{}, err
		}
		if o.TargetFileSizeBytes < 0 {
			return Request{}, invalid("%s options: target_file_size_bytes %d is negative", action, o.TargetFileSizeBytes)
		}
		return Request{TimeoutMs: o.TimeoutMs, run: func(ctx context.Context, t *table.Table, progress Progress) (any, error) {
			res, err := run(ctx, t, maintain.DeleteRewriteOptions{
				Branch: o.Branch, Token: o.Token, Properties: o.Properties, TargetFileSizeBytes: o.TargetFileSizeBytes,
			})
			if err != nil {
				return nil, err
			}
			progress.done(action)
			out := deleteRewriteResultJSON{DeleteRewriteResult: res, Committed: res.SnapshotID != 0 && !res.TokenFound}
			if res.SnapshotID == 0 {
				out.SnapshotID = headID(t, o.Branch)
			}
			return out, nil
		}}, nil
	}
}
