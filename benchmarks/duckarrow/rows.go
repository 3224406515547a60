package duckarrow

import "database/sql"

// Rows reads every row of rs (and closes it), values as database/sql
// scans them into any. It needs no Arrow support, so untagged code (the
// benchmarks' read_parquet side) shares it.
func Rows(rs *sql.Rows) ([][]any, error) {
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]any
	for rs.Next() {
		row := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rs.Err()
}
