package mongo

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/capture/capturetest"
)

func TestMongoDialect(t *testing.T) {
	d := mongoDialect{}
	op := capturetest.ParseLine(t, `{"ts": 1, "op": "find", "args": [{"find": "users", "filter": {"_id": "u\"1"}}]}`)
	g, skip, err := d.Check(op, "replay_")
	if err != nil || skip || g != "FIND" {
		t.Fatalf("check: %q %v %v", g, skip, err)
	}
	if got := capturetest.Render(d, op, "replay_"); len(got) != 1 || got[0] != `{"find": "replay_users", "filter": {"_id": "u\"1"}}` {
		t.Errorf("render %q", got)
	}
	if got := capturetest.Render(d, op, ""); got[0] != `{"find": "users", "filter": {"_id": "u\"1"}}` {
		t.Errorf("render without prefix %q", got)
	}
	// A document given as a string, a db-level command (its value 1).
	op = capturetest.ParseLine(t, `{"ts": 1, "op": "ping", "args": ["{\"ping\": 1}"]}`)
	if g, _, err := d.Check(op, "p_"); err != nil || g != "PING" {
		t.Fatalf("ping: %q %v", g, err)
	}
	if got := capturetest.Render(d, op, "p_"); got[0] != `{"ping": 1}` {
		t.Errorf("ping render %q", got)
	}
	if _, skip, _ := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "getMore", "args": [{"getMore": 5, "collection": "u"}]}`), ""); !skip {
		t.Error("getMore not skipped")
	}
	for line, want := range map[string]string{
		`{"ts": 1, "op": "find", "args": []}`:                                                     "want \"args\": [the command document]",
		`{"ts": 1, "op": "find", "args": [{"count": "u"}]}`:                                       `runs "count"`,
		`{"ts": 1, "op": "find", "args": ["not json"]}`:                                           "not a command document",
		`{"ts": 1, "op": "aggregate", "args": [{"aggregate": "u", "pipeline": [{"$out": "x"}]}]}`: "$out names another collection",
	} {
		if _, _, err := d.Check(capturetest.ParseLine(t, line), "p_"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}

// A dialect's error names the line.
func TestBuildDialectError(t *testing.T) {
	data := `{"ts": 1, "op": "find", "args": [{"find": "u"}]}` + "\n" + `{"ts": 2, "op": "find", "args": [{"count": "u"}]}` + "\n"
	_, err := capture.Build(strings.NewReader(data), int64(len(data)), capture.Options{Format: capture.FormatNDJSON, Dialect: mongoDialect{}})
	if err == nil || !strings.HasPrefix(err.Error(), "line 2: mongo op find") {
		t.Errorf("error %v", err)
	}
}
