package expr

import (
	"bytes"
	"fmt"
	"math"

	"github.com/floedb/floe/iceberg"
)

// writeJSONBoundPredicate writes a bound predicate (a residual, say) so that
// ParseJSON and Bind to the same schema give it back: the term is the column
// as the filter named it; literals use Iceberg's JSON single-value form
// (dates, timestamps, decimals, uuids and binary as strings, which binding
// converts back), except that floats are written exactly as doubles and
// always keep a fraction or exponent, so -0.0 and integral values read back
// as the same floats; infinities are the strings "Infinity" and
// "-Infinity".
func writeJSONBoundPredicate(buf *bytes.Buffer, p *BoundPredicate) error {
	if p.Op >= opCount {
		return fmt.Errorf("invalid operator %d", p.Op)
	}
	if p.Name == "" || p.Field.Type == nil {
		return fmt.Errorf("bound predicate %s has no column", p.Op)
	}
	switch {
	case p.Op.IsUnary() && len(p.Values) != 0,
		p.Op.IsSet() && len(p.Values) == 0,
		!p.Op.IsUnary() && !p.Op.IsSet() && len(p.Values) != 1:
		return fmt.Errorf("%s predicate on %s has %d values", p.Op, p.Name, len(p.Values))
	}
	// Unbound, its literals keep their types and write in that form.
	if err := writeJSONPredicate(buf, Unbind(p).(*Predicate)); err != nil {
		return fmt.Errorf("%s: %w", p.Name, err)
	}
	return nil
}

func writeJSONTypedLiteral(buf *bytes.Buffer, t iceberg.Type, v any) error {
	if v == nil {
		return fmt.Errorf("a null literal has no JSON form")
	}
	var f float64
	switch x := v.(type) {
	case float32:
		f = float64(x)
	case float64:
		f = x
	default:
		raw, err := iceberg.ValueToJSON(t, v)
		if err != nil {
			return err
		}
		buf.Write(raw)
		return nil
	}
	switch {
	case math.IsNaN(f):
		return fmt.Errorf("literal NaN has no JSON form (use is-nan)")
	case math.IsInf(f, 0):
		// Iceberg's single-value form, which binding reads back.
		raw, _ := iceberg.ValueToJSON(iceberg.DoubleType{}, f)
		buf.Write(raw)
		return nil
	}
	// A float32 is written as the double it widens to: its shortest float32
	// digits may parse to a double beyond the float range (MaxFloat32).
	buf.WriteString(floatLiteral(f))
	return nil
}
