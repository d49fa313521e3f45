package scenarios

import (
	"fmt"
	"math"
)

// Memory bounds: what a run may hold, estimated from the scenario's
// arithmetic alone (nothing is allocated or expanded to check it). A
// run over them died with "fatal error: out of memory" (a 16 GiB
// record), and through the daemon took the daemon and a bystander run
// with it.
const (
	// MaxRecordBytes bounds a record: fields x field_bytes (a value
	// sweep's points too). Every op that writes or reads one moves it
	// whole through the client's buffers and, embedded, the store's.
	MaxRecordBytes = 64 << 20
	// MaxScanLength bounds keyspace.scan_length (records per scan).
	MaxScanLength = 100_000
	// MaxClientBatch bounds client.max_batch (ops per pipeline, bulk
	// request or batch).
	MaxClientBatch = 10_000
	// WorkerBytes is what one worker costs besides the data it moves:
	// its goroutine, request slots, and its connection's buffers on
	// both ends with the embedded target. Measured (peak RSS by
	// /usr/bin/time -v of `soakd run`, a 4 s closed-loop steady phase of
	// read 50 / update 50 on the embedded target, 1000 records): 100
	// workers 72.9 MiB, 1000 workers 265.5 MiB, 4000 workers 948.3 MiB:
	// 219 KiB a worker from 100 to 1000, 233 KiB from 1000 to 4000 (the
	// issue's 10,000 workers peaked at 2.2 GB, ~220 KB a worker). The
	// earlier 128 KiB undercounted by almost half, so the 4 GiB phase
	// bound allowed ~8 GB.
	WorkerBytes = 240 << 10
	// MaxPhaseBytes bounds a phase's estimated memory: concurrency x
	// (WorkerBytes + the bytes one worker has in flight).
	MaxPhaseBytes = 4 << 30
	// MaxEmbeddedBytes bounds the dataset of the embedded target, which
	// lives in soakd's own process (the daemon's too): the records loaded
	// or grown x (record + embeddedRecordOverhead + a field name each).
	MaxEmbeddedBytes       = 4 << 30
	embeddedRecordOverhead = 64
	embeddedFieldOverhead  = 32
)

// recordBytes is fields x field_bytes.
func recordBytes(fields, fieldBytes int) int64 { return int64(fields) * int64(fieldBytes) }

// iec writes n bytes in KiB, MiB or GiB.
func iec(n float64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.4g GiB", n/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.4g MiB", n/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.4g KiB", n/(1<<10))
	}
	return fmt.Sprintf("%.0f B", n)
}

// opBytes is the most one op of the mixes moves: a record, a scan's
// scan_length records, a search page (10 records), an lrange's elements
// (one field each).
func opBytes(mixes []map[string]float64, rec, fieldBytes, scanLen int64) (int64, string) {
	most, what := rec, "a record"
	for _, m := range mixes {
		for op, w := range m {
			if w <= 0 {
				continue
			}
			var n int64
			var why string
			switch op {
			case "scan":
				n, why = int64(scanLen)*rec, fmt.Sprintf("a scan of %d records", scanLen)
			case "search":
				n, why = 10*rec, "a search page of 10 records"
			case "lrange_100", "lrange_300", "lrange_500", "lrange_600":
				var k int64
				fmt.Sscanf(op, "lrange_%d", &k)
				n, why = k*fieldBytes, fmt.Sprintf("%s (%d fields)", op, k)
			}
			if n > most {
				most, what = n, why
			}
		}
	}
	return most, what
}

// openLoop says whether a phase's workers may send several due ops at
// once (a pipeline, bulk request or batch): any phase with a rate. A
// closed-loop worker has one op in flight.
func (p *Phase) openLoop() bool {
	if f := p.plan().openLoop; f != nil {
		return f(p)
	}
	return p.Rate > 0
}

