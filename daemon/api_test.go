package daemon

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// newAPIDaemon opens a daemon (not serving) whose scenario dir is dir.
func newAPIDaemon(t *testing.T, dir, extra string) *Daemon {
	t.Helper()
	env := map[string]string{"SOAKD_TEST_TOKEN": testToken}
	cfgPath := writeFile(t, filepath.Join(dir, "soakd.yaml"),
		"listen: 127.0.0.1:0\ntoken_env: SOAKD_TEST_TOKEN\ndata_dir: "+filepath.Join(dir, "data")+"\n"+extra)
	cfg, err := LoadConfig(cfgPath, getenv(env))
	if err != nil {
		t.Fatal(err)
	}
	d, err := New(cfg, Options{ConfigPath: cfgPath, Getenv: getenv(env)})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func serve(d *Daemon, method, path, auth, body string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	d.Handler().ServeHTTP(rec, req)
	return rec
}

// The Bearer scheme's name is case-insensitive (RFC 9110); other
// schemes and wrong tokens are refused.
func TestAuthSchemeCaseInsensitive(t *testing.T) {
	d := newAPIDaemon(t, t.TempDir(), "")
	for _, c := range []struct {
		auth string
		ok   bool
	}{
		{"Bearer " + testToken, true},
		{"bearer " + testToken, true},
		{"BEARER " + testToken, true},
		{"bEaReR " + testToken, true},
		{"Basic " + testToken, false},
		{"bearer wrong", false},
		{"bearer", false},
		{testToken, false},
	} {
		// A malformed id is answered after auth: 400 means auth passed.
		rec := serve(d, "POST", "/api/v1/runs/bad%20id/stop", c.auth, "")
		if got := rec.Code != http.StatusUnauthorized; got != c.ok {
			t.Errorf("Authorization %q: %d %s, want accepted=%v", strings.Replace(c.auth, testToken, "TOKEN", 1), rec.Code, rec.Body, c.ok)
		}
	}
}

// A known path asked with a method it does not serve is 405 with an
// Allow header, not 404; an unknown path stays 404.
func TestWrongMethodIs405WithAllow(t *testing.T) {
	d := newAPIDaemon(t, t.TempDir(), "")
	for _, c := range []struct {
		method, path string
		code         int
		allow        string
	}{
		{"DELETE", "/api/v1/runs", 405, "GET, HEAD, POST"},
		{"PUT", "/api/v1/runs/r1", 405, "GET, HEAD"},
		{"GET", "/api/v1/runs/r1/stop", 405, "POST"},
		{"GET", "/api/v1/runs/r1/rate", 405, "POST"},
		{"POST", "/metrics", 405, "GET, HEAD"},
		{"POST", "/healthz", 405, "GET, HEAD"},
		{"GET", "/api/v1/nope", 404, ""},
		{"DELETE", "/nope", 404, ""},
	} {
		rec := serve(d, c.method, c.path, "Bearer "+testToken, "")
		if rec.Code != c.code || rec.Header().Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want %d Allow %q (%s)", c.method, c.path, rec.Code, rec.Header().Get("Allow"), c.code, c.allow, rec.Body)
		}
		var e map[string]string
		if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e["error"] == "" {
			t.Errorf("%s %s: body %s is not a JSON error", c.method, c.path, rec.Body)
		}
	}
}

// A 400 for a scenario with field problems names file, line, field and
// rule, but never the values the file holds.
func TestStartErrorsDoNotQuoteScenarioValues(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "bad.yaml"), `name: bad
keyspace: {records: 100}
phases:
  - {name: steady, kind: SECRETKIND, rate: 10, duration: 1s, concurrency: 2, mix: {get: 100}}
`)
	d := newAPIDaemon(t, dir, "")
	rec := serve(d, "POST", "/api/v1/runs", "Bearer "+testToken, `{"scenario": "bad.yaml"}`)
	var e map[string]string
	_ = json.Unmarshal(rec.Body.Bytes(), &e)
	if rec.Code != 400 || !strings.Contains(e["error"], "bad.yaml:4: phases[0].kind") {
		t.Fatalf("%d %s: want 400 naming bad.yaml:4: phases[0].kind", rec.Code, rec.Body)
	}
	if strings.Contains(e["error"], "SECRET") {
		t.Errorf("the 400 quotes the file's values: %s", e["error"])
	}
	if !strings.Contains(e["error"], "value withheld") {
		t.Errorf("the 400 does not say a value was withheld: %s", e["error"])
	}
}

func TestWithholdQuoted(t *testing.T) {
	for in, want := range map[string]string{
		`no quotes`:                  `no quotes`,
		`kind "x": bad`:              `kind ` + withheld + `: bad`,
		`a "x\"y" b "z"`:             `a ` + withheld + ` b ` + withheld,
		`torn "abc`:                  `torn ` + withheld,
		`"lead" and tail`:            withheld + ` and tail`,
		`empty "" value`:             `empty ` + withheld + ` value`,
		`escaped backslash "a\\" ok`: `escaped backslash ` + withheld + ` ok`,
	} {
		if got := withholdQuoted(in); got != want {
			t.Errorf("withholdQuoted(%q) = %q, want %q", in, got, want)
		}
	}
}
