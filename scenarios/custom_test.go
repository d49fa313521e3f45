package scenarios

import (
	"strings"
	"testing"
)

const cartYAML = `name: cart
keyspace: {records: 10000, distribution: zipfian}
bindings:
  user: {key: zipfian}
ops:
  cart_add: {redis: [HINCRBY, "cart:{user}", "sku{int:1:50}", "1"]}
  cart_get: {redis: [HGETALL, "cart:{user}"], miss_when: empty}
phases:
  - {name: steady, kind: steady, rate: 1000, duration: 10s, concurrency: 8, mix: {cart_add: 50, cart_get: 50}}
slo:
  latency: {cart_get: {p99: 50ms}}
`

func TestCustomCartParses(t *testing.T) {
	sc, err := Parse("cart.yaml", []byte(cartYAML))
	if err != nil {
		t.Fatal(err)
	}
	if b := sc.Bindings["user"]; b.Records != 10000 || b.Key != DistZipfian || b.ZipfTheta != DefaultZipfTheta {
		t.Errorf("binding defaults: %+v", b)
	}
	ops, err := sc.CustomOps()
	if err != nil {
		t.Fatal(err)
	}
	names, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	for o, c := range ops {
		if !o.IsCustom() {
			t.Errorf("%v is not a custom op", o)
		}
		back, ok := names.Lookup(names.Name(o))
		if !ok || back != o {
			t.Errorf("Lookup(%q) = %v, %v", names.Name(o), back, ok)
		}
		if c.MaxBytes != DefaultCustomMaxBytes {
			t.Errorf("%s max_bytes %d", names.Name(o), c.MaxBytes)
		}
	}
	if o, _ := names.Lookup("cart_get"); ops[o].MissWhen != MissEmpty {
		t.Errorf("cart_get: %+v", ops[o])
	}
	if got, _ := ops[mustOp(t, names, "cart_add")].Templates(KindRedis); strings.Join(got, " ") != "HINCRBY cart:{user} sku{int:1:50} 1" {
		t.Errorf("cart_add templates %q", got)
	}
}

func mustOp(t *testing.T, names *OpTable, name string) Op {
	o, ok := names.Lookup(name)
	if !ok {
		t.Fatalf("no op %s", name)
	}
	return o
}

