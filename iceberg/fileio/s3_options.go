package fileio

import (
	"errors"
	"fmt"
	"net/url"
)

// Validate refuses settings that can never work, so a caller can reject
// them when it parses them instead of at the first S3 request. What depends
// on the environment (credentials, the region) is checked by NewS3.
func (o S3Options) Validate() error {
	switch {
	case o.PartSize != 0 && o.PartSize < minS3PartSize:
		return fmt.Errorf("fileio: s3 part_size %d is below S3's minimum of %d bytes", o.PartSize, minS3PartSize)
	case o.MaxAttempts < 0:
		return fmt.Errorf("fileio: s3 max_attempts %d is negative", o.MaxAttempts)
	case (o.AccessKeyID == "") != (o.SecretAccessKey == ""):
		return errors.New("fileio: s3 options give only one of access_key_id and secret_access_key")
	case o.Anonymous && o.AccessKeyID != "":
		return errors.New("fileio: s3 options are anonymous and give credentials; choose one")
	case o.SessionToken != "" && o.AccessKeyID == "":
		return errors.New("fileio: s3 options give a session_token without access_key_id and secret_access_key")
	}
	if o.Endpoint != "" {
		u, err := url.Parse(o.Endpoint)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("fileio: s3 endpoint %q is not an http:// or https:// URL", o.Endpoint)
		}
	}
	return nil
}
