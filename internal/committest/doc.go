// Package committest holds end-to-end tests of commits (create, append,
// replace, overwrite, row-level deletes, expiry, concurrent and repeated
// commits) that read the committed tables back through package scan,
// and the helpers they share with iceberg/table's own tests: writing real
// delete files (position delete Parquet files, deletion vectors in Puffin
// files, equality delete Parquet files) and reading a table's rows.
//
// Nothing here is used outside tests.
package committest
