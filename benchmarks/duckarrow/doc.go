// Package duckarrow runs DuckDB SQL over Arrow record readers (floe's
// scans) through duckdb-go's Arrow interface, working around its two
// traps: DuckDB pushes projections and filters into a plain Arrow stream
// that ignores them (wrong answers or a crash, DuckDB issue 17012), so the
// session disables the optimizers that do it; and a registered stream is
// consumed by one query, so every query registers fresh streams.
//
// duckdb-go's Arrow support needs the build tag duckdb_arrow, and so does
// everything in this package but this file and Rows (rows.go), which
// untagged code shares.
package duckarrow
