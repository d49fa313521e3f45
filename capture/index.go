package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
)

// Entry is one op of a capture: when it was captured (ns after the
// first op), its latency group, its db, and N, its number in the file
// (from 0), by which the Index finds its line. 16 bytes; the lines'
// offsets and lengths are packed apart (locs.go), about 3 bytes an op.
type Entry struct {
	TS    int64
	N     uint32
	Group uint16
	DB    uint16
}

// EntryBytes is what the index holds per op: an Entry and its packed
// line location (a gap and a length of one or two bytes each, and a
// block start per 64 ops), with the entries' capacity estimated from the
// first ops' line length (5% over). Measured by BenchmarkBuild
// (retained-B/op-indexed, 100,000 MONITOR lines of ~95 bytes): 20.8,
// where the []Entry of 24-byte entries grown by append held 29.5 and
// allocated 141 bytes an op on the way (now 24.5).
const EntryBytes = 22

// IndexBytes is what the index of a capture of ops ops holds.
func IndexBytes(ops int64) int64 { return ops * EntryBytes }

// Index is a capture indexed for replay.
type Index struct {
	Entries []Entry
	// Groups names the latency groups by Entry.Group.
	Groups []string
	// Folded lists the command names grouped under "other" because the
	// process's op table could not name them all (most frequent kept).
	Folded []string
	// Skipped counts the ops not replayable, by command name.
	Skipped map[string]int64
	// ScriptLines counts MONITOR's lines a script issued ("[db lua]"),
	// not replayed: the EVAL or FCALL that ran the script is.
	ScriptLines int64
	// Lines is how many lines the capture has (within Size).
	Lines int64
	// Size is the capture's size when it was indexed: the replay reads
	// no byte past it.
	Size int64
	// DBs lists the dbs the replayed ops were captured in, ascending.
	DBs []int

	locs locs // each op's line, by Entry.N
}

// Options says how to index a capture.
type Options struct {
	Format Format
	// ByLine groups each op by its line ("line-N") instead of by its
	// command name.
	ByLine bool
	// MaxGroups caps the groups; past it the least frequent command
	// names share the group "other" (ByLine: an error).
	MaxGroups int
	// Dialect reads the ops of the store replayed on (nil: Redis, with
	// Skip).
	Dialect Dialect
	// KeyPrefix is the replay's key_prefix (the dialect refuses an op
	// it cannot keep off the store's own data).
	KeyPrefix string
	// Skip reports whether a Redis command (upper case) cannot be
	// replayed (when Dialect is nil).
	Skip func(cmd string) bool
	// Refuse returns why command args may not be replayed ("" if it may).
	Refuse func(args []string) string
	// MaxIndexBytes bounds the index (IndexBytes of its ops): a capture
	// of more ops is refused at the op that passes it (0: no bound).
	MaxIndexBytes int64
	// KeepsDBs says the store replayed on keeps a capture's dbs apart
	// (the engine gives each db's keys a prefix of its own); without
	// it a capture of ops in several dbs cannot be replayed.
	KeepsDBs bool
}

// OtherGroup is the latency group of the commands past MaxGroups.
const OtherGroup = "other"

// MaxLine is the longest line a capture may have.
const MaxLine = 64 << 20

