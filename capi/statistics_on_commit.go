package main

import (
	"context"

	"github.com/floedb/floe/iceberg/table"
	"github.com/floedb/floe/internal/maintenance"
)

// statisticsOnCommit updates the statistics of a table with
// write.statistics.on-commit=true after a commit through the C API. Its
// error does not fail the call: the rows are committed, and the
// statistics catch up at the next commit (maintenance.AfterCommit).
func statisticsOnCommit(ctx context.Context, t *table.Table) {
	_ = maintenance.AfterCommit(ctx, t)
}
