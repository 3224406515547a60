package main

import (
	"github.com/floedb/floe/iceberg/action"
)

// The partition spec and sort order actions of an action list.
// Consecutive partition field actions are one action.UpdateSpec (one new
// spec, as one pyiceberg update_spec() block); a sort order is replaced
// whole by one action.

// txCaseSensitive is the optional "case-sensitive" field: false matches
// column names ignoring case, for every action of the builder it joins.
type txCaseSensitive struct {
	CaseSensitive *bool `json:"case-sensitive"`
}

func (c txCaseSensitive) insensitive() bool { return c.CaseSensitive != nil && !*c.CaseSensitive }

func spec(into *txActions, c txCaseSensitive) *action.UpdateSpec {
	u := group(into, "spec", func() *action.UpdateSpec { return new(action.UpdateSpec) })
	if c.insensitive() {
		u.CaseSensitive(false)
	}
	return u
}

// txSortField is one field of replace-sort-order, as the metadata's sort
// order JSON has it but with the source column named.
type txSortField struct {
	Source    txPath `json:"source"`
	Transform string `json:"transform"`
	Direction string `json:"direction"`
	NullOrder string `json:"null-order"`
}

func init() {
	registerTx(map[string]func(txAction, *txActions) error{
		"add-partition-field": func(a txAction, into *txActions) error {
			var v struct {
				Action    string `json:"action"`
				Source    txPath `json:"source"`
				Transform string `json:"transform"`
				Name      string `json:"name"`
				txCaseSensitive
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Source == "" {
				return a.invalid("no \"source\" (the column to partition by)")
			}
			t, err := parseTransform(a, v.Transform)
			if err != nil {
				return err
			}
			spec(into, v.txCaseSensitive).AddField(string(v.Source), t, v.Name)
			return nil
		},
		"remove-partition-field": func(a txAction, into *txActions) error {
			// By name, or by source and transform.
			var v struct {
				Action    string `json:"action"`
				Name      string `json:"name"`
				Source    txPath `json:"source"`
				Transform string `json:"transform"`
				txCaseSensitive
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			switch {
			case v.Name != "" && v.Source == "" && v.Transform == "":
				spec(into, v.txCaseSensitive).RemoveField(v.Name)
			case v.Name == "" && v.Source != "":
				t, err := parseTransform(a, v.Transform)
				if err != nil {
					return err
				}
				spec(into, v.txCaseSensitive).RemoveFieldBySource(string(v.Source), t)
			default:
				return a.invalid("give \"name\" (the partition field), or \"source\" and \"transform\"")
			}
			return nil
		},
		"rename-partition-field": func(a txAction, into *txActions) error {
			var v struct {
				Action  string `json:"action"`
				Name    string `json:"name"`
				NewName string `json:"new-name"`
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			if v.Name == "" || v.NewName == "" {
				return a.invalid("give \"name\" and \"new-name\"")
			}
			spec(into, txCaseSensitive{}).RenameField(v.Name, v.NewName)
			return nil
		},
		"replace-sort-order": func(a txAction, into *txActions) error {
			var v struct {
				Action string        `json:"action"`
				Fields []txSortField `json:"fields"`
				txCaseSensitive
			}
			if err := a.decode(&v); err != nil {
				return err
			}
			r := new(action.ReplaceSortOrder)
			if v.insensitive() {
				r.CaseSensitive(false)
			}
			for i, f := range v.Fields {
				if f.Source == "" {
					return a.invalid("field %d: no \"source\" (the column to sort by)", i)
				}
				t, err := parseTransform(a, f.Transform)
				if err != nil {
					return err
				}
				switch f.Direction {
				case "", "asc":
					r.Asc(string(f.Source), t, f.NullOrder)
				case "desc":
					r.Desc(string(f.Source), t, f.NullOrder)
				default:
					return a.invalid("field %d (%q): direction must be \"asc\" or \"desc\", not %q", i, f.Source, f.Direction)
				}
			}
			into.addAction(r, nil)
			return nil
		},
	})
}
