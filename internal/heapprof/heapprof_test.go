package heapprof

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// The schedule in a synctest bubble: profiles at 5m, 15m, 25m and the
// end one at 26m, named by elapsed time, each a gzipped pprof profile
// with the inuse_space sample type; nothing else in the directory.
func TestScheduleWritesNamedProfiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "prof", "heap")
	synctest.Test(t, func(t *testing.T) {
		p, err := Start(dir, Schedule{First: 5 * time.Minute, Every: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(26 * time.Minute)
		synctest.Wait()
		paths, err := p.Stop()
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"heap-00h05m00s.pb.gz", "heap-00h15m00s.pb.gz", "heap-00h25m00s.pb.gz", "heap-00h26m00s-end.pb.gz"}
		var got []string
		for _, p := range paths {
			if filepath.Base(p) == LiveFile {
				continue
			}
			if filepath.Dir(p) != dir {
				t.Errorf("%s written outside %s", p, dir)
			}
			got = append(got, filepath.Base(p))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Fatalf("written %v, want %v", got, want)
		}
		ents, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(ents) != len(want)+1 {
			t.Errorf("%d files in %s, want %d profiles and %s (no temporary files left)", len(ents), dir, len(want), LiveFile)
		}
		assertLiveTable(t, filepath.Join(dir, LiveFile), []string{"300.0", "900.0", "1500.0", "1560.0"}, want)
		for _, p := range paths {
			assertHeapProfile(t, p)
		}
		again, _ := p.Stop()
		if len(again) != len(want) {
			t.Errorf("a second Stop wrote more: %v", again)
		}
	})
}

// With Every 0 only the first profile and the end one are written.
func TestFirstOnly(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, err := Start(dir, Schedule{First: 5 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(2 * time.Hour)
		paths, err := p.Stop()
		if err != nil {
			t.Fatal(err)
		}
		if len(paths) != 2 || filepath.Base(paths[0]) != "heap-00h05m00s.pb.gz" || filepath.Base(paths[1]) != "heap-02h00m00s-end.pb.gz" {
			t.Fatalf("written %v", paths)
		}
	})
}

// A run shorter than First still gets its end profile.
func TestStopBeforeFirst(t *testing.T) {
	dir := t.TempDir()
	synctest.Test(t, func(t *testing.T) {
		p, err := Start(dir, Schedule{First: 5 * time.Minute, Every: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		time.Sleep(90 * time.Second)
		paths, err := p.Stop()
		if err != nil || len(paths) != 1 || filepath.Base(paths[0]) != "heap-00h01m30s-end.pb.gz" {
			t.Fatalf("written %v, %v", paths, err)
		}
	})
}

func TestStartRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir string
		s   Schedule
	}{
		{"", Schedule{First: time.Minute}},
		{t.TempDir(), Schedule{}},
		{t.TempDir(), Schedule{First: time.Minute, Every: -time.Minute}},
		{file, Schedule{First: time.Minute}},
		{filepath.Join(file, "sub"), Schedule{First: time.Minute}},
	} {
		if p, err := Start(c.dir, c.s); err == nil {
			p.Stop()
			t.Errorf("Start(%q, %+v) accepted", c.dir, c.s)
		}
	}
}

func TestName(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                    "heap-00h00m00s.pb.gz",
		5*time.Minute + 999*time.Millisecond: "heap-00h05m00s.pb.gz",
		2*time.Hour + 3*time.Minute + 4*time.Second: "heap-02h03m04s.pb.gz",
		100 * time.Hour: "heap-100h00m00s.pb.gz",
	} {
		if got := Name(d, ""); got != want {
			t.Errorf("Name(%v) = %s, want %s", d, got, want)
		}
	}
}

// assertHeapProfile checks path is a gzipped protobuf profile whose
// string table names the heap sample types go tool pprof reads.
func assertHeapProfile(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: not gzip: %v", path, err)
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	for _, s := range []string{"inuse_space", "inuse_objects", "alloc_space", "bytes"} {
		if !bytes.Contains(b, []byte(s)) {
			t.Errorf("%s: no %q in the profile", path, s)
		}
	}
}

// assertLiveTable checks LiveFile has a header and a line per profile,
// at its elapsed seconds, with a live heap and a runtime total > 0.
func assertLiveTable(t *testing.T, path string, secs, names []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != len(secs)+1 || lines[0]+"\n" != liveHeader {
		t.Fatalf("%s:\n%s", path, b)
	}
	for i, l := range lines[1:] {
		f := strings.Split(l, "\t")
		if len(f) != 7 || f[0] != secs[i] || f[1] != names[i] || f[2] == "0" || f[4] == "0" {
			t.Errorf("%s line %d: %q, want %s s, %s and figures > 0", path, i+2, l, secs[i], names[i])
		}
	}
}

// A directory that cannot be written (/proc) and a planted heap-live.tsv
// symlink are refused when profiling starts, before a run measures
// anything, and the symlink's target is never written.
func TestStartRefusesUnwritableDirAndPlantedSymlink(t *testing.T) {
	if p, err := Start("/proc", Schedule{First: time.Minute}); err == nil {
		p.Stop()
		t.Error("Start(/proc) accepted")
	}
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, LiveFile)); err != nil {
		t.Fatal(err)
	}
	p, err := Start(dir, Schedule{First: time.Minute})
	if err == nil {
		p.Stop()
		t.Fatal("Start with a planted heap-live.tsv symlink accepted")
	}
	if !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("error %v does not say what is wrong", err)
	}
	// Planted after the start: the append refuses to follow it.
	os.Remove(filepath.Join(dir, LiveFile))
	p, err = Start(dir, Schedule{First: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(dir, LiveFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Stop(); err == nil {
		t.Error("the last profile appended through a planted symlink without an error")
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep\n" {
		t.Errorf("the symlink's target was written: %q", b)
	}
}
