package targets_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/soakd/soakd/capture"
	"github.com/soakd/soakd/datagen"
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

// kvxForm is the kvx family's custom-op form: a command as a list,
// [VERB, "arg{key}", ...]; GET only reads, WIPE needs allow_destructive.
type kvxForm struct{ cmd []string }

func (f *kvxForm) Templates() []string                               { return f.cmd }
func (f *kvxForm) Places(int, []scenarios.Segment) []scenarios.Place { return nil }
func (f *kvxForm) ReadOnly() bool                                    { return len(f.cmd) > 0 && f.cmd[0] == "GET" }
func (f *kvxForm) Check(c scenarios.CustomCheck) []scenarios.FieldError {
	var errs []scenarios.FieldError
	if len(f.cmd) == 0 {
		scenarios.Add(&errs, c.Path, "op %s: a kvx form is a command", c.Name)
	} else if f.cmd[0] == "WIPE" && !c.AllowDestructive {
		scenarios.Add(&errs, c.Path+"[0]", "op %s: WIPE empties the store; refused unless allow_destructive: true", c.Name)
	}
	return errs
}

type kvxFormat struct{}

func (kvxFormat) Decode(n *yaml.Node) (scenarios.CustomForm, error) {
	f := &kvxForm{}
	return f, n.Decode(&f.cmd)
}

// kvxDialect replays op logs of kvx commands, grouped as KVX_<VERB>.
type kvxDialect struct{}

func (kvxDialect) Check(op capture.Op, _ string) (string, bool, error) {
	return "KVX_" + strings.ToUpper(string(op.Args[0])), false, nil
}

func (kvxDialect) Render(op capture.Op, _ string, buf []byte, parts [][]byte) ([]byte, [][]byte) {
	return capture.Remap(op.Args, "", buf, parts)
}

type kvxReplay struct{}

func (kvxReplay) Dialect() capture.Dialect { return kvxDialect{} }
func (kvxReplay) CheckReplay(_ *scenarios.Scenario, r *scenarios.ReplaySpec) []scenarios.FieldError {
	if r.KeyPrefix != "" {
		return []scenarios.FieldError{{Path: "key_prefix", Msg: "a kvx replay takes no key_prefix"}}
	}
	return nil
}
func (kvxReplay) Refusal(sc *scenarios.Scenario, _ *scenarios.ReplaySpec, args []string) string {
	if strings.EqualFold(args[0], "WIPE") {
		return sc.DestructiveRefusal("WIPE")
	}
	return ""
}

// kvxFamily is defined once and referenced by kvx and its twin kvy, as
// the RESP family is by redis and embedded.
var kvxFamily = &targets.Family{Name: "kvx", Custom: kvxFormat{}, Replay: kvxReplay{}}

// newStores registers two stores scenarios has never heard of, as their
// packages would: kvx (alias kv, URLs kvx://, a pipeline of 64, a
// shards: client option, custom ops and replay through its family kvx)
// and blob (blob://, listed first).
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
		Family: kvxFamily,
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

