package redis

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestOpenSilentStoreBoundedByPingTimeout: a store that accepts and
// never answers fails Open at the ping's 5 s deadline, not after the
// scenario's read timeout (4 minutes here), which held SIGINT that long.
func TestOpenSilentStoreBoundedByPingTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
			go func() {
				buf := make([]byte, 4096)
				for {
					if _, err := c.Read(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	tgt := scenarios.Target{Kind: scenarios.KindRedis, URL: "redis://" + ln.Addr().String(),
		Client: scenarios.ClientOf(scenarios.ClientCommon{ReadTimeout: scenarios.Duration(4 * time.Minute), WriteTimeout: scenarios.Duration(4 * time.Minute)}, nil)}
	done := make(chan error, 1)
	go func() {
		tg, err := Open(context.Background(), tgt, targets.Options{})
		if err == nil {
			tg.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "ping") {
			t.Fatalf("Open of a silent store: %v, want a ping error", err)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("Open of a silent store waited past a minute: the read timeout, not the ping deadline, bounded it")
	}
}
