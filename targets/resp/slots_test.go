package resp

import (
	"github.com/soakd/soakd/scenarios"
	"strings"
	"testing"
)

// KeySlot is Redis Cluster's: CRC16 of the hash tag or the whole key.
func TestKeySlot(t *testing.T) {
	for k, want := range map[string]int{"foo": 12182, "bar": 5061, "123456789": 12739, "{user1000}.following": KeySlot("user1000"), "a{}b": KeySlot("a{}b")} {
		if got := KeySlot(k); got != want {
			t.Errorf("KeySlot(%q) = %d, want %d", k, got, want)
		}
	}
	if KeySlot("{user1000}.following") != KeySlot("{user1000}.followers") {
		t.Error("one hash tag, two slots")
	}
}

// The keys of one op agree on a slot when their hash-slot text is the
// same placeholder for placeholder, or plain text of one slot; anything
// that draws independently, or hashes whole keys of different text,
// can land in two slots.
func TestSlotConflict(t *testing.T) {
	sc := &scenarios.Scenario{
		Keyspace: scenarios.Keyspace{Prefix: "user"},
		Bindings: map[string]scenarios.Binding{
			"user":  {Key: scenarios.DistUniform, Records: 10},
			"pre":   {Key: scenarios.DistUniform, Records: 10, Prefix: "{tag}"},
			"color": {Gen: "choice:red,green"},
		},
	}
	for _, c := range []struct {
		keys     []string
		conflict bool
	}{
		{[]string{"cart:{user}"}, false},
		{[]string{"a:{{user}}", "b:{{user}}"}, false},
		{[]string{"a:{{key}}", "b:{{key}}", "c:{{key}}"}, false},
		{[]string{"{{user}}", "x:{{user}}:y"}, false},
		{[]string{"a:{{color}}", "b:{{color}}"}, false},
		{[]string{"{key}", "{key}"}, false},
		{[]string{"{{x}}a", "{{x}}b"}, false},                             // literal tag {x}
		{[]string{"{user1000}.following", "{user1000}.followers"}, false}, // text, one slot
		{[]string{"a:{user}", "b:{user}"}, true},                          // whole keys hashed, different text
		{[]string{"a:{{{user}}", "b:{{{key}}"}, true},
		{[]string{"a:{{{int:1:9}}", "b:{{{int:1:9}}"}, true}, // two independent draws
		{[]string{"foo", "bar"}, true},
		{[]string{"x:{pre}", "y:{key}"}, false}, // a binding prefix with a brace: left to the server
	} {
		a, b, conflict := SlotConflict(sc, c.keys)
		if conflict != c.conflict {
			t.Errorf("%q: conflict %v (%q, %q), want %v", c.keys, conflict, a, b, c.conflict)
		}
	}
	err := CrossSlotError("pair", "a:{user}", "b:{user}")
	if !strings.Contains(err.Error(), "CROSSSLOT") || !strings.Contains(err.Error(), "{{{user}}") {
		t.Errorf("message: %v", err)
	}
}
