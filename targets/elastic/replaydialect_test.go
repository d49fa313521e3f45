package elastic

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/capture/capturetest"
)

func TestElasticDialect(t *testing.T) {
	d := elasticDialect{}
	op := capturetest.ParseLine(t, `{"ts": 1, "op": "post", "args": ["/products,-old/_search?size=2", {"query": {"match_all": {}}}]}`)
	g, _, err := d.Check(op, "r-")
	if err != nil || g != "POST_SEARCH" {
		t.Fatalf("check %q %v", g, err)
	}
	if got := capturetest.Render(d, op, "r-"); strings.Join(got, "|") != `POST|/r-products,-r-old/_search?size=2|{"query": {"match_all": {}}}` {
		t.Errorf("render %q", got)
	}
	bulk := capturetest.ParseLine(t, `{"ts": 1, "op": "POST", "args": ["/p/_bulk", [{"index": {"_id": "1"}}, {"t": "x"}]]}`)
	if got := capturetest.Render(d, bulk, ""); got[2] != "{\"index\": {\"_id\": \"1\"}}\n{\"t\": \"x\"}\n" || got[1] != "/p/_bulk" {
		t.Errorf("bulk render %q", got)
	}
	get := capturetest.ParseLine(t, `{"ts": 1, "op": "GET", "args": ["/p/_doc/1"]}`)
	if g, _, _ := d.Check(get, ""); g != "GET_DOC" {
		t.Errorf("group %q", g)
	}
	if got := capturetest.Render(d, get, ""); len(got) != 3 || got[2] != "" {
		t.Errorf("get render %q", got)
	}
	if _, skip, _ := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "POST", "args": ["/_search/scroll", {"scroll_id": "x"}]}`), ""); !skip {
		t.Error("scroll not skipped")
	}
	for line, want := range map[string]string{
		`{"ts": 1, "op": "PATCH", "args": ["/p"]}`:                                       "want a method",
		`{"ts": 1, "op": "GET", "args": ["p"]}`:                                          "must be a string starting with /",
		`{"ts": 1, "op": "GET", "args": ["/_search"]}`:                                   "names no index",
		`{"ts": 1, "op": "POST", "args": ["/p/_bulk", [{"index": {"_index": "prod"}}]]}`: `names an "_index"`,
	} {
		if _, _, err := d.Check(capturetest.ParseLine(t, line), "r-"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}