// validateMemory checks the record size, scan_length, max_batch and
// each phase's estimated memory.
func (s *Scenario) validateMemory() []FieldError {
	var errs []FieldError
	add := func(path, format string, args ...any) {
		errs = append(errs, FieldError{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	f, fb := s.Record.Fields, s.Record.FieldBytes
	if f < 1 || fb < 1 {
		return nil // reported by Validate
	}
	rec := recordBytes(f, fb)
	if rec > MaxRecordBytes {
		add("record.field_bytes", "fields x field_bytes = %d x %d = %s per record exceeds %s", f, fb, iec(float64(rec)), iec(MaxRecordBytes))
	}
	if n := s.Keyspace.ScanLength; n > MaxScanLength {
		add("keyspace.scan_length", "%d records per scan exceeds %d", n, MaxScanLength)
	}
	if s.Target.Kind == KindEmbedded && rec <= MaxRecordBytes {
		n, path := s.Keyspace.Records, "keyspace.records"
		for i := range s.Phases {
			p := &s.Phases[i]
			if f := p.plan().growsTo; f != nil {
				if m, mp := f(p, fmt.Sprintf("phases[%d]", i)); m > n {
					n, path = m, mp
				}
			}
		}
		per := float64(rec + embeddedRecordOverhead + int64(f)*embeddedFieldOverhead)
		if total := float64(n) * per; n <= MaxRecords && total > MaxEmbeddedBytes {
			add(path, "records x (record %s + ~%d B of keys and field names) = %d x %s = %s exceeds the %s the embedded store may hold in soakd's process; use a real target or fewer records",
				iec(float64(rec)), int64(per)-rec, n, iec(per), iec(total), iec(MaxEmbeddedBytes))
		}
	}
	mb := s.Target.Client.MaxBatch
	if mb < 0 || mb > MaxClientBatch {
		add("target.client.max_batch", "must be between 1 and %d (omit it for the adapter's default), got %d", MaxClientBatch, mb)
		mb = 0
	}
	depth := mb
	if depth == 0 {
		depth = s.defaultMaxBatch() // open-loop workers send up to this many due ops at once
	}
	depth = max(depth, 1)
	scanLen := int64(min(s.Keyspace.ScanLength, MaxScanLength))
	for i := range s.Phases {
		p := &s.Phases[i]
		pp := fmt.Sprintf("phases[%d]", i)
		workers, workersPath := p.Concurrency, pp+".concurrency"
		recMax, fbMax := rec, int64(fb)
		var shapes []phaseShape
		if sf := p.plan().shapes; sf != nil {
			shapes = sf(p, pp)
		}
		for _, sh := range shapes {
			if sh.workers > workers {
				workers, workersPath = sh.workers, sh.workersPath
			}
			if sh.fieldBytes > 0 {
				r := recordBytes(f, sh.fieldBytes)
				if r > MaxRecordBytes {
					add(sh.fieldBytesPath, "fields x field_bytes = %d x %d = %s per record exceeds %s", f, sh.fieldBytes, iec(float64(r)), iec(MaxRecordBytes))
				}
				recMax, fbMax = max(recMax, r), max(fbMax, int64(sh.fieldBytes))
			}
		}
		if workers < 1 || workers > MaxConcurrency || recMax > MaxRecordBytes {
			continue // reported on its own
		}
		one, what := opBytes(p.Mixes(), recMax, fbMax, scanLen)
		unit, unitWhat := recMax, "records"
		if c, cwhat := s.customFlightBytes(p.Mixes()); c > 0 {
			if c > one {
				one, what = c, cwhat
			}
			if c > unit {
				unit, unitWhat = c, "custom ops of up to "+iec(float64(c))
			}
		}
		flight, flightWhat := one, what
		if p.openLoop() && depth > 1 && int64(depth)*unit > one {
			flight, flightWhat = int64(depth)*unit, fmt.Sprintf("a pipeline of %d %s", depth, unitWhat)
		}
		perWorker := float64(WorkerBytes) + float64(flight)
		idx, idxWhat := s.indexBytes(p)
		if total := float64(workers)*perWorker + float64(idx); total > MaxPhaseBytes || math.IsInf(total, 0) {
			add(workersPath, "concurrency x (worker %s + in flight %s: %s) = %d x %s%s = %s exceeds the %s a phase may hold; lower concurrency, record size, scan_length, client.max_batch or the custom ops' sizes%s",
				iec(WorkerBytes), iec(float64(flight)), flightWhat, workers, iec(perWorker), idxWhat, iec(total), iec(MaxPhaseBytes), replayHint(p, idx))
		}
	}
	return errs
}

// customFlightBytes is the most one custom op of the mixes holds in
// flight: each of its rendered arguments (path, body...) at its bound
// (the placeholders' longest values, at most max_bytes each), summed
// over its arguments, twice: the worker's render buffer and the
// client's encoded request. 0 when the mixes name no custom op.
func (s *Scenario) customFlightBytes(mixes []map[string]float64) (int64, string) {
	keyLen := len(s.Keyspace.Prefix) + 20
	bindingLen, isBinding := s.bindingLen, s.isBinding
	var most int64
	var what string
	for _, m := range mixes {
		for name, w := range m {
			c := s.Ops[name]
			if w <= 0 || c == nil {
				continue
			}
			for _, k := range c.Kinds() {
				if s.Target.Kind != "" && k != s.family() {
					continue
				}
				tpls := c.familyTemplates(k)
				var n int64
				for _, t := range tpls {
					segs, err := ParseTemplate(t, isBinding)
					if err != nil {
						continue // reported by the op's own checks
					}
					var l int64
					for _, g := range segs {
						l += g.MaxLen(keyLen, bindingLen)
					}
					if c.MaxBytes > 0 {
						l = min(l, int64(c.MaxBytes))
					}
					n += l
				}
				if n *= 2; n > most {
					most, what = n, fmt.Sprintf("custom op %s: %d arguments of up to %s, held twice (rendered and encoded)", name, len(tpls), iec(float64(n/2)))
				}
			}
		}
	}
	return most, what
}

// indexBytes is what phase p's inputs hold while it runs besides its
// workers: a replay's capture index (capture.EntryBytes an op, the ops
// counted by indexing a capture validate reads, else estimated from the
// file's size over its first lines' mean length) and the corpus's
// index, keys and terms (corpus.MaxIndexBytes, when records come from
// one). what is the sum's text for the error (" + ...").
func (s *Scenario) indexBytes(p *Phase) (n int64, what string) {
	if s.HasCorpus() {
		n += CorpusIndexBytes
		what += fmt.Sprintf(" + corpus index, keys and terms up to %s", iec(CorpusIndexBytes))
	}
	b, w := s.replayIndexBytes(p)
	return n + b, what + w
}

// The inputs' memory, as the packages that hold them state it (their
// tests fail when these differ from theirs): CaptureEntryBytes is
// capture.EntryBytes, what a capture's index holds per op;
// CorpusIndexBytes is corpus.MaxIndexBytes, the most a corpus's index,
// keys and terms hold. Kept here so that scenarios imports neither.
const (
	CaptureEntryBytes = 22
	CorpusIndexBytes  = (1<<20)*16 + 64<<20 + 200_000*96
)
