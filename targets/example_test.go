package targets_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// memStore is a store soakd has never heard of: an in-memory map.
type memStore struct{ m map[string][]byte }

func (s *memStore) Do(_ context.Context, r *targets.Request) error {
	switch r.Op {
	case scenarios.OpGet:
		if _, ok := s.m[string(r.Key)]; !ok {
			return targets.ErrMiss
		}
	case scenarios.OpSet:
		s.m[string(r.Key)] = nil
	}
	return nil
}

func (s *memStore) Close() error { return nil }

// A store's package registers its kind in init with targets.Register
// (the process's one registry); a test registers it in a registry of
// its own. Scenarios are then read and checked, and targets opened,
// against that registry.
func ExampleRegistry_Register() {
	reg := targets.NewRegistry()
	reg.Register("mem", targets.Adapter{
		Open: func(context.Context, scenarios.Target, targets.Options) (targets.Target, error) {
			return &memStore{m: map[string][]byte{}}, nil
		},
		URLSchemes: []string{"mem"},
	})

	sc, err := scenarios.ParseWith("mem.yaml", []byte(`target: {url: "mem://local"}
phases: [{name: s, kind: steady, rate: 100, duration: 1s, mix: {get: 100}}]
`), reg)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kind from the URL scheme:", sc.Target.Kind)

	tg, err := reg.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tg.Close()
	ctx := context.Background()
	fmt.Println("set:", tg.Do(ctx, &targets.Request{Op: scenarios.OpSet, Key: []byte("k")}))
	fmt.Println("get:", tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("k")}))
	err = tg.Do(ctx, &targets.Request{Op: scenarios.OpGet, Key: []byte("x")})
	fmt.Println("get of a missing key is a miss:", errors.Is(err, targets.ErrMiss))

	// The registry's schema (here only the options every store takes)
	// checks a scenario's client: block, with file:line.
	_, err = scenarios.ParseWith("bad.yaml", []byte("target: {kind: mem, client: {shards: 2}}\nphases: [{kind: steady, duration: 1s, mix: {get: 100}}]\n"), reg)
	fmt.Println(err)
	// Output:
	// kind from the URL scheme: mem
	// set: <nil>
	// get: <nil>
	// get of a missing key is a miss: true
	// bad.yaml:1: target.client.shards: unknown key "shards" (a mem target's client takes pool_size, dial_timeout, read_timeout, write_timeout, max_batch)
}
