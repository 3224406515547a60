package main

import (
	"context"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqarrowScan reads the data files with arrow-go's Parquet-to-Arrow
// reader, one file after another, the given leaf columns (nil = all).
func pqarrowScan(files []string, leaves []int, batchSize int64) func() (checksum, error) {
	return func() (checksum, error) {
		var sum checksum
		var sink float64
		for _, path := range files {
			pf, err := file.OpenParquetFile(path, false, file.WithReadProps(parquet.NewReaderProperties(memory.DefaultAllocator)))
			if err != nil {
				return sum, err
			}
			fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: batchSize}, memory.DefaultAllocator)
			if err != nil {
				pf.Close()
				return sum, err
			}
			rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
			if err != nil {
				pf.Close()
				return sum, err
			}
			for rr.Next() {
				consumeRecord(rr.RecordBatch(), &sum, &sink)
			}
			err = rr.Err()
			rr.Release()
			pf.Close()
			if err != nil {
				return sum, err
			}
		}
		return sum, nil
	}
}