// TestANewStoreOwnsItsCustomOpsAndReplay: the kvx family's custom-op
// form and replay dialect, registered through the adapter and nothing
// else, are decoded, checked, rendered and replayed: scenarios, capture
// and datagen name no store.
func TestANewStoreOwnsItsCustomOpsAndReplay(t *testing.T) {
	reg := newStores()
	// kvy: a second store of the kvx family, a scratch one.
	reg.Register("kvy", targets.Adapter{
		Open: func(context.Context, scenarios.Target, targets.Options) (targets.Target, error) {
			return &kvxTarget{}, nil
		},
		Order: 30, Family: kvxFamily, Scratch: true,
	})
	ops := "ops:\n  put: {kvx: [SET, \"k{key}\", \"{int:1:9}\"]}\n  look: {kvx: [GET, \"k{key}\"]}\n"
	src := "target: {kind: kvx}\nkeyspace: {records: 10}\n" + ops + "phases: [{name: s, kind: steady, rate: 100, duration: 1s, mix: {put: 50, look: 50}}]\n"
	sc, err := scenarios.ParseWith("kvx.yaml", []byte(src), reg)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Ops["look"].ReadOnly("kvx") || sc.Ops["put"].ReadOnly("kvx") || !sc.Ops["look"].ReadOnly("kvy") {
		t.Error("ReadOnly is not the kvx form's")
	}
	if k := sc.Ops["put"].Kinds(); len(k) != 1 || k[0] != "kvx" {
		t.Errorf("families %v", k)
	}
	p, err := datagen.Compile(sc, "kvx")
	if err != nil {
		t.Fatal(err)
	}
	o, _ := sc.OpTable()
	put, _ := o.Lookup("put")
	_, parts := datagen.NewRenderer(p).Render(put, []byte("7"), 0, rand.New(rand.NewPCG(1, 2)), nil, nil)
	if len(parts) != 3 || string(parts[0]) != "SET" || string(parts[1]) != "k7" {
		t.Errorf("rendered %q", parts)
	}

	// The form's own checks, at their lines; a scratch store of the
	// family allows what the form refuses elsewhere.
	wipe := "target: {kind: kvx}\nops:\n  w:\n    kvx: [WIPE]\nphases: [{name: s, kind: steady, rate: 1, duration: 1s, mix: {w: 100}}]\n"
	if _, err := scenarios.ParseWith("w.yaml", []byte(wipe), reg); err == nil || !strings.Contains(err.Error(), "w.yaml:4: ops.w.kvx[0]: op w: WIPE empties the store") {
		t.Errorf("WIPE on kvx: %v", err)
	}
	if _, err := scenarios.ParseWith("w.yaml", []byte(strings.Replace(wipe, "kind: kvx", "kind: kvy", 1)), reg); err != nil {
		t.Errorf("WIPE on the scratch kvy: %v", err)
	}
	if _, err := scenarios.ParseWith("w.yaml", []byte(strings.Replace(wipe, "kind: kvx", "kind: blob", 1)), reg); err == nil || !strings.Contains(err.Error(), "op w has no template for target kind blob (it has: kvx)") {
		t.Errorf("kvx op on blob: %v", err)
	}

	// A replay reads the capture in the kvx dialect: its groups, its
	// refusals at their lines, its rules on the phase.
	dir := t.TempDir()
	capFile := filepath.Join(dir, "ops.ndjson")
	write := func(lines ...string) {
		if err := os.WriteFile(capFile, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`{"ts": 1, "op": "get", "args": ["a"]}`, `{"ts": 2, "op": "SET", "args": ["a", "1"]}`)
	replay := "target: {kind: kvx}\nphases:\n  - {name: r, kind: replay, source: " + capFile + ", format: ndjson}\nslo: {latency: {KVX_GET: {p99: 10ms}}}\n"
	sc, err = scenarios.ParseWith("r.yaml", []byte(replay), reg)
	if err != nil {
		t.Fatal(err)
	}
	o2, err := reg.ReplayOptions(sc, &sc.Phases[0])
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(capFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	ix, err := capture.Build(f, st.Size(), o2)
	if err != nil || strings.Join(ix.Groups, ",") != "KVX_GET,KVX_SET" {
		t.Errorf("groups %v, %v", ix, err)
	}
	write(`{"ts": 1, "op": "GET", "args": ["a"]}`, `{"ts": 2, "op": "wipe"}`)
	if _, err := scenarios.ParseWith("r.yaml", []byte(replay), reg); err == nil || !strings.Contains(err.Error(), "line 2: WIPE destroys data or stops or reconfigures the server; refused against a kvx target") {
		t.Errorf("WIPE in a kvx capture: %v", err)
	}
	if _, err := scenarios.ParseWith("r.yaml", []byte(strings.Replace(replay, "format: ndjson", "format: ndjson, key_prefix: x", 1)), reg); err == nil || !strings.Contains(err.Error(), "phases[0].key_prefix: a kvx replay takes no key_prefix") {
		t.Errorf("key_prefix on kvx: %v", err)
	}
	if _, err := reg.ReplayOptions(&scenarios.Scenario{Target: scenarios.Target{Kind: "blob"}}, &sc.Phases[0]); err == nil || err.Error() != "no replay dialect for a blob target" {
		t.Errorf("blob replay: %v", err)
	}
}
