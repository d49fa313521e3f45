package daemon

import (
	"bufio"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/soakd/soakd/targets"
)

// hangingRedis answers the handshake of a redis client and never a GET:
// a store that accepts and then hangs. gets counts the GETs it swallowed.
func hangingRedis(t *testing.T) (string, *atomic.Int64) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var gets atomic.Int64
	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go func() {
				br := bufio.NewReader(c)
				for {
					line, err := br.ReadString('\n')
					if err != nil {
						return
					}
					if !strings.HasPrefix(line, "*") {
						continue
					}
					n := 0
					for _, ch := range strings.TrimSpace(line[1:]) {
						n = n*10 + int(ch-'0')
					}
					var cmd string
					for i := 0; i < n; i++ {
						br.ReadString('\n')
						v, _ := br.ReadString('\n')
						if i == 0 {
							cmd = strings.ToUpper(strings.TrimSpace(v))
						}
					}
					switch cmd {
					case "GET":
						gets.Add(1)
					case "HELLO":
						c.Write([]byte("-ERR unknown command 'HELLO'\r\n"))
					case "PING":
						c.Write([]byte("+PONG\r\n"))
					default:
						c.Write([]byte("*0\r\n"))
					}
				}
			}()
		}
	}()
	return ln.Addr().String(), &gets
}

// TestStopWithHangingStore: /stop of a run whose store never answers
// (read timeout 4 minutes) ends it at the drain deadline, its in-flight
// GETs counted as interrupted; then the daemon's own stop (SIGTERM)
// ends a second such run the same way instead of waiting for the
// timeout (h.stop fails after 20 s).
func TestStopWithHangingStore(t *testing.T) {
	addr, gets := hangingRedis(t)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "hang.yaml"), `name: hang
target: {kind: redis, url: "redis://`+addr+`", client: {read_timeout: 4m, write_timeout: 4m}}
keyspace: {records: 100}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 10m, concurrency: 2, mix: {get: 100}}
`)
	h := startDaemon(t, dir, baseConfig(dir), nil)
	start := func() string {
		t.Helper()
		gets.Store(0)
		var started Entry
		if code := h.do("POST", "/api/v1/runs", testToken, StartRequest{Scenario: "hang.yaml"}, &started); code != 202 {
			t.Fatalf("POST run: %d", code)
		}
		for deadline := time.Now().Add(30 * time.Second); gets.Load() == 0; time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("no GET reached the store")
			}
		}
		time.Sleep(200 * time.Millisecond)
		return started.ID
	}
	id := start()
	if code := h.do("POST", "/api/v1/runs/"+id+"/stop", testToken, nil, nil); code != 202 {
		t.Fatalf("stop: %d", code)
	}
	v := h.waitState(id, StateInterrupted, 30*time.Second)
	if v.Summary == nil || len(v.Summary.Phases) == 0 {
		t.Fatalf("stopped run has no phases: %+v", v.Summary)
	}
	if n := v.Summary.Phases[0].Ops["get"].Errors[targets.ClassInterrupted]; n < 2 {
		t.Errorf("%d GETs counted interrupted, want at least the 2 in flight", n)
	}
	start()
	h.stop() // fails the test when the daemon is not done within 20 s
}
