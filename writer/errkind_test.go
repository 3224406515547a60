package writer

import (
	"testing"

	"github.com/floedb/floe/errkind"
	"github.com/floedb/floe/iceberg"
)

func TestOptionErrorsHaveKinds(t *testing.T) {
	schema := iceberg.NewSchema(0, []iceberg.NestedField{{ID: 1, Name: "id", Type: iceberg.LongType{}}})
	for props, want := range map[[2]string]errkind.Kind{
		{PropTargetFileSize, "-5"}: errkind.InvalidArgument,
		{PropPageRowLimit, "many"}: errkind.InvalidArgument,
		{PropCodec, "lzo"}:         errkind.Unsupported,
	} {
		opts, err := OptionsFromProperties(map[string]string{props[0]: props[1]}, schema)
		if err == nil {
			// Some values are checked only when the writer is built.
			_, err = opts.withDefaults()
		}
		if got := errkind.Of(err); got != want {
			t.Errorf("%s=%s: kind %v (%v), want %v", props[0], props[1], got, err, want)
		}
	}
}
