package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A capture whose index would pass the phase's memory bound is refused
// at validate, the index counted in the bound's sum; a small one is
// counted into it and passes.
func TestReplayIndexInMemoryBound(t *testing.T) {
	dir := t.TempDir()
	line := "1.0 [0 a:1] \"GET\" \"k\"\n" // 22 bytes
	big := filepath.Join(dir, "big.txt")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(strings.Repeat(line, captureSample/len(line)+1)); err != nil {
		t.Fatal(err)
	}
	// 8 GB (sparse past the first MiB): ~390M ops of 22 bytes, an index
	// of ~8 GiB.
	if err := f.Truncate(8 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	small := filepath.Join(dir, "small.txt")
	if err := os.WriteFile(small, []byte(strings.Repeat(line, 1000)), 0o644); err != nil {
		t.Fatal(err)
	}
	src := func(file string) []byte {
		return []byte("target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nphases:\n  - {kind: replay, source: " + file + ", concurrency: 4}\n")
	}
	_, err = Parse(filepath.Join(dir, "x.yaml"), src("big.txt"))
	if err == nil || !strings.Contains(err.Error(), "phases[0].concurrency") || !strings.Contains(err.Error(), "+ capture index") || !strings.Contains(err.Error(), "ops estimated x 22 B") || !strings.Contains(err.Error(), "replay a shorter capture") {
		t.Fatalf("big capture: %v", err)
	}
	t.Log(err)
	if ops, how := (&Scenario{File: filepath.Join(dir, "x.yaml")}).captureOps(&Phase{Replay: &ReplaySpec{Source: "small.txt"}}); ops != 1000 || how != "counted" {
		t.Errorf("small capture: %d ops %s, want 1000 counted", ops, how)
	}
	if _, err := Parse(filepath.Join(dir, "x.yaml"), src("small.txt")); err != nil {
		t.Errorf("small capture: %v", err)
	}
}