// Build indexes the first size bytes of r in one pass. A line that does
// not parse is an error naming its line number.
func Build(r io.Reader, size int64, o Options) (*Index, error) {
	if size <= 0 {
		return nil, errors.New("the capture is empty")
	}
	br := bufio.NewReaderSize(io.LimitReader(r, size), 64<<10)
	p := NewParser(o.Format)
	ix := &Index{Skipped: map[string]int64{}, Size: size}
	byName := map[string]uint16{}
	d := o.Dialect
	if d == nil {
		d = CommandDialect(o.Skip)
	}
	dbs := map[int]bool{}
	var counts []int64
	var first, last int64
	// Capacity: after the first estimateAfter ops the file's size over
	// their mean line gives the rest, one allocation instead of growth
	// by copying (a 30M-op capture's index peaked at twice its size).
	const estimateAfter = 4096
	var off int64
	var long []byte
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			long = append(long[:0], line...)
			for errors.Is(err, bufio.ErrBufferFull) && len(long) <= MaxLine {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			if len(long) > MaxLine {
				return nil, fmt.Errorf("line %d: longer than %d bytes", ix.Lines+1, MaxLine)
			}
			line = long
		}
		if err != nil && err != io.EOF {
			// A read that failed or was stopped (SIGINT: regfile.Reader's
			// cause) ends the index; the torn line is not parsed.
			return nil, err
		}
		if len(line) == 0 && err != nil {
			break
		}
		ix.Lines++
		lineOff, n := off, len(line)
		off += int64(n)
		body := line
		if len(body) > 0 && body[len(body)-1] == '\n' {
			body = body[:len(body)-1]
		}
		if len(bytes.TrimSpace(body)) == 0 {
			continue
		}
		op, perr := p.Parse(body)
		if errors.Is(perr, errSkipLine) && ix.Lines == 1 {
			continue
		}
		if perr != nil {
			if errors.Is(perr, errSkipLine) {
				perr = errors.New(`"OK" is only expected as MONITOR's first line`)
			}
			return nil, fmt.Errorf("line %d: %w", ix.Lines, perr)
		}
		if op.Script {
			ix.ScriptLines++
			continue
		}
		cmd, skip, cerr := d.Check(op, o.KeyPrefix)
		if cerr != nil {
			return nil, fmt.Errorf("line %d: %w", ix.Lines, cerr)
		}
		if skip {
			ix.Skipped[cmd]++
			continue
		}
		if o.Refuse != nil {
			s := make([]string, len(op.Args))
			for i, a := range op.Args {
				s[i] = string(a)
			}
			if why := o.Refuse(s); why != "" {
				return nil, fmt.Errorf("line %d: %s", ix.Lines, why)
			}
		}
		name := cmd
		if o.ByLine {
			name = fmt.Sprintf("line-%d", ix.Lines)
		}
		g, ok := byName[name]
		if !ok {
			if why := badGroupName(name); why != "" {
				return nil, fmt.Errorf("line %d: command name %q %s: it names the op's latency group, and the latency log's tags cannot hold it", ix.Lines, name, why)
			}
			if len(ix.Groups) >= 1<<16-1 {
				return nil, fmt.Errorf("line %d: more than %d groups", ix.Lines, 1<<16-1)
			}
			g = uint16(len(ix.Groups))
			byName[name] = g
			ix.Groups = append(ix.Groups, name)
			counts = append(counts, 0)
		}
		counts[g]++
		if len(ix.Entries) == 0 {
			first = op.TS
		}
		ts := op.TS - first
		if ts < last {
			ts = last // out of order (an NDJSON log): keep the schedule monotonic
		}
		last = ts
		if !dbs[op.DB] {
			dbs[op.DB] = true
			ix.DBs = append(ix.DBs, op.DB)
		}
		if len(ix.Entries) == estimateAfter {
			est := min(int64(float64(size)/float64(off)*float64(len(ix.Entries))*1.05), size/2, maxOps)
			if more := est - int64(len(ix.Entries)); more > 0 {
				ix.Entries = slices.Grow(ix.Entries, int(more))
				ix.locs.grow(more)
			}
		}
		if len(ix.Entries) >= maxOps {
			return nil, fmt.Errorf("line %d: more than %d ops; split the capture", ix.Lines, maxOps)
		}
		if o.MaxIndexBytes > 0 && IndexBytes(int64(len(ix.Entries)+1)) > o.MaxIndexBytes {
			return nil, fmt.Errorf("line %d: op %d: the capture's index would pass %d bytes (%d B an op), the memory a phase may hold; replay a shorter capture", ix.Lines, len(ix.Entries)+1, o.MaxIndexBytes, EntryBytes)
		}
		ix.locs.add(lineOff, len(body))
		ix.Entries = append(ix.Entries, Entry{N: uint32(len(ix.Entries)), TS: ts, Group: g, DB: uint16(op.DB)})
		if err != nil {
			break
		}
	}
	if len(ix.Entries) == 0 {
		return nil, fmt.Errorf("no op to replay in %d lines%s", ix.Lines, ix.skippedNote())
	}
	sort.Ints(ix.DBs)
	if o.MaxGroups > 0 && len(ix.Groups) > o.MaxGroups {
		if o.ByLine {
			return nil, fmt.Errorf("group: line gives each of the %d ops a latency group of its own; at most %d fit (group by command instead)", len(ix.Entries), o.MaxGroups)
		}
		ix.fold(counts, o.MaxGroups)
	}
	return ix, nil
}

