package main

import (
	"errors"
	"io"
	"os"

	"github.com/floedb/floe/benchmarks/lineitem"
	"github.com/parquet-go/parquet-go"
)

// partPrice is the two-column projection as a parquet-go row type: the
// generic reader reads only the columns its type names.
type partPrice struct {
	PartKey       int64   `parquet:"l_partkey,optional"`
	ExtendedPrice float64 `parquet:"l_extendedprice,optional"`
}

// parquetGoScan reads the data files into Go structs with parquet-go's
// generic reader, touching every field as consumeRecord does.
func parquetGoScan(files []string, full bool, batch int) func() (checksum, error) {
	return func() (checksum, error) {
		var sum checksum
		var sink float64
		for _, path := range files {
			var err error
			if full {
				err = readGeneric(path, batch, func(rows []lineitem.Row) {
					for i := range rows {
						r := &rows[i]
						sum.SumPartKey += r.PartKey
						sink += float64(r.OrderKey+r.SuppKey+r.Quantity+int64(r.ShipDate)+int64(len(r.ReturnFlag))+int64(len(r.Comment))) + r.ExtendedPrice + r.Discount
					}
					sum.Rows += int64(len(rows))
				})
			} else {
				err = readGeneric(path, batch, func(rows []partPrice) {
					for i := range rows {
						sum.SumPartKey += rows[i].PartKey
						sink += rows[i].ExtendedPrice
					}
					sum.Rows += int64(len(rows))
				})
			}
			if err != nil {
				return sum, err
			}
		}
		return sum, nil
	}
}

func readGeneric[T any](path string, batch int, consume func([]T)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[T](f)
	defer r.Close()
	buf := make([]T, batch)
	for {
		n, err := r.Read(buf)
		consume(buf[:n])
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
