package scenarios

import (
	"strings"
	"testing"
)

// growthInsertYAML is a growth phase (its growth: block on line 10)
// whose growth.insert is INSERT, after target HEAD and ops OPS.
func growthInsertYAML(head, ops, insert string) string {
	src := "name: t\n" + head + "keyspace: {records: 1000}\n" + ops
	for strings.Count(src, "\n") < 6 {
		src += "# pad\n"
	}
	return src + `phases:
  - name: g
    kind: growth
    growth:
      insert: ` + insert + `
      batch: 100
      measure_for: 1s
    mix: {get: 100}
`
}

func TestGrowthInsertValid(t *testing.T) {
	for _, tc := range []struct{ head, ops string }{
		{"", "ops:\n  put: {redis: [HSET, \"p:{seq}\", name, \"{text:1}\"]}\n"},
		{"target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n", "ops:\n  put: {redis: {script: \"return redis.call('GET', KEYS[1])\", keys: [\"{key}\"]}}\n"},
		{"target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", "ops:\n  put: {mongo: {command: '{\"insert\": \"c\", \"documents\": [{\"_id\": \"{key}\"}]}'}}\n"},
		{"target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", "ops:\n  put: {elastic: {method: PUT, path: \"/i/_doc/{key}\", body: '{\"n\": {seq}}'}}\n"},
		{"target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", "ops:\n  put: {cql: {statement: \"INSERT INTO ks.t (k) VALUES (?)\", args: [\"{key}\"]}}\n"},
	} {
		src := growthInsertYAML(tc.head, tc.ops, "put")
		sc, err := Parse("s.yaml", []byte(src))
		if err != nil {
			t.Errorf("%v\nin:\n%s", err, src)
			continue
		}
		if sc.Phases[0].Growth.Insert != "put" {
			t.Errorf("insert %q", sc.Phases[0].Growth.Insert)
		}
	}
}

// Every wrong growth.insert is refused with the line of the insert: key.
func TestGrowthInsertErrors(t *testing.T) {
	const line = 11
	redis := "target: {kind: redis, url: \"redis://127.0.0.1:6379\"}\n"
	for _, tc := range []struct {
		name, head, ops, insert, want string
	}{
		{"no ops", "", "", "put", `unknown op "put": growth.insert names a custom op, and the scenario declares none`},
		{"unknown op", "", "ops:\n  put: {redis: [SET, \"{key}\", v]}\n", "pt", `unknown op "pt" (the scenario's ops: put)`},
		{"built-in", "", "ops:\n  put: {redis: [SET, \"{key}\", v]}\n", "set", `"set" is a built-in op`},
		{"no form for kind", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", "ops:\n  put: {redis: [SET, \"{key}\", v]}\n", "put", "op put has no template for target kind mongo (it has: redis)"},
		{"redis read", redis, "ops:\n  put: {redis: [HGETALL, \"{key}\"]}\n", "put", "op put only reads"},
		{"redis read multi", redis, "ops:\n  put: {redis: {multi: [[GET, \"{key}\"], [TTL, \"{key}\"]]}}\n", "put", "op put only reads"},
		{"redis read, no kind", "", "ops:\n  put: {redis: [get, \"{key}\"]}\n", "put", "op put only reads"},
		{"mongo find", "target: {kind: mongo, url: \"mongodb://127.0.0.1:27017\"}\n", "ops:\n  put: {mongo: {command: '{\"find\": \"c\", \"filter\": {\"_id\": \"{key}\"}}'}}\n", "put", "op put only reads"},
		{"elastic search", "target: {kind: elastic, url: \"http://127.0.0.1:9200\"}\n", "ops:\n  put: {elastic: {path: \"/i/_search\", body: '{\"size\": 1}'}}\n", "put", "op put only reads"},
		{"cql select", "target: {kind: cql, url: \"cql://127.0.0.1/ks\"}\n", "ops:\n  put: {cql: {statement: \"SELECT v FROM ks.t WHERE k = ?\", args: [\"{key}\"]}}\n", "put", "op put only reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := growthInsertYAML(tc.head, tc.ops, tc.insert)
			ps := problemsOf(t, src)
			if !hasProblem(ps, line, "phases[0].growth.insert", tc.want) {
				t.Errorf("want line %d: %q; got:\n%v\nin:\n%s", line, tc.want, ps, src)
			}
		})
	}
}
