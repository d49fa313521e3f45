package daemon

import (
	"encoding/json"
	"io/fs"
	"net/http"
	"regexp"
	"testing"

	"github.com/soakd/soakd/scenarios"
)

// The page asks the kind table which kinds' phases are compared.
func TestKindsEndpointIsTheKindTable(t *testing.T) {
	d := newAPIDaemon(t, t.TempDir(), "")
	rec := serve(d, "GET", "/api/v1/kinds", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /api/v1/kinds: %d %s", rec.Code, rec.Body)
	}
	var got struct{ Kinds []KindView }
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := scenarios.PhaseKinds()
	if len(got.Kinds) != len(want) {
		t.Fatalf("%d kinds, want %d: %+v", len(got.Kinds), len(want), got.Kinds)
	}
	compared := 0
	for i, k := range want {
		if got.Kinds[i].Kind != k || got.Kinds[i].Compared != k.Compared() {
			t.Errorf("kinds[%d] = %+v, want %s compared=%v", i, got.Kinds[i], k, k.Compared())
		}
		if k.Compared() {
			compared++
		}
	}
	if compared == 0 {
		t.Error("no kind is compared: the history chart would draw nothing")
	}
}

// TestWebPageNamesNoKind fails when the page's files name a phase kind
// in a string (ph.kind === "steady"): the page asks GET /api/v1/kinds.
func TestWebPageNamesNoKind(t *testing.T) {
	files, err := fs.Glob(webFiles, "web/*")
	if err != nil || len(files) == 0 {
		t.Fatalf("web files: %v %v", files, err)
	}
	for _, k := range scenarios.PhaseKinds() {
		re := regexp.MustCompile(`["'` + "`" + `]` + regexp.QuoteMeta(string(k)) + `["'` + "`" + `]`)
		for _, f := range files {
			b, err := fs.ReadFile(webFiles, f)
			if err != nil {
				t.Fatal(err)
			}
			if loc := re.FindIndex(b); loc != nil {
				t.Errorf("daemon/%s names the phase kind %q at byte %d: ask the kind table (GET /api/v1/kinds)", f, k, loc[0])
			}
		}
	}
}
