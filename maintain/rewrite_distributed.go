package maintain

// PartialToken is the token a partial-progress commit of groups takes
// when the run's token is token (empty: none): the run's token and a hash
// of the files the groups replace, as RewriteDataFiles commits them. A
// distributed run (floe_rewrite_commit) that commits groups as they
// finish uses it, so a run retried after a crash commits the groups the
// first did not, and none twice.
func PartialToken(token string, groups []GroupResult) string {
	if token == "" {
		return ""
	}
	return partialToken(token, groups)
}