// Every mistake in ops: and bindings: is reported with its file line.
func TestCustomValidateErrors(t *testing.T) {
	for _, tc := range []struct {
		name, head, ops string
		mix             string
		line            int
		want            string
	}{
		{"unknown placeholder", "", `  a: {redis: [GET, "k:{nope}"]}`, "a: 100", 9, "unknown placeholder {nope}"},
		{"bad int range", "", `  a: {redis: [GET, "{int:5:1}"]}`, "a: 100", 9, "lo 5 is above hi 1"},
		{"int not a number", "", `  a: {redis: [GET, "{int:x:1}"]}`, "a: 100", 9, "must be integers"},
		{"unclosed", "", `  a: {redis: [GET, "k:{int:1:5"]}`, "a: 100", 9, "no closing '}'"},
		{"bytes zero", "", `  a: {redis: [GET, "{bytes:0}"]}`, "a: 100", 9, "N must be between 1"},
		{"choice weight", "", `  a: {redis: [GET, "{choice:a=x,b}"]}`, "a: 100", 9, "must be a positive number"},
		{"args to key", "", `  a: {redis: [GET, "{key:3}"]}`, "a: 100", 9, "takes no arguments"},
		{"over max_bytes", "", `  a: {redis: [SET, "{key}", "{bytes:2048}"], max_bytes: 1kb}`, "a: 100", 9, "more than max_bytes"},
		{"miss_when", "", `  a: {redis: [GET, "{key}"], miss_when: never}`, "a: 100", 9, `unknown "never"`},
		{"shadows built-in", "", `  get: {redis: [GET, "{key}"]}`, "get: 100", 9, "is a built-in op"},
		{"bad op name", "", `  Big-Op: {redis: [GET, "{key}"]}`, "read: 100", 9, "lower-case letter"},
		{"no template", "", `  a: {miss_when: nil}`, "a: 100", 9, "needs a template"},
		{"unknown op key", "", `  a: {redis: [GET, "{key}"], mis_when: nil}`, "a: 100", 9, `unknown key "mis_when"`},
		{"unknown redis key", "", `  a: {redis: {scrpt: "return 1"}}`, "a: 100", 9, `unknown key "scrpt"`},
		{"keys without script", "", `  a: {redis: {multi: [[GET, "{key}"]], keys: ["{key}"]}}`, "a: 100", 9, "go with script"},
		{"script and multi", "", `  a: {redis: {script: "return 1", multi: [[GET, x]]}}`, "a: 100", 9, "give one of"},
		{"command placeholder", "", `  a: {redis: ["{choice:GET,DEL}", "{key}"]}`, "a: 100", 9, "must be plain text"},
		{"blocking", "", `  a: {redis: [BLPOP, "{key}", "0"]}`, "a: 100", 9, "BLPOP is refused"},
		{"blocking in multi", "", "  a:\n    redis:\n      multi:\n        - [SET, k, v]\n        - [WAIT, \"1\", \"0\"]", "a: 100", 13, "WAIT is refused"},
		{"eval", "", `  a: {redis: [EVAL, "return 1", "0"]}`, "a: 100", 9, "write a script as"},
		{"flushall", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [FLUSHALL]}`, "a: 100", 9, "FLUSHALL destroys data"},
		{"config set", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [config, set, maxmemory, "1"]}`, "a: 100", 9, "CONFIG SET destroys data"},
		{"script flush", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [SCRIPT, FLUSH]}`, "a: 100", 9, "SCRIPT FLUSH"},
		{"lua flushdb", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call('flushdb')"}}`, "a: 100", 9, "calls FLUSHDB"},
		{"choice subcommand", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [CONFIG, "{choice:SET}", maxmemory, "1"]}`, "a: 100", 9, "CONFIG SET destroys data"},
		{"choice subcommand weighted", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [config, "{choice:get=9,set=1}", maxmemory, "1"]}`, "a: 100", 9, "CONFIG SET destroys data"},
		{"choice subcommand in parts", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [SCRIPT, "{choice:FL,EX}USH"]}`, "a: 100", 9, "SCRIPT FLUSH destroys data"},
		{"choice subcommand in multi", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", "  a:\n    redis:\n      multi:\n        - [SET, k, v]\n        - [CONFIG, \"{choice:SET}\", maxmemory, \"1\"]", "a: 100", 13, "CONFIG SET destroys data"},
		{"binding subcommand", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n" + "bindings: {sub: {gen: \"choice:GET,RESETSTAT\"}}\n", `  a: {redis: [CONFIG, "{sub}"]}`, "a: 100", 9, "CONFIG RESETSTAT destroys data"},
		{"key binding subcommand", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n" + "bindings: {sub: {key: uniform, prefix: SET}}\n", `  a: {redis: [CONFIG, "{sub}", maxmemory, "1"]}`, "a: 100", 9, "is a placeholder that can render any text"},
		{"placeholder subcommand", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [FUNCTION, "{key}"]}`, "a: 100", 9, "is a placeholder that can render any text"},
		{"placeholder subcommand in multi", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", "  a:\n    redis:\n      multi:\n        - [SET, k, v]\n        - [SCRIPT, \"{bytes:5}\"]", "a: 100", 13, "is a placeholder"},
		{"function load", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: [FUNCTION, LOAD, "#!lua name=x\nredis.register_function('f', function() return redis.call('FLUSHALL') end)"]}`, "a: 100", 9, "FUNCTION LOAD destroys data"},
		{"function load in multi", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", "  a:\n    redis:\n      multi:\n        - [function, load, \"x\"]", "a: 100", 12, "FUNCTION LOAD destroys data"},
		{"fcall", "", `  a: {redis: [FCALL, f, "0"]}`, "a: 100", 9, "write a script as"},
		{"eval_ro", "", `  a: {redis: [EVAL_RO, "return 1", "0"]}`, "a: 100", 9, "write a script as"},
		{"lua argv command", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call(ARGV[1])", args: [FLUSHALL]}}`, "a: 100", 9, "is not a string literal"},
		{"lua keys command", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.pcall(KEYS[1])", keys: [FLUSHALL]}}`, "a: 100", 9, "is not a string literal"},
		{"lua built command", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call('FLUSH' .. 'ALL')"}}`, "a: 100", 9, "is not a string literal"},
		{"lua escaped command", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call('FLUSH\\65LL')"}}`, "a: 100", 9, "is not a string literal"},
		{"lua alias", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "local c = redis.call\nreturn c(ARGV[1])", args: [FLUSHALL]}}`, "a: 100", 9, "is not a string literal"},
		{"lua table alias", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "local r = redis\nreturn r.call(ARGV[1])", args: [FLUSHALL]}}`, "a: 100", 9, "other than as redis.call"},
		{"lua indexed", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis['call'](ARGV[1])", args: [FLUSHALL]}}`, "a: 100", 9, "other than as redis.call"},
		{"lua loadstring", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return loadstring(ARGV[1])()", args: ["return redis.call('FLUSHALL')"]}}`, "a: 100", 9, "uses loadstring"},
		{"lua _G", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return _G['re' .. 'dis'].call(ARGV[1])", args: [FLUSHALL]}}`, "a: 100", 9, "uses _G"},
		{"lua config subcommand", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call('CONFIG', ARGV[1], 'maxmemory', '1')", args: [SET]}}`, "a: 100", 9, "subcommand of redis.call(\"CONFIG\", ...) is not a string literal"},
		{"lua function load", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", `  a: {redis: {script: "return redis.call('function', 'load', ARGV[1])", args: [x]}}`, "a: 100", 9, "calls FUNCTION LOAD"},
		{"lua script line", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", "  a:\n    redis:\n      script: |\n        local x = 1\n        return redis.call(ARGV[1])\n      args: [FLUSHALL]", "a: 100", 11, "script line 2: the command of redis.call"},
		{"no form for kind", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {redis: [GET, "{key}"]}`, "a: 100", 11, "no template for target kind mongo"},
		{"mongo bad json", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {command: '{"find": "c", "filter": {"_id": "{key}"}'}}`, "a: 100", 9, "not valid JSON"},
		{"mongo unknown command", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {command: '{"eval": "1"}'}}`, "a: 100", 9, `command "eval" is not one`},
		{"mongo drop", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {command: '{"drop": "c"}'}}`, "a: 100", 9, "drop destroys data"},
		{"mongo placeholder", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {command: '{"find": "{who}"}'}}`, "a: 100", 9, "unknown placeholder {who}"},
		{"mongo operator in a key", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {command: '{"find": "c", "filter": {"{choice:a,$where}": "1"}}'}}`, "a: 100", 9, "can render a name starting with '$'"},
		{"mongo binding in a key", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\nbindings: {f: {key: uniform, prefix: \"$f\"}}\n", `  a: {mongo: {command: '{"find": "c", "filter": {"x{f}": 1, "{f}": 1}}'}}`, "a: 100", 9, "placeholder {f} is in a key"},
		{"mongo no command", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {mongo: {}}`, "a: 100", 9, "needs command:"},
		{"redis op on mongo", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", `  a: {redis: [GET, "{key}"]}
  b: {mongo: {command: '{"count": "c"}'}}`, "a: 50, b: 50", 12, "op a has no template for target kind mongo"},
		{"elastic bad body", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {path: "/i/_search", body: '{"query": '}}`, "a: 100", 9, "body is not valid JSON"},
		{"elastic bad bulk", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", "  a: {elastic: {path: /_bulk, body: \"{}\\n[1\"}}", "a: 100", 9, "body is not valid JSON"},
		{"elastic path", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {path: "i/_search"}}`, "a: 100", 9, "must start with /"},
		{"elastic method", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {method: PATCH, path: "/i/_doc/{key}"}}`, "a: 100", 9, `method "PATCH"`},
		{"elastic delete index", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {method: DELETE, path: "/products"}}`, "a: 100", 9, "deletes more than a document"},
		{"elastic delete climbs", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {method: DELETE, path: "/products/_doc/../../_all"}}`, "a: 100", 9, "climb out of its place"},
		{"elastic delete of two segments", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {method: DELETE, path: "/products/_doc/{key}/x"}}`, "a: 100", 9, "deletes more than a document"},
		{"elastic delete by query", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {path: "/i/_delete_by_query", body: "{}"}}`, "a: 100", 9, "_delete_by_query destroys data"},
		{"elastic placeholder", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", `  a: {elastic: {path: "/i/_doc/{id}"}}`, "a: 100", 9, "unknown placeholder {id}"},
		{"cql markers", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "SELECT v FROM ks.t WHERE k = ? AND c = ?", args: ["{key}"]}}`, "a: 100", 9, "2 ? markers and args has 1"},
		{"cql placeholder in statement", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "SELECT v FROM ks.t WHERE k = '{key}'"}}`, "a: 100", 9, "not placeholders"},
		{"cql drop", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "DROP TABLE ks.t"}}`, "a: 100", 9, "DROP destroys data"},
		{"cql truncate", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "truncate ks.t"}}`, "a: 100", 9, "TRUNCATE destroys data"},
		{"cql consistency", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "SELECT v FROM ks.t WHERE k = ?", args: ["{key}"], consistency: MOST}}`, "a: 100", 9, `unknown consistency "MOST"`},
		{"cql arg", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {statement: "SELECT v FROM ks.t WHERE k = ?", args: ["{int:9}"]}}`, "a: 100", 9, "write {int:lo:hi}"},
		{"cql no statement", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", `  a: {cql: {args: []}}`, "a: 100", 9, "needs statement:"},
		{"unknown mix op", "", `  a: {redis: [GET, "{key}"]}`, "b: 100", 11, `unknown op "b"`},
		{"slo unknown op", "", `  a: {redis: [GET, "{key}"]}`, "a: 100\nslo: {latency: {zz: {p99: 5ms}}}", 12, `unknown op "zz"`},
		{"binding both", "bindings: {u: {key: uniform, gen: \"int:1:2\"}}\n", `  a: {redis: [GET, "{u}"]}`, "a: 100", 2, "not both"},
		{"binding neither", "bindings: {u: {records: 5}}\n", `  a: {redis: [GET, "{u}"]}`, "a: 100", 2, "needs key:"},
		{"binding distribution", "bindings: {u: {key: gauss}}\n", `  a: {redis: [GET, "{u}"]}`, "a: 100", 2, `unknown distribution "gauss"`},
		{"binding gen", "bindings: {u: {gen: \"int:9:1\"}}\n", `  a: {redis: [GET, "{u}"]}`, "a: 100", 2, "above hi"},
		{"binding name", "bindings: {int: {gen: \"seq\"}}\n", `  a: {redis: [GET, "{key}"]}`, "a: 100", 2, "built-in placeholder"},
		{"binding records", "bindings: {u: {key: uniform, records: -1}}\n", `  a: {redis: [GET, "{u}"]}`, "a: 100", 2, "must be between 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "name: t\n" + tc.head + "keyspace: {records: 100}\n"
			for strings.Count(src, "\n") < 7 {
				src += "# pad\n"
			}
			src += "ops:\n" + tc.ops + "\nphases:\n  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {" + strings.SplitN(tc.mix, "\n", 2)[0] + "}}\n"
			if rest := strings.SplitN(tc.mix, "\n", 2); len(rest) == 2 {
				src += rest[1] + "\n"
			}
			ps := problemsOf(t, src)
			if !hasProblem(ps, tc.line, "", tc.want) {
				t.Errorf("want line %d: %q; got:\n%v\nin:\n%s", tc.line, tc.want, ps, src)
			}
		})
	}
}

