package runpath

import (
	"strings"

	"github.com/soakd/soakd/scenarios"
)

// storeURL is a store URL cut into its parts without interpreting them:
// scheme://[userinfo@]hosts[/path][?query][#fragment]. net/url cannot
// hold the host lists of cql:// and mongodb:// (a,b:9042), so the cut
// is done by hand.
type storeURL struct {
	scheme, userinfo, hosts, path string
	hasUser                       bool
	query                         []string // raw k=v pairs, in order
}

func cutStoreURL(raw string) (storeURL, bool) {
	var u storeURL
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok || scheme == "" {
		return u, false
	}
	u.scheme = scheme
	rest, _, _ = strings.Cut(rest, "#")
	rest, query, _ := strings.Cut(rest, "?")
	if query != "" {
		for _, kv := range strings.Split(query, "&") {
			if kv != "" {
				u.query = append(u.query, kv)
			}
		}
	}
	auth, path, hasPath := strings.Cut(rest, "/")
	if hasPath {
		u.path = "/" + path
	}
	if at := strings.LastIndex(auth, "@"); at >= 0 {
		u.userinfo, u.hasUser, auth = auth[:at], true, auth[at+1:]
	}
	u.hosts = auth
	return u, true
}

func (u storeURL) String() string {
	var b strings.Builder
	b.WriteString(u.scheme + "://")
	if u.hasUser {
		b.WriteString(u.userinfo + "@")
	}
	b.WriteString(u.hosts)
	b.WriteString(u.path)
	if len(u.query) > 0 {
		b.WriteString("?" + strings.Join(u.query, "&"))
	}
	return b.String()
}

func queryKey(kv string) string {
	k, _, _ := strings.Cut(kv, "=")
	return k
}

// MergeTargetURL is the URL a run uses when --target (or a daemon
// schedule's or API request's target) flag overrides the scenario's
// url for the same kind of store: the flag's scheme, hosts and
// credentials; its path (keyspace, database, db number) or else the
// scenario's; the scenario's options (query parameters), each replaced
// by the flag's of the same name, then the flag's others. A flag option
// with an empty value (?replicaSet=) removes the scenario's. A flag for
// another kind of store (by the URL schemes in stores), or a unix://
// socket on either side, replaces the URL whole. Replacing it whole
// silently dropped the scenario's read_consistency=ONE
// (scylla-weak-consistency.yaml), so a run measured another
// configuration than its file says.
func MergeTargetURL(stores scenarios.Stores, scenarioURL, flagURL string) string {
	if scenarioURL == "" || scenarios.KindOfURL(stores, scenarioURL) != scenarios.KindOfURL(stores, flagURL) {
		return flagURL
	}
	s, ok1 := cutStoreURL(scenarioURL)
	f, ok2 := cutStoreURL(flagURL)
	if !ok1 || !ok2 || s.scheme == "unix" || f.scheme == "unix" {
		return flagURL
	}
	out := f
	if !f.hasUser {
		out.userinfo, out.hasUser = s.userinfo, s.hasUser
	}
	if strings.Trim(f.path, "/") == "" && s.path != "" {
		out.path = s.path // else keep the flag's "/": mongodb:// wants it before a "?"
	}
	set := map[string]bool{}
	for _, kv := range f.query {
		set[queryKey(kv)] = true
	}
	out.query = nil
	for _, kv := range s.query {
		if !set[queryKey(kv)] {
			out.query = append(out.query, kv)
		}
	}
	for _, kv := range f.query {
		if k, v, _ := strings.Cut(kv, "="); v == "" && k != "" {
			continue // removes the scenario's option
		}
		out.query = append(out.query, kv)
	}
	return out.String()
}
