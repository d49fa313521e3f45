package scenarios

import (
	"strings"
	"testing"
)

// fakeStores registers two kinds: "kv" takes mode and addrs, "doc"
// takes database; both refuse mode "bad".
type fakeStores struct{}

type kvOptions struct {
	Mode  string   `yaml:"mode"`
	Addrs []string `yaml:"addrs"`
}

type fakeSchema struct {
	keys []string
	v    func() any
}

func (f fakeSchema) ClientKeys() []string { return f.keys }
func (f fakeSchema) CheckTarget(t Target) []FieldError {
	v := f.v()
	errs := t.Client.Decode(v)
	if o, ok := v.(*kvOptions); ok && o.Mode == "bad" {
		errs = append(errs, FieldError{Path: "target.client.mode", Msg: "bad mode"})
	}
	return errs
}

func (fakeStores) Store(k TargetKind) (Store, bool) {
	switch k {
	case KindRedis:
		return Store{Kind: k, URLSchemes: []string{"redis"}, Schema: fakeSchema{[]string{"mode", "addrs"}, func() any { return &kvOptions{} }}}, true
	case KindMongo:
		return Store{Kind: k, URLSchemes: []string{"mongodb"}, Schema: fakeSchema{[]string{"database"}, func() any {
			return &struct {
				Database string `yaml:"database"`
			}{}
		}}}, true
	}
	return Store{}, false
}

func (fakeStores) StoreKinds() []TargetKind { return []TargetKind{KindMongo, KindRedis} }

// TestClientThroughStores: the client: block is checked by the schema
// of the scenario's kind, each problem at its line and field: a key of
// another store (named), an unknown key, a mistyped value, the schema's
// own check; the shared options decode in scenarios itself.
func TestClientThroughStores(t *testing.T) {
	src := "name: c\ntarget:\n  kind: redis\n  url: redis://127.0.0.1:6379\n  client:\n    pool_size: 3\n    mode: bad\n    addrs: one\n    database: d\n    nope: 1\nphases: [{name: s, kind: steady, rate: 10, duration: 1s, mix: {get: 100}}]\n"
	_, err := ParseWith("c.yaml", []byte(src), fakeStores{})
	if err == nil {
		t.Fatal("accepted")
	}
	for _, want := range []string{
		"c.yaml:7: target.client.mode: bad mode",
		"c.yaml:8: target.client.addrs: cannot unmarshal a string into []string",
		"c.yaml:9: target.client.database: only a mongo target takes database (this is a redis target)",
		`c.yaml:10: target.client.nope: unknown key "nope" (a redis target's client takes pool_size, dial_timeout, read_timeout, write_timeout, max_batch, mode, addrs)`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("problems lack %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "`one`") {
		t.Errorf("a problem quotes the file's value:\n%v", err)
	}
	// Without the stores only the shared options are checked here.
	sc, err := Parse("c.yaml", []byte(src))
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if sc.Target.Client.PoolSize != 3 || strings.Join(sc.Target.Client.Keys(), ",") != "pool_size,mode,addrs,database,nope" {
		t.Errorf("pool_size %d, keys %v", sc.Target.Client.PoolSize, sc.Target.Client.Keys())
	}
	// ... and the adapter's check at open places its problems the same way.
	ps := sc.Target.Client.Problems(CheckStore(fakeStores{}, sc.Target))
	if len(ps) != 4 {
		t.Errorf("placed %v", ps)
	}
	for _, p := range ps {
		if p.File != "c.yaml" || p.Line < 7 || p.Line > 10 {
			t.Errorf("problem %v not placed in the block", p)
		}
	}
}

// TestClientOf: a block built from Go values reads like one from a file.
func TestClientOf(t *testing.T) {
	c := ClientOf(ClientCommon{PoolSize: 4, ReadTimeout: Duration(1500e6)}, kvOptions{Mode: "cluster", Addrs: []string{"a:1"}})
	var o kvOptions
	if errs := c.Decode(&o); len(errs) > 0 || o.Mode != "cluster" || len(o.Addrs) != 1 || c.PoolSize != 4 || c.ReadTimeout.D().Milliseconds() != 1500 {
		t.Errorf("decoded %+v, %+v, %v", o, c.ClientCommon, errs)
	}
	if fes := CheckStore(fakeStores{}, Target{Kind: KindRedis, Client: c}); len(fes) > 0 {
		t.Errorf("refused: %v", fes)
	}
}