// Destructive commands run against the embedded store, or anywhere the
// scenario allows them.
func TestCustomDestructiveAllowed(t *testing.T) {
	for _, head := range []string{"", "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nallow_destructive: true\n"} {
		src := "name: t\n" + head + `ops:
  wipe: {redis: [FLUSHDB]}
  tidy: {redis: {script: "return redis.call('FLUSHALL')"}}
  any: {redis: {script: "return redis.call(ARGV[1])", args: [FLUSHALL]}}
  conf: {redis: [CONFIG, "{choice:SET}", maxmemory, "0"]}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {wipe: 25, tidy: 25, any: 25, conf: 25}}
`
		if _, err := Parse("s.yaml", []byte(src)); err != nil {
			t.Errorf("%s: %v", head, err)
		}
	}
	ps := problemsOf(t, "name: t\ntarget: {kind: redis, url: \"redis://127.0.0.1:6379\"}\nops:\n  wipe: {redis: [FLUSHDB]}\nphases:\n  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {wipe: 100}}\n")
	if !hasProblem(ps, 4, "ops.wipe.redis", "op wipe: FLUSHDB destroys data") || !strings.Contains(ps.Error(), "allow_destructive: true") {
		t.Errorf("got %v", ps)
	}
}

// A sweep over the mix may weigh the phase's custom ops at each point.
func TestCustomOpsInSweepMix(t *testing.T) {
	_, err := Parse("s.yaml", []byte(`name: t
ops:
  a: {redis: [GET, "{key}"]}
  b: {redis: [SET, "{key}", "{bytes:8}"]}
phases:
  - name: sw
    kind: sweep
    duration: 1s
    rate: 100
    mix: {a: 100}
    sweep: {over: mix, points: [{b: 10}, {b: 50}]}
`))
	if err != nil {
		t.Fatal(err)
	}
}

