package scenarios

import (
	"strings"
	"testing"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// TestNamesRefusedUpFront: a name that would break latency.hlog,
// histograms.hlog, a file name or a label is refused with its line
// before anything runs ("steady one" ran for its whole duration and
// then exited 3 with histograms.hlog missing; a comma made latency.hlog
// unreadable).
func TestNamesRefusedUpFront(t *testing.T) {
	steady := func(name string) string {
		return "name: t\nphases:\n  - kind: steady\n    duration: 1s\n    mix: {read: 100}\n    name: " + name + "\n"
	}
	sweep := func(label string) string {
		return "name: t\nphases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: rate\n      points:\n        - {rate: 10, label: " + label + "}\n"
	}
	for _, c := range []struct {
		name, src, field, sub string
		line                  int
	}{
		{"space", steady(`"steady one"`), "phases[0].name", "a space", 6},
		{"comma", steady(`"a,b"`), "phases[0].name", "a comma", 6},
		{"slash", steady(`a/b`), "phases[0].name", `a '/'`, 6},
		{"backslash", steady(`'a\b'`), "phases[0].name", `a '\\'`, 6},
		{"tab", steady(`"a\tb"`), "phases[0].name", "a space or line break", 6},
		{"newline", steady(`"a\nb"`), "phases[0].name", "a space or line break", 6},
		{"NUL", steady(`"a\0b"`), "phases[0].name", "non-printing character U+0000", 6},
		{"zero width", steady(`"a\u200bb"`), "phases[0].name", "non-printing character U+200B", 6},
		{"dot-dot", steady(`..`), "phases[0].name", "a directory", 6},
		{"long", steady(strings.Repeat("x", 200)), "phases[0].name", "at most 128", 6},
		{"scenario name", "name: a b\nphases: [{kind: load}]\n", "name", "a space", 1},
		{"scenario slash", "name: ../../etc\nphases: [{kind: load}]\n", "name", "'/'", 1},
		{"sweep label comma", sweep(`"x,y"`), "phases[0].sweep.points[0].label", "a comma", 9},
		{"sweep label slash", sweep(`x/y`), "phases[0].sweep.points[0].label", "'/'", 9},
	} {
		t.Run(c.name, func(t *testing.T) {
			if ps := problemsOf(t, c.src); !hasProblem(ps, c.line, c.field, c.sub) {
				t.Errorf("want s.yaml:%d %s %q, got\n%v", c.line, c.field, c.sub, ps)
			}
		})
	}
	// A name derived from the file name says so.
	_, err := Parse("my scenario.yaml", []byte("phases: [{kind: load}]\n"))
	if err == nil || !strings.Contains(err.Error(), "comes from the file name") {
		t.Errorf("derived name: %v", err)
	}
}

// TestNamesAllowedWriteHlogTags: every name the check allows is a tag
// hdrhistogram-go writes and reads back whole (the check is not
// stricter than needed: dots, colons, plus signs, other scripts).
func TestNamesAllowedWriteHlogTags(t *testing.T) {
	for _, name := range []string{"steady", "steady-1", "aof:everysec", "update-10+read-5", "p99.9_phase", "Größe", "速度", "a=b", `"q"`, "x#y"} {
		if msg := badName(name); msg != "" {
			t.Errorf("%q refused: %s", name, msg)
			continue
		}
		var buf strings.Builder
		w := hdr.NewHistogramLogWriter(&buf)
		h := hdr.New(1, 1e9, 3)
		_ = h.RecordValue(5)
		h.SetTag(name + "/" + name + ".read.latency")
		if err := w.OutputIntervalHistogram(h); err != nil {
			t.Errorf("%q: hlog writer: %v", name, err)
			continue
		}
		got, err := hdr.NewHistogramLogReader(strings.NewReader(buf.String())).NextIntervalHistogram()
		if err != nil || got == nil || got.Tag() != name+"/"+name+".read.latency" {
			t.Errorf("%q: read back %v, %v", name, got, err)
		}
	}
	for _, name := range []string{"a b", "a,b"} {
		h := hdr.New(1, 1e9, 3)
		h.SetTag(name + ".read.latency")
		if err := hdr.NewHistogramLogWriter(&strings.Builder{}).OutputIntervalHistogram(h); err == nil {
			t.Errorf("the hlog writer takes %q: the check may be stricter than needed", name)
		}
	}
}
