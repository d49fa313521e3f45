// Package corpus reads a user's documents from a file (NDJSON, one
// document a line, or CSV with a header; either may be gzipped) for
// load, update and search ops. The file is streamed: one pass at Open
// counts the documents, checks every one, keeps a bounded offset index,
// the keys (when a key field is named) and a capped table of the text
// fields' term frequencies; Read then fetches one document by index
// with a positioned read. Nothing past the file's size at Open is ever
// read, so a file that grows during a run changes nothing.
package corpus

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/soakd/soakd/regfile"
)

// Format is how documents are laid out in the file.
type Format int

// Formats.
const (
	NDJSON Format = iota
	CSV
)

// FormatOf returns the format a file name implies (.csv, .csv.gz: CSV;
// anything else NDJSON).
func FormatOf(path string) Format {
	p := strings.TrimSuffix(strings.ToLower(path), ".gz")
	if strings.HasSuffix(p, ".csv") {
		return CSV
	}
	return NDJSON
}

// Field is one field of a document: nested values (objects, arrays)
// hold their compact JSON, numbers and booleans their JSON text.
type Field struct {
	Name  string
	Value []byte
	// JSON says Value is JSON text (a number, a boolean, an object or an
	// array) rather than a string's text, so a store that keeps JSON
	// documents can keep the value's type.
	JSON bool
}

// Options say what Open collects besides the documents.
type Options struct {
	// KeyField names the field whose value keys the document; "" keys
	// documents by their record number.
	KeyField string
	// TextFields name the fields whose words make the term table; with
	// none, no table is made.
	TextFields []string
	// MaxTerms caps the term table (DefaultMaxTerms when 0): terms first
	// seen once it is full are not counted.
	MaxTerms int
	// MaxKeyBytes caps the memory the keys take (DefaultMaxKeyBytes when 0).
	MaxKeyBytes int
	// MaxInflated caps a gzipped file's decompressed copy
	// (DefaultMaxInflated when 0); the free space of the temporary
	// directory, less FreeReserve, caps it too.
	MaxInflated int64
}

// MaxIndexBytes bounds what an open corpus holds besides its file: the
// offset index (maxIndex entries of 16 bytes), the keys (at most
// DefaultMaxKeyBytes, values and 4-byte ends) and the term table
// (DefaultMaxTerms words, a map entry of ~64 bytes and the word each,
// counted at termBytes). A scenario's memory bound counts it
// (scenarios.validateMemory).
const MaxIndexBytes = maxIndex*16 + DefaultMaxKeyBytes + DefaultMaxTerms*termBytes

// termBytes is a term table entry's cost: a map slot, a string header
// and a word.
const termBytes = 96

// Defaults for Options.
const (
	DefaultMaxTerms    = 200_000
	DefaultMaxKeyBytes = 64 << 20
	// maxIndex bounds the offset index: one entry every stride
	// documents, at most this many entries (8 MB).
	maxIndex = 1 << 20
	// maxLine is the longest NDJSON line read.
	maxLine = 16 << 20
	// DefaultMaxInflated is the largest a gzipped corpus may inflate to:
	// its decompressed copy goes to the temporary directory ($TMPDIR).
	DefaultMaxInflated = 8 << 30
	// FreeReserve is the free space a decompressed copy leaves in the
	// temporary directory.
	FreeReserve = 1 << 30
)

// ErrInflatedCap is wrapped by the error for a gzipped corpus that
// inflates past its cap (Options.MaxInflated or the free space).
var ErrInflatedCap = errors.New("inflates past its cap")

// Corpus is an opened document file. Read is safe for concurrent use.
type Corpus struct {
	name   string // the path as given, for messages
	f      *os.File
	tmp    string // decompressed copy of a .gz file, removed by Close
	size   int64  // bytes of (decompressed) data readable
	format Format
	header []string // CSV
	hdrEnd int64    // CSV: where the first document starts
	count  int64
	stride int64
	index  []entry // document k*stride starts at index[k]
	keys   []byte
	keyEnd []uint32
	terms  *termTable
	stats  map[string]*FieldStat
	order  []string // field names in first-seen order
	// ctx ends the pass at Open (nil after it: Read is not interrupted).
	ctx context.Context
}

type entry struct {
	off  int64
	line int64 // 1-based line of the document
}

// FieldStat summarises one field over the corpus.
type FieldStat struct {
	Docs     int64 // documents that have it
	Bytes    int64 // total value bytes
	MaxBytes int
}

// Name returns the corpus's path as given to Open.
func (c *Corpus) Name() string { return c.name }

