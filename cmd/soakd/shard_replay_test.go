package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// soakd run refuses a sharded run of a scenario with a replay phase at
// once, before it opens the target (nothing listens at its URL), whether
// the shard comes from --shard or from the environment, and writes no
// run directory.
func TestRunRefusesShardedReplay(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "cap.txt"), []byte(`1733350000.1 [0 127.0.0.1:5000] "SET" "k" "v"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	scen := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(scen, []byte("name: r\ntarget: {kind: redis, url: \"redis://127.0.0.1:1\"}\nphases:\n  - {name: replay, kind: replay, source: cap.txt, format: monitor, speed: 2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		env  map[string]string
	}{
		{args: []string{"--shard", "1/2"}},
		{env: map[string]string{"SOAKD_SHARD": "0/3"}},
	} {
		out := filepath.Join(t.TempDir(), "out")
		var stdout, stderr syncBuf
		app := &App{Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return tc.env[k] }, Now: time.Now}
		args := append([]string{"run", scen, "--listen", "", "--out", out}, tc.args...)
		if code := app.Main(context.Background(), args); code != exitRefused {
			t.Fatalf("%v %v: exit %d, stderr %q", tc.args, tc.env, code, stderr.String())
		}
		if msg := stderr.String(); !strings.Contains(msg, "phase replay (kind replay) cannot be sharded yet") || !strings.Contains(msg, "whole capture") {
			t.Fatalf("%v %v: stderr %q", tc.args, tc.env, msg)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("%v %v: run directory made: %v", tc.args, tc.env, err)
		}
	}
}
