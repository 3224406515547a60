package fileio

import (
	"strconv"
	"strings"
)

// The Iceberg property names of S3 settings, as catalogs send them
// (a REST LoadTable's config, vended storage credentials) and as users
// give them to a catalog (pyiceberg and Iceberg's Java client spell them
// so).
const (
	PropS3Endpoint        = "s3.endpoint"
	PropS3Region          = "s3.region"
	PropClientRegion      = "client.region"
	PropS3PathStyle       = "s3.path-style-access"
	PropS3AccessKeyID     = "s3.access-key-id"
	PropS3SecretAccessKey = "s3.secret-access-key"
	PropS3SessionToken    = "s3.session-token"
	PropS3Anonymous       = "s3.anonymous"
)

// WithProperties is base (nil: none) refined by the S3 settings among
// Iceberg properties, applied in order (later ones win); nil when neither
// base nor any property says anything, so that the environment decides.
// Credentials come as a set: properties that give an access key replace
// base's key, secret and session token together.
func WithProperties(base *S3Options, propSets ...map[string]string) *S3Options {
	var out S3Options
	said := base != nil
	if base != nil {
		out = *base
	}
	for _, props := range propSets {
		for k, v := range props {
			if !strings.HasPrefix(k, "s3.") && k != PropClientRegion {
				continue
			}
			switch k {
			case PropS3Endpoint:
				out.Endpoint = v
			case PropS3Region:
				out.Region = v
			case PropClientRegion:
				// s3.region, when the same set gives both, wins.
				if props[PropS3Region] == "" {
					out.Region = v
				}
			case PropS3PathStyle:
				out.PathStyle, _ = strconv.ParseBool(v)
			case PropS3Anonymous:
				out.Anonymous, _ = strconv.ParseBool(v)
			default:
				continue
			}
			said = true
		}
		if id, secret := props[PropS3AccessKeyID], props[PropS3SecretAccessKey]; id != "" || secret != "" {
			out.AccessKeyID, out.SecretAccessKey, out.SessionToken = id, secret, props[PropS3SessionToken]
			out.Anonymous = false
			said = true
		}
	}
	if !said {
		return nil
	}
	return &out
}