// Scripts and subcommands the static check can vouch for pass without
// allow_destructive: literal commands, read-only subcommands (also as a
// choice) and the redis table's harmless fields.
func TestCustomRedisSafeForms(t *testing.T) {
	src := `name: t
target: {kind: redis, url: "redis://127.0.0.1:6379"}
ops:
  a: {redis: {script: "local v = redis.call('GET', KEYS[1]) -- redis.call(ARGV[1]) in a comment\nredis.log(redis.LOG_NOTICE, 'x')\nreturn redis.pcall(\"HINCRBY\", KEYS[1], ARGV[1], 1)", keys: ["{key}"], args: [f]}}
  b: {redis: [CONFIG, "{choice:GET,HELP}", maxmemory]}
  c: {redis: {script: "return redis.call('CONFIG', 'GET', ARGV[1])", args: [maxmemory]}}
  d: {redis: {script: "--[[ redis.call(KEYS[1]) ]] local s = [[redis.call(ARGV[1])]] return redis.sha1hex(s)"}}
  e: {redis: {multi: [[SET, "{key}", v], [FUNCTION, LIST]]}}
phases:
  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {a: 20, b: 20, c: 20, d: 20, e: 20}}
`
	if _, err := Parse("s.yaml", []byte(src)); err != nil {
		t.Fatal(err)
	}
}
