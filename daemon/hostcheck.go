package daemon

import (
	"net"
	"net/http"
	"strings"
)

// hostCheck refuses requests whose Host header names a host the daemon
// was not told it is, when it listens on loopback: DNS rebinding points
// an attacker's name at 127.0.0.1 so that a page from that name may read
// the daemon's history in the user's browser; its requests carry the
// attacker's name in Host. Localhost, IP literals and allowed_hosts
// pass. A daemon listening beyond loopback was exposed on purpose and is
// reached by whatever name its network gives it (compose's service
// name): there only allowed_hosts, when set, limits the names.
func hostCheck(addr net.Addr, allowed []string, next http.Handler) http.Handler {
	loopback := false
	if ta, ok := addr.(*net.TCPAddr); ok {
		loopback = ta.IP.IsLoopback()
	}
	if !loopback && len(allowed) == 0 {
		return next
	}
	names := map[string]bool{"localhost": true}
	for _, h := range allowed {
		names[strings.ToLower(strings.TrimSuffix(h, "."))] = true
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := r.Host
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
		host = strings.ToLower(strings.TrimSuffix(strings.Trim(host, "[]"), "."))
		if net.ParseIP(host) != nil || names[host] {
			next.ServeHTTP(w, r)
			return
		}
		writeErr(w, http.StatusMisdirectedRequest, "host "+host+" is not this daemon's (add it to allowed_hosts in soakd.yaml to use that name)")
	})
}
