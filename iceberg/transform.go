package iceberg

import (
	"fmt"
	"strconv"
	"strings"
)

// Transform is a partition (or sort) transform: a function from a source
// column's value to a partition value.
type Transform interface {
	// String is the transform's name in table metadata ("bucket[16]").
	String() string
	// ResultType is the type of the transform's output for a source type; an
	// error when the transform cannot apply to that type.
	ResultType(source Type) (Type, error)
	// Apply maps one canonical value of the source type to the canonical
	// value of the result type; null maps to null.
	Apply(source Type, v any) (any, error)
}

type (
	IdentityTransform struct{}
	VoidTransform     struct{}
	YearTransform     struct{}
	MonthTransform    struct{}
	DayTransform      struct{}
	HourTransform     struct{}
	BucketTransform   struct{ N int }
	TruncateTransform struct{ Width int }
	// UnknownTransform keeps a transform floe does not know, so metadata
	// that uses it still reads and writes back; it cannot be applied.
	UnknownTransform struct{ Name string }
)

func (IdentityTransform) String() string   { return "identity" }
func (VoidTransform) String() string       { return "void" }
func (YearTransform) String() string       { return "year" }
func (MonthTransform) String() string      { return "month" }
func (DayTransform) String() string        { return "day" }
func (HourTransform) String() string       { return "hour" }
func (t BucketTransform) String() string   { return fmt.Sprintf("bucket[%d]", t.N) }
func (t TruncateTransform) String() string { return fmt.Sprintf("truncate[%d]", t.Width) }
func (t UnknownTransform) String() string  { return t.Name }

// ParseTransform parses a transform name as table metadata spells it.
func ParseTransform(s string) (Transform, error) {
	name := strings.TrimSpace(s)
	switch name {
	case "identity":
		return IdentityTransform{}, nil
	case "void":
		return VoidTransform{}, nil
	case "year":
		return YearTransform{}, nil
	case "month":
		return MonthTransform{}, nil
	case "day":
		return DayTransform{}, nil
	case "hour":
		return HourTransform{}, nil
	}
	arg := func(prefix string) (int, bool, error) {
		if !strings.HasPrefix(name, prefix+"[") || !strings.HasSuffix(name, "]") {
			return 0, false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(name[len(prefix)+1 : len(name)-1]))
		if err != nil || n <= 0 {
			return 0, true, fmt.Errorf("invalid transform %q: the argument must be a positive integer", s)
		}
		return n, true, nil
	}
	if n, ok, err := arg("bucket"); ok {
		if err != nil {
			return nil, err
		}
		return BucketTransform{N: n}, nil
	}
	if w, ok, err := arg("truncate"); ok {
		if err != nil {
			return nil, err
		}
		return TruncateTransform{Width: w}, nil
	}
	if name == "" {
		return nil, fmt.Errorf("empty transform name")
	}
	return UnknownTransform{Name: name}, nil
}
