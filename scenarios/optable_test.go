package scenarios

import (
	"fmt"
	"strings"
	"testing"
)

// A daemon runs scenario after scenario, each with its own custom op
// names: every scenario's table starts empty, so 200 scenarios of
// distinct names (far more than MaxCustomOps in all) each get theirs.
func TestOpTablePerScenario(t *testing.T) {
	for i := range 200 {
		src := fmt.Sprintf(`name: s%d
keyspace: {records: 100}
ops:
  put_%d: {redis: [SET, "{key}", "v"]}
  get_%d: {redis: [GET, "{key}"], miss_when: nil}
phases:
  - {name: steady, kind: steady, rate: 100, duration: 1s, mix: {put_%d: 50, get_%d: 50}}
`, i, i, i, i, i)
		sc, err := Parse(fmt.Sprintf("s%d.yaml", i), []byte(src))
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		names, err := sc.OpTable()
		if err != nil {
			t.Fatalf("scenario %d: %v", i, err)
		}
		get, ok1 := names.Lookup(fmt.Sprintf("get_%d", i))
		put, ok2 := names.Lookup(fmt.Sprintf("put_%d", i))
		// Sorted by name: get_ first, then put_.
		if !ok1 || !ok2 || get != OpCustomBase || put != OpCustomBase+1 {
			t.Fatalf("scenario %d: get %v %v, put %v %v", i, get, ok1, put, ok2)
		}
		if names.Name(put) != fmt.Sprintf("put_%d", i) {
			t.Fatalf("scenario %d: %s", i, names.Name(put))
		}
		mix, err := NewMix(sc.Phases[0].Mix, names)
		if err != nil {
			t.Fatal(err)
		}
		if ops := mix.Ops(); len(ops) != 2 || ops[0] != get || ops[1] != put {
			t.Fatalf("scenario %d: mix ops %v", i, ops)
		}
	}
}

// Two scenarios' tables are apart: one name may be a different Op in
// each, one Op a different name, and neither sees the other's names.
func TestOpTablesApart(t *testing.T) {
	a := &Scenario{Ops: map[string]*CustomOp{"cart_add": {}, "zz": {}}}
	b := &Scenario{Ops: map[string]*CustomOp{"aa": {}, "cart_add": {}}}
	ta, err := a.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	tb, err := b.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	oa, _ := ta.Lookup("cart_add")
	ob, _ := tb.Lookup("cart_add")
	if oa != OpCustomBase || ob != OpCustomBase+1 {
		t.Errorf("cart_add: %d in a, %d in b", oa, ob)
	}
	if ta.Name(OpCustomBase) != "cart_add" || tb.Name(OpCustomBase) != "aa" {
		t.Errorf("first custom op: %s in a, %s in b", ta.Name(OpCustomBase), tb.Name(OpCustomBase))
	}
	if _, ok := ta.Lookup("aa"); ok {
		t.Error("a's table holds b's op aa")
	}
	// A built-in keeps its value and name in every table, and nil.
	var none *OpTable
	for _, tt := range []*OpTable{ta, tb, none} {
		if o, ok := tt.Lookup("get"); !ok || o != OpGet || tt.Name(OpGet) != "get" {
			t.Errorf("get: %v %v", o, ok)
		}
	}
	if _, ok := none.Lookup("cart_add"); ok {
		t.Error("the nil table holds a custom op")
	}
	if none.Name(OpCustomBase) == "cart_add" {
		t.Error("the nil table names a custom op")
	}
}

// A run grows a clone of its scenario's table (a replay's command
// groups) up to MaxCustomOps in all; the scenario's table is unchanged.
func TestOpTableCloneAndCap(t *testing.T) {
	sc := &Scenario{Ops: map[string]*CustomOp{"mine": {}}}
	base, err := sc.OpTable()
	if err != nil {
		t.Fatal(err)
	}
	run := base.Clone()
	for i := 1; i < MaxCustomOps; i++ {
		if _, err := run.Add(fmt.Sprintf("g%d", i)); err != nil {
			t.Fatalf("group %d: %v", i, err)
		}
	}
	if _, err := run.Add("one_more"); err == nil || !strings.Contains(err.Error(), "the most it can") {
		t.Errorf("past the cap: %v", err)
	}
	if o, err := run.Add("mine"); err != nil || o != OpCustomBase {
		t.Errorf("re-adding a held name: %v %v", o, err)
	}
	if base.Len() != 1 || run.Len() != MaxCustomOps {
		t.Errorf("base %d names, run %d", base.Len(), run.Len())
	}
}

// More than MaxCustomOps ops in one scenario is refused at ops:, with
// its line.
func TestOpTableScenarioCap(t *testing.T) {
	var b strings.Builder
	b.WriteString("name: many\nkeyspace: {records: 10}\nops:\n")
	for i := range MaxCustomOps + 1 {
		fmt.Fprintf(&b, "  op_%03d: {redis: [GET, \"{key}\"]}\n", i)
	}
	b.WriteString("phases:\n  - {name: s, kind: steady, rate: 10, duration: 1s, mix: {op_000: 100}}\n")
	_, err := Parse("many.yaml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "many.yaml:3") || !strings.Contains(err.Error(), "at most 64") {
		t.Errorf("65 ops: %v", err)
	}
}
