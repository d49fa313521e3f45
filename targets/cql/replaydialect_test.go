package cql

import (
	"strings"
	"testing"

	"github.com/soakd/soakd/capture/capturetest"
)

func TestCQLDialect(t *testing.T) {
	d := cqlDialect{}
	op := capturetest.ParseLine(t, `{"ts": 1, "op": "INSERT INTO t (k, n, s) VALUES (?, ?, ?)", "args": ["k1", 5, null]}`)
	g, _, err := d.Check(op, "")
	if err != nil || g != "INSERT" {
		t.Fatalf("check %q %v", g, err)
	}
	if got := capturetest.Render(d, op, ""); strings.Join(got, "|") != "INSERT INTO t (k, n, s) VALUES (?, ?, ?)|k1|5|<nil>" {
		t.Errorf("render %q", got)
	}
	if g, _, _ := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "BEGIN BATCH INSERT INTO t (k) VALUES ('?'); APPLY BATCH", "args": []}`), ""); g != "BATCH" {
		t.Errorf("batch group %q", g)
	}
	if _, skip, _ := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "USE ks"}`), ""); !skip {
		t.Error("USE not skipped")
	}
	if _, _, err := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "SELECT * FROM t WHERE k = ?", "args": []}`), ""); err == nil || !strings.Contains(err.Error(), "1 ? markers, args give 0") {
		t.Errorf("marker count: %v", err)
	}
	if _, _, err := d.Check(capturetest.ParseLine(t, `{"ts": 1, "op": "SELECT * FROM t WHERE k = ?", "args": [{"a": 1}]}`), ""); err == nil || !strings.Contains(err.Error(), "JSON object") {
		t.Errorf("object arg: %v", err)
	}
}
