package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
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
	// The end profile is named by the run's elapsed time, which a
	// loaded host stretches: any time, under the first 5 m profile.
	if len(ents) != 2 || !endProfile.MatchString(ents[0].Name()) || ents[1].Name() != heapprof.LiveFile {
		t.Fatalf("profiles in %s: %v", prof, ents)
	}
}

var endProfile = regexp.MustCompile(`^heap-00h0[0-4]m[0-5][0-9]s-end\.pb\.gz$`)

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

// main turns the runtime's heap profiling off (a soak nobody profiles
// must not grow the profiler's tables); --heap-profile turns it back on
// at the flag's rate, Go's default unless --heap-profile-rate says.
func TestHeapProfileTurnsProfilingBackOn(t *testing.T) {
	old := runtime.MemProfileRate
	t.Cleanup(func() { runtime.MemProfileRate = old })
	dir := t.TempDir()
	sc := write(t, dir, "quick.yaml", quickScenario)
	for _, c := range []struct {
		flags []string
		want  int
	}{
		{nil, 524288},
		{[]string{"--heap-profile-rate", "4096"}, 4096},
	} {
		runtime.MemProfileRate = 0
		a, out, errb := newApp()
		args := append([]string{"run", sc, "--out", filepath.Join(dir, "run"), "--force", "--listen", "", "--quiet", "--heap-profile", filepath.Join(dir, "prof")}, c.flags...)
		if code := a.Main(context.Background(), args); code != 0 {
			t.Fatalf("%v: exit %d\n%s\n%s", c.flags, code, out, errb)
		}
		if runtime.MemProfileRate != c.want {
			t.Errorf("%v: MemProfileRate %d after the run, want %d", c.flags, runtime.MemProfileRate, c.want)
		}
	}
}
