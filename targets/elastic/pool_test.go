package elastic

import (
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestPoolFollowsConcurrency: idle connections per node follow the
// scenario's concurrency unless client.pool_size is set.
func TestPoolFollowsConcurrency(t *testing.T) {
	for _, c := range []struct {
		pool, conc, want int
	}{
		{0, 50, 50},
		{0, 200, 200},
		{8, 50, 8},
		{0, 0, DefaultPoolSize},
	} {
		tr, err := transport(scenarios.Target{Client: scenarios.ClientOf(scenarios.ClientCommon{PoolSize: c.pool}, nil)}, targets.Options{Concurrency: c.conc})
		if err != nil {
			t.Fatal(err)
		}
		if tr.MaxIdleConnsPerHost != c.want || tr.MaxIdleConns != c.want {
			t.Errorf("pool_size %d concurrency %d: idle per host %d, total %d; want %d", c.pool, c.conc, tr.MaxIdleConnsPerHost, tr.MaxIdleConns, c.want)
		}
	}
}