// Count returns the number of documents.
func (c *Corpus) Count() int64 { return c.count }

// Fields returns the field names seen, in first-seen order.
func (c *Corpus) Fields() []string { return append([]string(nil), c.order...) }

// Stat returns the statistics of field name (nil when no document has it).
func (c *Corpus) Stat(name string) *FieldStat { return c.stats[name] }

// HasKeys reports whether documents are keyed by a field.
func (c *Corpus) HasKeys() bool { return c.keyEnd != nil }

// Close releases the file (and removes a decompressed copy).
func (c *Corpus) Close() error {
	err := c.f.Close()
	if c.tmp != "" {
		os.Remove(c.tmp)
	}
	return err
}

// Open is OpenContext without a context.
func Open(path string, o Options) (*Corpus, error) {
	return OpenContext(context.Background(), path, o)
}

// OpenContext reads path once through and returns the corpus; errors
// name the file and, for a bad document, its line. Only a regular file
// is opened (a FIFO is refused by name, not waited on), and the pass
// (and a gzipped file's decompression) stops within a chunk's read of
// ctx ending.
func OpenContext(ctx context.Context, path string, o Options) (_ *Corpus, err error) {
	if o.MaxTerms <= 0 {
		o.MaxTerms = DefaultMaxTerms
	}
	if o.MaxKeyBytes <= 0 {
		o.MaxKeyBytes = DefaultMaxKeyBytes
	}
	if o.MaxInflated <= 0 {
		o.MaxInflated = DefaultMaxInflated
	}
	c := &Corpus{name: path, format: FormatOf(path), stats: map[string]*FieldStat{}, ctx: ctx}
	defer func() { c.ctx = nil }()
	f, err := regfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("corpus %s: %w", path, err)
	}
	c.f, c.size = f, st.Size()
	defer func() {
		if err != nil {
			c.Close()
		}
	}()
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		if err := c.decompress(o.MaxInflated); err != nil {
			return nil, err
		}
	}
	if c.size == 0 {
		return nil, fmt.Errorf("corpus %s: the file is empty", path)
	}
	if len(o.TextFields) > 0 {
		c.terms = newTermTable(o.MaxTerms)
	}
	if err := c.scan(o); err != nil {
		return nil, err
	}
	if c.count == 0 {
		return nil, fmt.Errorf("corpus %s: no documents", path)
	}
	for _, tf := range o.TextFields {
		if c.stats[tf] == nil {
			return nil, fmt.Errorf("corpus %s: no document has the text field %q (fields: %s)", path, tf, strings.Join(c.order, ", "))
		}
	}
	if o.KeyField != "" {
		if err := c.checkDuplicateKeys(o.KeyField); err != nil {
			return nil, err
		}
	}
	if c.terms != nil && c.terms.len() == 0 {
		return nil, fmt.Errorf("corpus %s: the fields %s hold no words", path, strings.Join(o.TextFields, ", "))
	}
	if c.terms != nil {
		c.terms.freeze()
	}
	return c, nil
}

// decompress copies the gzipped file (up to its size at Open) into a
// temporary file, streaming, and reads that from then on. The copy is
// capped at maxInflated and at the temporary directory's free space
// less FreeReserve, whichever is less: a small file that inflates
// without end stops at the cap with an error saying so, not when the
// disk is full.
func (c *Corpus) decompress(maxInflated int64) error {
	zr, err := gzip.NewReader(regfile.Reader(c.ctx, io.LimitReader(c.f, c.size)))
	if err != nil {
		return fmt.Errorf("corpus %s: not gzip data: %w", c.name, err)
	}
	limit, why := maxInflated, fmt.Sprintf("%d MiB, the cap on a gzipped corpus's decompressed copy", maxInflated>>20)
	if free, ok := freeSpace(os.TempDir()); ok {
		if room := free - FreeReserve; room < limit {
			limit = max(room, 0)
			why = fmt.Sprintf("%d MiB, the free space in %s less %d MiB", limit>>20, os.TempDir(), FreeReserve>>20)
		}
	}
	tf, err := os.CreateTemp("", "soakd-corpus-*"+filepath.Ext(strings.TrimSuffix(c.name, filepath.Ext(c.name))))
	if err != nil {
		return fmt.Errorf("corpus %s: %w", c.name, err)
	}
	n, err := io.Copy(tf, io.LimitReader(zr, limit+1))
	if err == nil && n > limit {
		err = fmt.Errorf("it %w: more than %s (decompress it yourself and name the plain file)", ErrInflatedCap, why)
	}
	if err == nil {
		err = zr.Close()
	}
	if err != nil {
		tf.Close()
		os.Remove(tf.Name())
		return fmt.Errorf("corpus %s: decompressing: %w", c.name, err)
	}
	c.f.Close()
	c.f, c.tmp, c.size = tf, tf.Name(), n
	return nil
}

