package rest

import (
	"strings"

	"github.com/floedb/floe/iceberg/fileio"
	"github.com/floedb/floe/iceberg/table"
)

// attachIO gives t the FileIO for its files: the caller's S3 settings,
// refined by the catalog's s3.* properties, then by the table's config
// from LoadTable, then by the vended storage credentials whose prefix is
// the longest that holds the table's location.
func (cat *Catalog) attachIO(t *table.Table, config map[string]string, creds []storageCredential) error {
	sets := []map[string]string{cat.props, config}
	if c := longestPrefix(creds, t.Metadata.Location); c != nil {
		sets = append(sets, c.Config)
	}
	for _, set := range sets[1:] {
		cat.c.secrets.AddProperties(set)
	}
	opts := cat.tableOpts
	opts.S3 = fileio.WithProperties(cat.tableOpts.S3, sets...)
	opts.GCS = fileio.WithGCSProperties(cat.tableOpts.GCS, sets...)
	opts.Azure = fileio.AzureWithProperties(cat.tableOpts.Azure, sets...)
	files, err := opts.FileIO(t.Metadata.Location)
	if err != nil {
		return err
	}
	locations, err := fileio.NewLocationMap(opts.LocationMap)
	if err != nil {
		return err
	}
	t.IO, t.Locations = files, locations
	return nil
}

func longestPrefix(creds []storageCredential, location string) *storageCredential {
	var best *storageCredential
	for i := range creds {
		c := &creds[i]
		if strings.HasPrefix(location, c.Prefix) && (best == nil || len(c.Prefix) > len(best.Prefix)) {
			best = c
		}
	}
	return best
}
