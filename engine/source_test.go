package engine

import (
	"bytes"
	"context"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// A mix stream's position is enough to pick its stream up again: a
// second stream set to the first's position (its random state) fills
// the next indices with the same ops, keys and values.
func TestMixStreamPosition(t *testing.T) {
	sc := scenario(t, `
keyspace: {records: 1000, distribution: uniform}
record: {fields: 2, field_bytes: 8}
phases:
  - {name: s, kind: steady, rate: 100, duration: 1s, mix: {read: 50, update: 50}}
`)
	p, err := Prepare(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	src, err := newMixSource(p, p.inserted(), nil)
	if err != nil {
		t.Fatal(err)
	}
	mix, err := scenarios.NewMix(sc.Phases[0].Mix, p.ops)
	if err != nil {
		t.Fatal(err)
	}
	seg := &segment{Phase: "s", Mix: mix, Source: src, Seed: 7}
	fill := func(st opStream, from, to uint64) []string {
		var out []string
		var req targets.Request
		for i := from; i < to; i++ {
			op := st.fill(0, &req, i)
			line := p.ops.Name(op) + " " + string(req.Key)
			for _, f := range req.Fields {
				line += " " + f.Name + "=" + string(f.Value)
			}
			out = append(out, line)
		}
		return out
	}
	a := src.stream(seg, 0, 1)
	fill(a, 0, 10)
	pos := a.position(nil)
	if pos.next != 10 || len(pos.rng) == 0 {
		t.Fatalf("position %+v, want next 10 and a random state", pos)
	}
	want := fill(a, 10, 20)
	b := src.stream(seg, 0, 1).(*mixStream)
	if err := b.pcg.UnmarshalBinary(pos.rng); err != nil {
		t.Fatal(err)
	}
	got := fill(b, 10, 20)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("index %d: %q after the position, want %q", 10+i, got[i], want[i])
		}
	}
	if c := src.stream(seg, 0, 1); !bytes.Equal(c.position(nil).rng, src.stream(seg, 0, 1).position(nil).rng) {
		t.Error("two fresh streams of one worker start from different states")
	}
}

// A replay stream's position is the next index; its op kinds are the
// capture's, in order, looping.
func TestReplayStreamPosition(t *testing.T) {
	capPath := writeCapture(t, "ops.ndjson", []string{
		`{"ts": 1.0, "op": "SET", "args": ["a", "1"]}`,
		`{"ts": 1.1, "op": "GET", "args": ["a"]}`,
	})
	sc := scenario(t, replayTarget+"phases:\n  - {name: r, kind: replay, source: "+capPath+", format: ndjson, loop: true, duration: 1s, concurrency: 1}\n")
	p, err := Prepare(context.Background(), sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rp := p.replays["r"]
	seg := &segment{Phase: "r", Mix: rp.mix, Source: rp}
	st := rp.stream(seg, 0, 1)
	var req targets.Request
	var got []string
	for i := uint64(0); i < 3; i++ {
		op := st.fill(0, &req, i)
		if seg.opFor(i) != op {
			t.Errorf("index %d: filled %s, the dispatcher's op is %s", i, p.ops.Name(op), p.ops.Name(seg.opFor(i)))
		}
		got = append(got, p.ops.Name(op))
	}
	if got[0] != "SET" || got[1] != "GET" || got[2] != "SET" {
		t.Errorf("ops %v, want SET GET SET (looping)", got)
	}
	if pos := st.position(nil); pos.next != 3 || pos.rng != nil {
		t.Errorf("position %+v, want next 3 and no random state", pos)
	}
}