// docReader yields the documents of a section of the file.
type docReader struct {
	c    *Corpus
	br   *bufio.Reader
	cr   *csv.Reader
	line int64 // line of the last document read (NDJSON: physical line)
	off  int64 // offset after the last document
	base int64
}

func (c *Corpus) reader(off, line int64) *docReader {
	var sr io.Reader = io.NewSectionReader(c.f, off, c.size-off)
	if c.ctx != nil {
		sr = regfile.Reader(c.ctx, sr)
	}
	d := &docReader{c: c, line: line - 1, off: off, base: off}
	if c.format == CSV {
		d.cr = csv.NewReader(sr)
		d.cr.FieldsPerRecord = len(c.header)
		d.cr.ReuseRecord = true
	} else {
		d.br = bufio.NewReaderSize(sr, 64<<10)
	}
	return d
}

// next returns the next document, its 1-based line and start offset;
// io.EOF at the end.
func (d *docReader) next() (doc []Field, line, start int64, err error) {
	if d.cr != nil {
		start = d.base + d.cr.InputOffset()
		rec, err := d.cr.Read()
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, 0, 0, fmt.Errorf("corpus %s: line %d: %v", d.c.name, int64(pe.StartLine)+d.line, pe.Err)
			}
			return nil, 0, 0, err
		}
		l, _ := d.cr.FieldPos(0)
		line = int64(l) + d.line
		doc = make([]Field, 0, len(rec))
		for i, v := range rec {
			if !utf8.ValidString(v) {
				fl, col := d.cr.FieldPos(i)
				return nil, 0, 0, fmt.Errorf("corpus %s: line %d: column %q: %s", d.c.name, int64(fl)+d.line, d.c.header[i], badUTF8(v, col))
			}
			doc = append(doc, Field{Name: d.c.header[i], Value: []byte(v)})
		}
		return doc, line, start, nil
	}
	for {
		start = d.off
		b, err := d.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			full := append([]byte(nil), b...)
			for errors.Is(err, bufio.ErrBufferFull) && len(full) <= maxLine {
				b, err = d.br.ReadSlice('\n')
				full = append(full, b...)
			}
			if len(full) > maxLine {
				return nil, 0, 0, fmt.Errorf("corpus %s: line %d: longer than %d bytes", d.c.name, d.line+1, maxLine)
			}
			b = full
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, 0, fmt.Errorf("corpus %s: line %d: %w", d.c.name, d.line+1, err)
		}
		if len(b) == 0 && err != nil {
			return nil, 0, 0, io.EOF
		}
		d.off += int64(len(b))
		d.line++
		if len(strings.TrimSpace(string(b))) == 0 {
			if err != nil {
				return nil, 0, 0, io.EOF
			}
			continue
		}
		if !utf8.Valid(b) {
			return nil, 0, 0, fmt.Errorf("corpus %s: line %d: %s", d.c.name, d.line, badUTF8(string(b), 1))
		}
		doc, perr := parseObject(b)
		if perr != nil {
			return nil, 0, 0, fmt.Errorf("corpus %s: line %d: %v", d.c.name, d.line, perr)
		}
		return doc, d.line, start, nil
	}
}

// scan is the pass at Open.
func (c *Corpus) scan(o Options) error {
	d := c.reader(0, 1)
	if c.format == CSV {
		hdr, err := c.readHeader()
		if err != nil {
			return err
		}
		c.header = hdr
		d = c.reader(c.hdrEnd, 2)
	}
	// The stride is fixed up front from the file size so the index stays
	// bounded without a second pass: an average document of at least 16
	// bytes gives at most size/16 documents.
	c.stride = max(1, c.size/16/maxIndex+1)
	text := map[string]bool{}
	for _, f := range o.TextFields {
		text[f] = true
	}
	for {
		doc, line, start, err := d.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if c.count%c.stride == 0 {
			c.index = append(c.index, entry{start, line})
		}
		c.count++
		keyed := false
		for _, f := range doc {
			s := c.stats[f.Name]
			if s == nil {
				s = &FieldStat{}
				c.stats[f.Name] = s
				c.order = append(c.order, f.Name)
			}
			s.Docs++
			s.Bytes += int64(len(f.Value))
			s.MaxBytes = max(s.MaxBytes, len(f.Value))
			if text[f.Name] {
				c.terms.addText(f.Value)
			}
			if o.KeyField != "" && f.Name == o.KeyField && len(f.Value) > 0 {
				if len(c.keys)+len(f.Value)+4*(len(c.keyEnd)+1) > o.MaxKeyBytes { // values and their 4-byte ends
					return fmt.Errorf("corpus %s: line %d: the keys (field %s) take more than %d bytes; key by record number instead (drop key_field)", c.name, line, o.KeyField, o.MaxKeyBytes)
				}
				c.keys = append(c.keys, f.Value...)
				c.keyEnd = append(c.keyEnd, uint32(len(c.keys)))
				keyed = true
			}
		}
		if o.KeyField != "" && !keyed {
			return fmt.Errorf("corpus %s: line %d: no value for the key field %q", c.name, line, o.KeyField)
		}
	}
}

