package scenarios

import "strings"

// CQLConsistencies are the CQL consistency level names: a custom op's
// cql consistency (custom_cql.go) and a cql:// URL's (targets/cql) take
// them.
var CQLConsistencies = []string{"ANY", "ONE", "TWO", "THREE", "QUORUM", "ALL", "LOCAL_QUORUM", "EACH_QUORUM", "LOCAL_ONE"}

// cqlConsistency returns the level s names, in any case, upper-cased.
func cqlConsistency(s string) (string, bool) {
	u := strings.ToUpper(s)
	for _, c := range CQLConsistencies {
		if c == u {
			return u, true
		}
	}
	return "", false
}
