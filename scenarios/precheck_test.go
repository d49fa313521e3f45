package scenarios

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestHugeListsRefusedCheaply: a file of 200,000 sweep points (block
// or flow style, under the 4 MB cap) is refused from a count of its
// tokens or of its list's items before the strict decode: it allocated
// 280 MB (block) and 500 MB (flow) and took 2-4 s before.
func TestHugeListsRefusedCheaply(t *testing.T) {
	head := "name: big\nphases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n"
	var block, flow, under strings.Builder
	block.WriteString(head + "    sweep:\n      over: rate\n      points:\n")
	for i := 0; i < 200_000; i++ {
		fmt.Fprintf(&block, "        - {rate: %d}\n", i%9+1)
	}
	flow.WriteString(head + "    sweep: {over: rate, points: [{rate: 1}")
	for i := 1; i < 300_000; i++ {
		flow.WriteString(",{rate: 1}")
	}
	flow.WriteString("]}\n")
	// Under the token cap, over the list cap: refused on the node tree.
	under.WriteString(head + "    sweep:\n      over: rate\n      points:\n")
	for i := 0; i < 12_000; i++ {
		fmt.Fprintf(&under, "        - %d\n", i)
	}
	for _, c := range []struct {
		name, src string
		line      int
		sub       string
	}{
		{"block", block.String(), 12504, "more than 50000 YAML tokens"},
		{"flow", flow.String(), 6, "more than 50000 YAML tokens"},
		{"list", under.String(), 9, "a list with 12000 items; a list holds at most 1000"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if len(c.src) > MaxFileBytes {
				t.Fatalf("test file of %d bytes is over the size cap", len(c.src))
			}
			var err error
			n := allocated(func() { err = parseWithin(t, 10*time.Second, []byte(c.src)) })
			ps, _ := err.(Problems)
			if len(ps) != 1 || ps[0].Line != c.line || !strings.Contains(ps[0].Msg, c.sub) {
				t.Fatalf("problems %.300v, want one at line %d: %q", err, c.line, c.sub)
			}
			if n > 64<<20 {
				t.Errorf("refusing it allocated %d MB, want under 64 MB", n>>20)
			}
		})
	}
}

// TestManyProblemsCapped: a file with thousands of problems lists the
// first MaxProblems and says how many more there are.
func TestManyProblemsCapped(t *testing.T) {
	var b strings.Builder
	b.WriteString("phases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: rate\n      points:\n")
	for i := 0; i < 900; i++ {
		b.WriteString("        - {rate: 5}\n")
	}
	ps := problemsOf(t, b.String())
	if len(ps) != MaxProblems+1 || !strings.Contains(ps[MaxProblems].Msg, "and 799 more problems") {
		t.Errorf("%d problems, last %v", len(ps), ps[len(ps)-1])
	}
}

// TestSyntaxErrorLines: yaml.v3's parser errors name the line before
// the construct they are about; Parse names the construct's own line.
func TestSyntaxErrorLines(t *testing.T) {
	for _, c := range []struct {
		name, src string
		line      int
		sub       string
	}{
		{"unclosed flow mapping", "name: t\nphases:\n  - kind: steady\n    mix: {read: 100\n    duration: 1s\n", 4, "did not find expected ',' or '}'"},
		{"unclosed flow list", "name: t\nphases: [a, b\nslo: {}\n", 2, "did not find expected ',' or ']'"},
		{"bad block list", "name: t\nphases:\n  - kind: steady\n   bad: x\n    duration: 1s\n", 3, "did not find expected '-' indicator"},
		{"bad block mapping", "name: t\nkeyspace:\n    records: 5\n  prefix: x\n", 4, "did not find expected key"},
		{"end of file", "{name: t\n", 2, "did not find expected ',' or '}'"},
		// Scanner errors were right and stay so.
		{"tab", "name: t\n\tphases: 1\n", 2, "tab character"},
		{"unterminated string", "name: t\nphases:\n  - name: \"abc\n", 3, "end of stream"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ps := problemsOf(t, c.src)
			if len(ps) != 1 || ps[0].Line != c.line || !strings.Contains(ps[0].Msg, c.sub) {
				t.Errorf("got %v, want line %d: %q", ps, c.line, c.sub)
			}
		})
	}
}

// TestNotUTF8Line: a byte that is not UTF-8 is named with its line and
// column (yaml.v3 names neither).
func TestNotUTF8Line(t *testing.T) {
	ps := problemsOf(t, "name: t\nphases:\n  - kind: steady\n    name: caf\xe9\n")
	if len(ps) != 1 || ps[0].Line != 4 || !strings.Contains(ps[0].Msg, "byte 0xe9 at column 14 is not UTF-8") {
		t.Errorf("got %v", ps)
	}
	ps = problemsOf(t, "\xff\xfe\x00")
	if len(ps) != 1 {
		t.Errorf("UTF-16 BOM: %v", ps)
	}
}