// readHeader reads the CSV header line.
func (c *Corpus) readHeader() ([]string, error) {
	r := csv.NewReader(io.NewSectionReader(c.f, 0, c.size))
	h, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("corpus %s: line 1: header: %v", c.name, err)
	}
	seen := map[string]bool{}
	for i, n := range h {
		if n == "" {
			return nil, fmt.Errorf("corpus %s: line 1: header column %d has no name", c.name, i+1)
		}
		if seen[n] {
			return nil, fmt.Errorf("corpus %s: line 1: header names %q twice", c.name, n)
		}
		seen[n] = true
	}
	c.hdrEnd = r.InputOffset()
	return h, nil
}

// Read returns document i (0 <= i < Count): one positioned read of
// the index block that holds it.
func (c *Corpus) Read(i int64) ([]Field, error) {
	if i < 0 || i >= c.count {
		return nil, fmt.Errorf("corpus %s: document %d out of range (0..%d)", c.name, i, c.count-1)
	}
	k := i / c.stride
	e := c.index[k]
	end := c.size
	if k+1 < int64(len(c.index)) {
		end = c.index[k+1].off
	}
	buf := make([]byte, end-e.off)
	if n, err := c.f.ReadAt(buf, e.off); n < len(buf) {
		return nil, fmt.Errorf("corpus %s: document %d is gone: the file changed during the run (%v)", c.name, i, err)
	}
	skip := i % c.stride
	if c.format == CSV {
		cr := csv.NewReader(bytes.NewReader(buf))
		cr.FieldsPerRecord = len(c.header)
		for ; ; skip-- {
			rec, err := cr.Read()
			if err != nil {
				return nil, fmt.Errorf("corpus %s: near line %d: the file changed during the run (%v)", c.name, e.line, err)
			}
			if skip == 0 {
				doc := make([]Field, len(rec))
				for j, v := range rec {
					doc[j] = Field{Name: c.header[j], Value: []byte(v)}
				}
				return doc, nil
			}
		}
	}
	line := e.line
	for len(buf) > 0 {
		l := buf
		if j := bytes.IndexByte(buf, '\n'); j >= 0 {
			l, buf = buf[:j+1], buf[j+1:]
		} else {
			buf = nil
		}
		if len(bytes.TrimSpace(l)) == 0 {
			line++
			continue
		}
		if skip == 0 {
			doc, err := parseObject(l)
			if err != nil {
				return nil, fmt.Errorf("corpus %s: line %d: %v (the file changed during the run)", c.name, line, err)
			}
			return doc, nil
		}
		skip--
		line++
	}
	return nil, fmt.Errorf("corpus %s: document %d is gone: the file changed during the run", c.name, i)
}

// AppendKey appends the key of record n to b: prefix, the key field's
// value of document n mod Count and, past the first cycle through the
// file, ":" and the cycle number. HasKeys must be true.
func (c *Corpus) AppendKey(b []byte, prefix string, n int64) []byte {
	b = append(b, prefix...)
	b = append(b, c.key(uint32(n%c.count))...)
	if cyc := n / c.count; cyc > 0 {
		b = append(b, ':')
		b = appendInt(b, cyc)
	}
	return b
}

func appendInt(b []byte, v int64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(b, tmp[i:]...)
}

// badUTF8 says where s, which starts at column col (1-based) of its
// line, stops being UTF-8. A JSON decoder would turn the bytes into
// U+FFFD and a CSV field would carry them as they are: either way the
// documents stored would not be the corpus's, so the file is refused.
func badUTF8(s string, col int) string {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			break
		}
		i += n
	}
	return fmt.Sprintf("invalid UTF-8 (byte 0x%02x at column %d); a corpus is UTF-8 text", s[min(i, len(s)-1)], col+i)
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }
