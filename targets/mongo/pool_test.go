package mongo

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestPoolFollowsConcurrency: the driver's maxPoolSize follows the
// scenario's concurrency unless client.pool_size or the URI sets it.
func TestPoolFollowsConcurrency(t *testing.T) {
	for _, c := range []struct {
		url        string
		pool, conc int
		want       uint64 // 0: left to the driver (nil)
	}{
		{"mongodb://127.0.0.1:27017", 0, 50, 50},
		{"mongodb://127.0.0.1:27017", 0, 500, 500},
		{"mongodb://127.0.0.1:27017", 8, 50, 8},
		{"mongodb://127.0.0.1:27017/?maxPoolSize=7", 0, 50, 7},
		{"mongodb://127.0.0.1:27017/?maxPoolSize=7", 9, 50, 9},
		{"mongodb://127.0.0.1:27017", 0, 0, 0},
	} {
		co, _, err := clientOptions(scenarios.Target{URL: c.url, Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: c.pool}, nil)}, targets.Options{Concurrency: c.conc})
		if err != nil {
			t.Fatal(err)
		}
		var got uint64
		if co.MaxPoolSize != nil {
			got = *co.MaxPoolSize
		}
		if got != c.want {
			t.Errorf("%s pool_size %d concurrency %d: maxPoolSize %d, want %d", c.url, c.pool, c.conc, got, c.want)
		}
	}
}
