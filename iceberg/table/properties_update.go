package table

import "context"

// SetProperties sets and removes table properties in one commit (a new
// metadata version, no snapshot; action.SetProperties). Removing a
// property that is not set is not an error; a key both set and removed is.
// When nothing would change, nothing is committed. Concurrent commits are
// built upon and retried.
func (t *Table) SetProperties(ctx context.Context, set map[string]string, remove []string) error {
	_, err := t.Apply(ctx, setPropertiesAction(set, remove))
	return err
}
