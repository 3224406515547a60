package bounds

// Summary is what is known of one field's values in a set of rows (a data
// file's column metrics, a manifest's partition field summary, a row
// group's statistics, a page, one dictionary entry). The zero Summary
// knows nothing: a column without statistics might hold anything.
type Summary struct {
	// Lower and Upper bound every value that is neither null nor NaN, when
	// HasLower / HasUpper. They may be truncated (strings and binary: a
	// shorter lower bound, an upper one rounded up), so they are bounds,
	// not necessarily values of the set. A NaN bound, or a lower bound
	// above the upper one, comes from a writer that cannot be trusted: the
	// evaluator then ignores both.
	Lower, Upper       Value
	HasLower, HasUpper bool
	// Exact: the bounds are not truncated, so equal bounds pin every value
	// that is neither null nor NaN to that one value.
	Exact bool
	// BoundsComplete: a missing bound means that no value is neither null
	// nor NaN (partition field summaries), rather than that it is unknown
	// (metrics and statistics without bounds).
	BoundsComplete bool
	// Values counts the values, nulls and NaNs included; Nulls the nulls,
	// NaNs the NaNs; each only when its Has flag is set. A domain other
	// than floats holds no NaN, whatever NaNs says.
	Values, Nulls, NaNs          int64
	HasValues, HasNulls, HasNaNs bool
}

// facts are the summary's consequences the rules use.
type facts struct {
	noNulls bool // no value is null
	noNaNs  bool // no value is NaN
	noPlain bool // every value is null or NaN: none lies between bounds
	allNull bool // every value is null
	allNaN  bool // every value is NaN
	// the bounds are usable: set, not NaN, not inverted
	lower, upper *Value
}

func (s *Summary) facts(d Domain) (f facts) {
	nans, nansKnown := s.NaNs, s.HasNaNs
	float := d == DomainFloat
	if !float {
		nans, nansKnown = 0, true
	}
	f.noNulls = s.HasNulls && s.Nulls == 0
	f.noNaNs = nansKnown && nans == 0
	if s.HasValues {
		f.allNull = s.HasNulls && s.Nulls >= s.Values
		f.allNaN = nansKnown && nans >= s.Values
		f.noPlain = f.allNull || f.allNaN || s.HasNulls && nansKnown && s.Values-s.Nulls-nans <= 0
	}
	if s.BoundsComplete && !s.HasLower && !s.HasUpper {
		f.noPlain = true
	}
	if f.noPlain {
		// Only nulls and NaNs, and one of the two known absent.
		f.allNull = f.allNull || f.noNaNs
		f.allNaN = f.allNaN || f.noNulls
		return f
	}
	if s.HasLower {
		f.lower = &s.Lower
	}
	if s.HasUpper {
		f.upper = &s.Upper
	}
	if float && (f.lower != nil && f.lower.Float != f.lower.Float || f.upper != nil && f.upper.Float != f.upper.Float) ||
		f.lower != nil && f.upper != nil && d.Compare(f.lower, f.upper) > 0 {
		f.lower, f.upper = nil, nil
	}
	return f
}
