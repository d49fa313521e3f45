package targets_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/soakd/soakd/internal/runpath"
	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// kvxConfig is the fake kvx store's own client: options.
type kvxConfig struct {
	Shards int `yaml:"shards,omitempty"`
}

// kvxTarget is an open kvx target: it answers every op.
type kvxTarget struct{ shards int }

func (k *kvxTarget) Do(context.Context, *targets.Request) error { return nil }
func (k *kvxTarget) Close() error                               { return nil }

// newStores registers two stores scenarios has never heard of, as their
// packages would: kvx (alias kv, URLs kvx://, a pipeline of 64, a
// shards: client option) and blob (blob://, listed first).
func newStores() *targets.Registry {
	reg := targets.NewRegistry()
	schema := targets.ClientSchema[kvxConfig]{Check: func(_ scenarios.Target, c *kvxConfig) []scenarios.FieldError {
		if c.Shards < 0 {
			return []scenarios.FieldError{{Path: "target.client.shards", Msg: "must not be negative"}}
		}
		return nil
	}}
	reg.Register("kvx", targets.Adapter{
		Open: func(_ context.Context, t scenarios.Target, _ targets.Options) (targets.Target, error) {
			c, err := schema.Decode(t)
			if err != nil {
				return nil, err
			}
			return &kvxTarget{shards: c.Shards}, nil
		},
		Schema: schema, Aliases: []string{"kv"}, URLSchemes: []string{"kvx"}, DefaultMaxBatch: 64, Order: 20,
	})
	reg.Register("blob", targets.Adapter{
		Open: func(context.Context, scenarios.Target, targets.Options) (targets.Target, error) {
			return nil, errors.New("unused")
		},
		URLSchemes: []string{"blob"}, Order: 10,
	})
	return reg
}

// TestANewStoreTouchesNothingInScenarios: a store registered with its
// name, alias, URL scheme, pipeline and client: schema, and nothing
// else, is a target kind scenarios reads, checks, bounds and opens.
func TestANewStoreTouchesNothingInScenarios(t *testing.T) {
	reg := newStores()
	const phase = "phases: [{name: s, kind: steady, rate: 100, duration: 1s, mix: {read: 100}}]\n"
	sc, err := scenarios.ParseWith("kvx.yaml", []byte("target:\n  url: kvx://127.0.0.1:7000\n  client: {pool_size: 2, shards: 4}\n"+phase), reg)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Target.Kind != "kvx" || sc.StoreKind() != "kvx" {
		t.Errorf("kind %q, store %q from a kvx:// URL", sc.Target.Kind, sc.StoreKind())
	}
	tg, err := reg.Open(context.Background(), sc.Target, targets.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if k, ok := tg.(*kvxTarget); !ok || k.shards != 4 {
		t.Errorf("opened %#v", tg)
	}
	if sc, err := scenarios.ParseWith("kv.yaml", []byte("target: {kind: kv, url: 'kvx://h:1'}\n"+phase), reg); err != nil || sc.StoreKind() != "kvx" || sc.Target.Kind != "kv" {
		t.Errorf("alias kv: %v", err)
	}

	// Every problem, at its line, in words built from the registry.
	_, err = scenarios.ParseWith("bad.yaml", []byte("target:\n  kind: blob\n  url: kvx://127.0.0.1:7000\n  client:\n    shards: 1\n"+phase), reg)
	for _, want := range []string{
		"bad.yaml:3: target.url: URL scheme is for kvx but target.kind is blob",
		"bad.yaml:5: target.client.shards: only a kvx target takes shards (this is a blob target)",
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
	_, err = scenarios.ParseWith("bad.yaml", []byte("target:\n  kind: kvz\n"+phase), reg)
	if want := `bad.yaml:2: target.kind: unknown target kind "kvz" (use blob or kvx (alias kv))`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("kind kvz: %v\nwant %s", err, want)
	}
	_, err = scenarios.ParseWith("bad.yaml", []byte("target:\n  kind: kvx\n  client:\n    shards: -1\n"+phase), reg)
	if want := "bad.yaml:4: target.client.shards: must not be negative"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("shards -1: %v\nwant %s", err, want)
	}
	// The memory bound counts the store's own pipeline depth.
	big := "target: {kind: kvx}\nrecord: {fields: 10, field_bytes: 10000}\nkeyspace: {records: 100}\nphases: [{kind: steady, duration: 1s, rate: 1000, concurrency: 10000, mix: {read: 100}}]\n"
	if _, err := scenarios.ParseWith("big.yaml", []byte(big), reg); err == nil || !strings.Contains(err.Error(), "in flight 6.104 MiB: a pipeline of 64 records") {
		t.Errorf("memory bound: %v", err)
	}

	// --target switches the scenario by the registry's schemes.
	if fes, err := runpath.Apply(sc, runpath.Overrides{Target: "blob://h:2"}); err != nil || sc.Target.Kind != "blob" || len(fes) != 1 || fes[0].Path != "target.client.shards" {
		t.Errorf("--target blob://: kind %s, %v %v", sc.Target.Kind, fes, err)
	}
	var oe *runpath.OverrideError
	if _, err := runpath.Apply(sc, runpath.Overrides{Target: "redis://h:6379"}); !errors.As(err, &oe) || !strings.HasSuffix(oe.Msg, ": unknown URL scheme (use blob://, kvx://)") {
		t.Errorf("--target redis:// with only blob and kvx: %v", err)
	}
}
