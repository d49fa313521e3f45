package daemon

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// A loopback daemon answers localhost, IP literals and allowed_hosts in
// the Host header and refuses any other name (DNS rebinding), on every
// route: the page, the API's reads and /metrics.
func TestHostHeaderChecked(t *testing.T) {
	dir := t.TempDir()
	h := startDaemon(t, dir, baseConfig(dir)+"allowed_hosts: [soak.internal]\n", nil)
	port := h.base[strings.LastIndex(h.base, ":"):]
	for _, tc := range []struct {
		host string
		want int
	}{
		{"127.0.0.1" + port, http.StatusOK},
		{"localhost" + port, http.StatusOK},
		{"[::1]" + port, http.StatusOK},
		{"soak.internal" + port, http.StatusOK},
		{"SOAK.internal.", http.StatusOK},
		{"rebind.attacker.example" + port, http.StatusMisdirectedRequest},
		{"localhost.attacker.example", http.StatusMisdirectedRequest},
	} {
		for _, path := range []string{"/", "/api/v1/runs", "/metrics"} {
			req, _ := http.NewRequest(http.MethodGet, h.base+path, nil)
			req.Host = tc.host
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if res.StatusCode != tc.want {
				t.Errorf("Host %s %s: %d, want %d (%s)", tc.host, path, res.StatusCode, tc.want, body)
			}
			if tc.want != http.StatusOK && !strings.Contains(string(body), "allowed_hosts") {
				t.Errorf("Host %s %s: refusal does not say how to allow the name: %s", tc.host, path, body)
			}
		}
	}
}