// badGroupName says why name cannot be a latency group's name ("" if
// it can): its tags ("phase.NAME.latency") are fields of the interval
// log's comma-separated lines and of the Prometheus label, so a comma,
// a space or a byte that is not printable ASCII would lose the run's
// latencies when they are written, after the whole capture was sent.
func badGroupName(name string) string {
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case c == ',':
			return "holds a comma"
		case c == ' ':
			return "holds a space"
		case c < 0x20 || c >= 0x7f:
			return fmt.Sprintf("holds the byte 0x%02x (not printable ASCII)", c)
		}
	}
	return ""
}

// fold keeps the max-1 most frequent groups and puts the rest in "other".
func (ix *Index) fold(counts []int64, max int) {
	order := make([]int, len(ix.Groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] > counts[order[b]] })
	remap := make([]uint16, len(ix.Groups))
	var groups []string
	for rank, g := range order {
		if rank < max-1 {
			remap[g] = uint16(len(groups))
			groups = append(groups, ix.Groups[g])
		} else {
			remap[g] = uint16(max - 1)
			ix.Folded = append(ix.Folded, ix.Groups[g])
		}
	}
	groups = append(groups, OtherGroup)
	sort.Strings(ix.Folded)
	for i := range ix.Entries {
		ix.Entries[i].Group = remap[ix.Entries[i].Group]
	}
	ix.Groups = groups
}

// Shuffle permutes which op each slot sends (seeded), keeping the slots'
// timestamps: the captured timing with the ops in random order, like
// memtier's random replay.
func (ix *Index) Shuffle(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	e := ix.Entries
	rng.Shuffle(len(e), func(i, j int) {
		e[i].N, e[j].N = e[j].N, e[i].N
		e[i].Group, e[j].Group = e[j].Group, e[i].Group
		e[i].DB, e[j].DB = e[j].DB, e[i].DB
	})
}

// Span is the time from the first op to the last.
func (ix *Index) Span() int64 { return ix.Entries[len(ix.Entries)-1].TS }

// SkippedList lists the skipped commands as "NAME xN", sorted by name.
func (ix *Index) SkippedList() []string {
	names := make([]string, 0, len(ix.Skipped))
	for n := range ix.Skipped {
		names = append(names, n)
	}
	sort.Strings(names)
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = fmt.Sprintf("%s x%d", n, ix.Skipped[n])
	}
	return out
}

func (ix *Index) skippedNote() string {
	list := ix.SkippedList()
	if ix.ScriptLines > 0 {
		list = append(list, fmt.Sprintf("%d lines a script issued ([db lua])", ix.ScriptLines))
	}
	if len(list) == 0 {
		return ""
	}
	return " (skipped: " + strings.Join(list, ", ") + ")"
}

// Reader reads indexed ops back from the capture (one per worker: it
// owns its buffers).
type Reader struct {
	src  io.ReaderAt
	ix   *Index
	size int64
	p    *Parser
	line []byte
}

// NewReader reads the ops of ix from src.
func NewReader(src io.ReaderAt, ix *Index, f Format) *Reader {
	return &Reader{src: src, ix: ix, size: ix.Size, p: NewParser(f)}
}

// Read returns entry e's op (valid until the next Read). The line is
// read again from the file; a file changed since it was indexed gives
// an error, never a byte past the indexed size.
func (rd *Reader) Read(e Entry) (Op, error) {
	off, n, ok := rd.ix.locs.at(e.N)
	if !ok || off+int64(n) > rd.size {
		return Op{}, errors.New("capture: entry past the indexed size")
	}
	if cap(rd.line) < n {
		rd.line = make([]byte, n)
	}
	b := rd.line[:n]
	if _, err := rd.src.ReadAt(b, off); err != nil {
		return Op{}, fmt.Errorf("capture changed during the run: %w", err)
	}
	op, err := rd.p.Parse(b)
	if err != nil {
		return Op{}, fmt.Errorf("capture changed during the run: %w", err)
	}
	return op, nil
}
