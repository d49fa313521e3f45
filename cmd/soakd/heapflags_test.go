package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/heapprof"
)

// A run with --heap-profile DIR shorter than the first profile's 5m
// leaves exactly its end profile and heap-live.tsv in DIR (created).
func TestRunHeapProfile(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	prof := filepath.Join(dir, "prof", "a")
	a, out, errb := newApp()
	if code := a.Main(context.Background(), []string{"run", sc, "--out", filepath.Join(dir, "run"), "--listen", "", "--quiet", "--heap-profile", prof}); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errb)
	}
	ents, err := os.ReadDir(prof)
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 2 || !strings.HasPrefix(ents[0].Name(), "heap-00h00m0") || !strings.HasSuffix(ents[0].Name(), "-end.pb.gz") || ents[1].Name() != heapprof.LiveFile {
		t.Fatalf("profiles in %s: %v", prof, ents)
	}
}

// Bad heap flags are refused fast with the flag named, before any run.
func TestHeapProfileFlagsRefused(t *testing.T) {
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	file := write(t, dir, "file", "")
	cfg := write(t, dir, "soakd.yaml", "listen: 127.0.0.1:0\ntoken_env: TOK\ndata_dir: "+filepath.Join(dir, "data")+"\n")
	wantRefused(t, []refusal{
		{[]string{"run", sc, "--heap-profile-every", "1m"}, "soakd run: --heap-profile-every needs --heap-profile DIR"},
		{[]string{"run", sc, "--heap-profile", filepath.Join(file, "x")}, "soakd run: --heap-profile " + filepath.Join(file, "x") + ": "},
		{[]string{"run", sc, "--heap-profile", dir, "--heap-profile-every", "-1m"}, "soakd run: --heap-profile-every -1m0s: use a positive duration"},
		{[]string{"run", sc, "--heap-profile", dir, "--heap-profile-every", "5"}, "--heap-profile-every 5: "},
		{[]string{"run", sc, "--heap-profile-rate", "4096"}, "soakd run: --heap-profile-rate needs --heap-profile DIR"},
		{[]string{"run", sc, "--heap-profile", dir, "--heap-profile-rate", "0"}, "soakd run: --heap-profile-rate 0: use a positive number of bytes"},
		{[]string{"serve", "--config", cfg, "--heap-profile", file}, "soakd serve: --heap-profile " + file + ": "},
	})
	if ents, _ := os.ReadDir(dir); len(ents) != 3 {
		t.Errorf("a refused run wrote into %s: %v", dir, ents)
	}
}
