package scenarios

import (
	"strings"
	"testing"
	"time"
)

// TestMemoryBoundsRefused: what a run would allocate is computed from
// the scenario and refused with the product named, at the field's line
// (a 16 GiB record passed validate and `soakd run` died out of memory;
// through the daemon it took the daemon down).
func TestMemoryBoundsRefused(t *testing.T) {
	steady := func(extra string) string {
		return "phases:\n  - kind: steady\n    duration: 1s\n    mix: {read: 100}\n" + extra
	}
	for _, c := range []struct {
		name, src, field, sub string
		line                  int
	}{
		{"16 GiB record", "record:\n  fields: 1000\n  field_bytes: 16777216\n" + steady(""), "record.field_bytes",
			"fields x field_bytes = 1000 x 16777216 = 15.62 GiB per record exceeds 64 MiB", 3},
		{"value sweep point", "record: {fields: 100}\nphases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: value_size\n      points:\n        - {field_bytes: 100}\n        - {field_bytes: 16777216}\n",
			"phases[0].sweep.points[1].field_bytes", "100 x 16777216 = 1.562 GiB per record exceeds 64 MiB", 10},
		{"scan_length", "keyspace:\n  scan_length: 1000000\n" + steady(""), "keyspace.scan_length", "1000000 records per scan exceeds 100000", 2},
		{"max_batch", "target:\n  kind: redis\n  url: redis://h:6379\n  client:\n    max_batch: 1000000000\n" + steady(""), "target.client.max_batch", "between 1 and 10000", 5},
		{"workers x scans", "record: {fields: 10, field_bytes: 1000}\nkeyspace: {scan_length: 1000, records: 100}\nphases:\n  - kind: steady\n    duration: 1s\n    mix: {scan: 100}\n    concurrency: 1000\n",
			"phases[0].concurrency", "(worker 240 KiB + in flight 9.537 MiB: a scan of 1000 records) = 1000 x 9.771 MiB = 9.542 GiB exceeds the 4 GiB a phase may hold", 7},
		{"workers x pipeline", "record: {fields: 10, field_bytes: 10000}\nkeyspace: {records: 100}\n" + steady("    concurrency: 10000\n    rate: 1000\n"),
			"phases[0].concurrency", "in flight 24.41 MiB: a pipeline of 256 records) = 10000 x 24.65 MiB = 240.7 GiB", 7},
		{"sweep point workers", "record: {fields: 10, field_bytes: 100000}\nkeyspace: {records: 100}\nphases:\n  - kind: sweep\n    duration: 1s\n    mix: {read: 100}\n    sweep:\n      over: concurrency\n      points: [{concurrency: 10}, {concurrency: 5000}]\n",
			"phases[0].sweep.points[1].concurrency", "5000 x 1.188 MiB = 5.801 GiB", 9},
		// The reproduction: 200 arguments of 16 MiB validated, then
		// the run died of out-of-memory.
		{"custom op payload", "target: {kind: redis, url: 'redis://h:6379'}\nops:\n  big: {redis: [MSET" + strings.Repeat(`, "{bytes:16777216}"`, 200) + "], max_bytes: 16mb}\nphases:\n  - {kind: steady, duration: 1s, concurrency: 1, mix: {big: 100}}\n",
			"phases[0].concurrency", "in flight 6.25 GiB: custom op big: 201 arguments of up to 3.125 GiB, held twice (rendered and encoded)) = 1 x 6.25 GiB", 5},
		{"custom op pipeline", "target: {kind: redis, url: 'redis://h:6379'}\nops:\n  put: {redis: [SET, \"{key}\", \"{bytes:1048576}\"]}\nphases:\n  - {kind: steady, duration: 1s, rate: 1000, concurrency: 100, mix: {put: 100}}\n",
			"phases[0].concurrency", "a pipeline of 256 custom ops of up to 2 MiB) = 100 x 512.2 MiB", 5},
		{"embedded dataset", "record: {fields: 10, field_bytes: 1000}\nkeyspace:\n  records: 100000000\n" + steady(""), "keyspace.records",
			"100000000 x 10.14 KiB = 967.1 GiB exceeds the 4 GiB the embedded store may hold", 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() { err = parseWithin(t, 5*time.Second, []byte(c.src)) })
			ps, _ := err.(Problems)
			if !hasProblem(ps, c.line, c.field, c.sub) {
				t.Errorf("want s.yaml:%d %s %q, got\n%v", c.line, c.field, c.sub, err)
			}
			if n > 16<<20 {
				t.Errorf("refusing it allocated %d MB", n>>20)
			}
		})
	}
}

// TestMemoryBoundsAllow: the catalog and the largest counts the bounds
// name still pass: 10,000 closed-loop workers (2.3 GiB at 240 KiB
// each), a 64 MiB record with one worker, the default pipeline at 10,000
// open-loop workers of 1 KB records.
func TestMemoryBoundsAllow(t *testing.T) {
	for _, src := range []string{
		"phases:\n  - {kind: steady, duration: 1s, concurrency: 10000, mix: {read: 100}}\n",
		"record: {fields: 4, field_bytes: 16777216}\nkeyspace: {records: 10}\nphases:\n  - {kind: steady, duration: 1s, concurrency: 1, mix: {read: 100}}\n",
		"target: {kind: redis, url: 'redis://h:6379'}\nphases:\n  - {kind: steady, duration: 1s, rate: 1000, concurrency: 10000, mix: {read: 100}}\n",
	} {
		if _, err := Parse("s.yaml", []byte(src)); err != nil {
			t.Errorf("refused:\n%s\n%v", src, err)
		}
	}
	if !strings.Contains(iec(WorkerBytes), "240 KiB") {
		t.Errorf("WorkerBytes %s", iec(WorkerBytes))
	}
}
