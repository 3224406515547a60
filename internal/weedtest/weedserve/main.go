// Command weedserve runs a weed mini (weedtest.Launch) for tests that are
// not Go (the Python binding's): it prints one JSON line with the
// catalog's URL, its S3 endpoint and the catalog properties for it, then
// serves until its standard input closes, and stops weed.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/floedb/floe/internal/weedtest"
)

func main() {
	s, err := weedtest.Launch()
	if err != nil {
		fmt.Fprintln(os.Stderr, "weedserve:", err)
		os.Exit(1)
	}
	defer s.Stop()
	out := map[string]any{"catalog": s.CatalogURL, "s3": s.S3URL, "properties": s.Properties()}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "weedserve:", err)
		return
	}
	_, _ = io.Copy(io.Discard, os.Stdin)
}
