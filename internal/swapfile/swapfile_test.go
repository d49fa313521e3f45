package swapfile

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// fakeHost records the commands run and acts them out on real files in
// a temp dir: fallocate and dd create the file; fail names commands that
// fail instead.
type fakeHost struct {
	mu   sync.Mutex
	cmds []string
	fail map[string]string // command -> its output when it fails
}

func (k *fakeHost) host(t *testing.T, euid int) Host {
	return Host{Dir: t.TempDir(), Euid: func() int { return euid }, Run: k.run}
}

func (k *fakeHost) run(_ context.Context, name string, args ...string) ([]byte, error) {
	k.mu.Lock()
	k.cmds = append(k.cmds, name+" "+strings.Join(args, " "))
	k.mu.Unlock()
	if out, ok := k.fail[name]; ok {
		return []byte(out), errors.New("exit status 1")
	}
	switch name {
	case "fallocate":
		return nil, os.WriteFile(args[2], nil, 0o644)
	case "dd":
		return nil, os.WriteFile(strings.TrimPrefix(args[1], "of="), nil, 0o644)
	}
	return nil, nil
}

func (k *fakeHost) commands() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var names []string
	for _, c := range k.cmds {
		names = append(names, strings.Fields(c)[0])
	}
	return strings.Join(names, ",")
}

func gone(t *testing.T, p string) {
	t.Helper()
	if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s still there (%v)", p, err)
	}
}

// TestOnOff: every path leaves no file and no swap on, except the one
// where swapoff itself fails (the file stays, and the error says so).
func TestOnOff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		euid       int
		fail       map[string]string
		wantOn     string // commands run by On
		wantErr    string // On's error ("" = on)
		wantOffCmd string // commands run by Off after On's
		wantOffErr string
	}{
		{name: "success", wantOn: "fallocate,mkswap,swapon", wantOffCmd: "swapoff"},
		{name: "fallocate refused: dd", fail: map[string]string{"fallocate": "fallocate: fallocate failed: Operation not supported"},
			wantOn: "fallocate,dd,mkswap,swapon", wantOffCmd: "swapoff"},
		{name: "dd fails too", fail: map[string]string{"fallocate": "no", "dd": "dd: No space left on device"},
			wantOn: "fallocate,dd", wantErr: "dd: No space left on device"},
		{name: "mkswap fails", fail: map[string]string{"mkswap": "mkswap: error"}, wantOn: "fallocate,mkswap", wantErr: "mkswap "},
		{name: "swapon not permitted", fail: map[string]string{"swapon": "swapon: /x: swapon failed: Operation not permitted"},
			wantOn: "fallocate,mkswap,swapon", wantErr: "swapon failed: Operation not permitted"},
		{name: "not root", euid: 1000, wantOn: "", wantErr: "needs root"},
		{name: "swapoff fails", fail: map[string]string{"swapoff": "swapoff: Cannot allocate memory"}, wantOn: "fallocate,mkswap,swapon",
			wantOffCmd: "swapoff", wantOffErr: "the swapfile is still on"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := &fakeHost{fail: tc.fail}
			h := k.host(t, tc.euid)
			path := filepath.Join(h.Dir, "soakd-"+itoa(os.Getpid())+".swap")
			f, err := h.On(context.Background(), 64<<20)
			if got := k.commands(); got != tc.wantOn {
				t.Errorf("On ran %s, want %s", got, tc.wantOn)
			}
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("On: %v, want an error with %q", err, tc.wantErr)
				}
				gone(t, path)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fi, err := os.Stat(f.Path); f.Path != path || err != nil || fi.Mode().Perm() != 0o600 {
				t.Fatalf("swapfile %s: %v %v", f.Path, fi, err)
			}
			if !strings.Contains(strings.Join(k.cmds, "|"), "fallocate -l 67108864 "+path) && !strings.Contains(strings.Join(k.cmds, "|"), "count=64") {
				t.Errorf("size not asked for: %q", k.cmds)
			}
			n := len(k.cmds)
			err = f.Off()
			k.mu.Lock()
			off := strings.Join(k.cmds[n:], "|")
			k.mu.Unlock()
			if off != tc.wantOffCmd+" "+path {
				t.Errorf("Off ran %q, want %s %s", off, tc.wantOffCmd, path)
			}
			if tc.wantOffErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantOffErr) {
					t.Fatalf("Off: %v, want %q", err, tc.wantOffErr)
				}
				if _, serr := os.Stat(path); serr != nil {
					t.Errorf("a swapfile still on was removed")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			gone(t, path)
			// Once only.
			if err := f.Off(); err != nil || len(k.cmds) != n+1 {
				t.Errorf("second Off: %v, %d commands", err, len(k.cmds)-n)
			}
		})
	}
}

// TestOnCancelled: a signal (the run's context ending) while the file is
// being made stops On and removes the file.
func TestOnCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	k := &fakeHost{}
	h := k.host(t, 0)
	h.Run = func(c context.Context, name string, args ...string) ([]byte, error) {
		out, err := k.run(c, name, args...)
		if name == "mkswap" {
			cancel() // SIGINT arrives while mkswap runs
			return []byte("signal: interrupt"), c.Err()
		}
		return out, err
	}
	_, err := h.On(ctx, 64<<20)
	if err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("On: %v", err)
	}
	if got := k.commands(); got != "fallocate,mkswap" {
		t.Errorf("commands %s", got)
	}
	gone(t, filepath.Join(h.Dir, "soakd-"+itoa(os.Getpid())+".swap"))
}

func TestOnRefusesSmallAndExisting(t *testing.T) {
	k := &fakeHost{}
	h := k.host(t, 0)
	if _, err := h.On(context.Background(), 4096); err == nil || !strings.Contains(err.Error(), "too small") {
		t.Errorf("4096 bytes: %v", err)
	}
	p := filepath.Join(h.Dir, "soakd-"+itoa(os.Getpid())+".swap")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.On(context.Background(), 64<<20); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("existing file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "x" || k.commands() != "" {
		t.Errorf("an existing file was touched: %q, commands %s", b, k.commands())
	}
}

func itoa(n int) string { return strconv.Itoa(n) }
