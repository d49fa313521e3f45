package scenarios

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"gopkg.in/yaml.v3"
)

// shippedDocs is every shipped scenario as a node tree, and the scalar
// values in each (document order).
func shippedDocs(tb testing.TB) ([]*yaml.Node, [][]*yaml.Node) {
	files, _ := filepath.Glob("*.yaml")
	var docs []*yaml.Node
	var scalars [][]*yaml.Node
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			tb.Fatal(err)
		}
		var vals []*yaml.Node
		var walk func(n *yaml.Node)
		walk = func(n *yaml.Node) {
			if n.Kind == yaml.ScalarNode {
				vals = append(vals, n)
			}
			for _, c := range n.Content {
				walk(c)
			}
		}
		walk(&doc)
		docs, scalars = append(docs, &doc), append(scalars, vals)
	}
	if len(docs) == 0 {
		tb.Fatal("no shipped scenarios")
	}
	return docs, scalars
}

// FuzzParseValues fuzzes the values of the shipped scenarios: each
// input replaces two scalars (keys or values) of one shipped scenario
// and re-encodes it, so every input is well-formed YAML of a real
// scenario and reaches the strict decoder and validation (FuzzParse's
// byte mutations mostly end at the YAML parser). Parse must not panic,
// must return Problems or a scenario, and a scenario it accepts must
// validate again unchanged.
func FuzzParseValues(f *testing.F) {
	docs, scalars := shippedDocs(f)
	for i := range docs {
		f.Add(uint16(i), uint16(3), "1e-11", uint16(7), "steady one")
		f.Add(uint16(i), uint16(11), "16777216", uint16(9), "1000")
		f.Add(uint16(i), uint16(5), "a,b", uint16(2), "cql://h:99999/ks")
	}
	f.Fuzz(func(t *testing.T, doc, at1 uint16, v1 string, at2 uint16, v2 string) {
		d := int(doc) % len(docs)
		vals := scalars[d]
		n1, n2 := vals[int(at1)%len(vals)], vals[int(at2)%len(vals)]
		old1, old2 := *n1, *n2
		defer func() { *n1, *n2 = old1, old2 }()
		for _, c := range []struct {
			n *yaml.Node
			v string
		}{{n1, v1}, {n2, v2}} {
			c.n.Value, c.n.Tag, c.n.Style = c.v, "", 0
		}
		data, err := yaml.Marshal(docs[d])
		if err != nil {
			return // a value yaml.v3 cannot write back (not a scenario problem)
		}
		sc, err := Parse("fuzz.yaml", data)
		if err != nil {
			var ps Problems
			if !errors.As(err, &ps) || len(ps) == 0 {
				t.Fatalf("error is not a non-empty Problems: %v", err)
			}
			return
		}
		if sc == nil {
			t.Fatal("nil scenario without error")
		}
		if fes := sc.Validate(); len(fes) > 0 {
			t.Fatalf("accepted scenario does not validate again: %v\n%s", fes, data)
		}
	})
}

// TestRedactURLAtInScheme: an "@" before "://" is no userinfo (found
// by FuzzParse: `url: red@s://` panicked in validation).
func TestRedactURLAtInScheme(t *testing.T) {
	for in, want := range map[string]string{
		"red@s://":                "red@s://",
		"red@s://u:pw@h/x":        "red@s://u:xxxxx@h/x",
		"a@b":                     "xxxxx@b",
		"redis://pw@h:6379/0?x=1": "redis://xxxxx@h:6379/0?x=1",
	} {
		if got := RedactURL(in); got != want {
			t.Errorf("RedactURL(%q) = %q, want %q", in, got, want)
		}
	}
	if _, err := Parse("s.yaml", []byte("target:\n  kind: redis\n  url: red@s://\nphases: [{kind: load}]\n")); err == nil {
		t.Error("url red@s:// accepted")
	}
}
