package corpus

import (
	"sort"
	"unicode"
	"unicode/utf8"
)

// stopWords are left out of the term table: RediSearch and MongoDB drop
// them from queries and Elasticsearch's standard analyzer does not, so
// a query holding one would ask the stores different questions. The
// list is RediSearch's default.
var stopWords = map[string]bool{
	"a": true, "is": true, "the": true, "an": true, "and": true, "are": true, "as": true, "at": true,
	"be": true, "but": true, "by": true, "for": true, "if": true, "in": true, "into": true, "it": true,
	"no": true, "not": true, "of": true, "on": true, "or": true, "such": true, "that": true, "their": true,
	"then": true, "there": true, "these": true, "they": true, "this": true, "to": true, "was": true,
	"will": true, "with": true,
}

// Term is a word and how often the text fields hold it.
type Term struct {
	Word  string
	Count int64
}

// termTable counts words up to a cap; once full, words not yet in it
// are counted in dropped only.
type termTable struct {
	max     int
	counts  map[string]int64
	dropped int64
	sorted  []Term // by count descending, then word
	buf     []byte
}

func newTermTable(max int) *termTable { return &termTable{max: max, counts: map[string]int64{}} }

func (t *termTable) len() int { return len(t.counts) }

// addText counts the words of s: runs of letters and digits, lower
// case, of at least two characters, stop words left out.
func (t *termTable) addText(s []byte) {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRune(s[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		t.buf = t.buf[:0]
		for i < len(s) {
			r, n = utf8.DecodeRune(s[i:])
			if !isWordRune(r) {
				break
			}
			t.buf = utf8.AppendRune(t.buf, unicode.ToLower(r))
			i += n
		}
		if utf8.RuneCount(t.buf) < 2 || stopWords[string(t.buf)] {
			continue
		}
		if c, ok := t.counts[string(t.buf)]; ok {
			t.counts[string(t.buf)] = c + 1
		} else if len(t.counts) < t.max {
			t.counts[string(t.buf)] = 1
		} else {
			t.dropped++
		}
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

func (t *termTable) freeze() {
	t.sorted = make([]Term, 0, len(t.counts))
	for w, c := range t.counts {
		t.sorted = append(t.sorted, Term{w, c})
	}
	sort.Slice(t.sorted, func(i, j int) bool {
		a, b := t.sorted[i], t.sorted[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Word < b.Word
	})
	t.counts = nil
}

// Terms returns the term table, most frequent first (nil when Open was
// given no text fields). The slice is shared: do not modify it.
func (c *Corpus) Terms() []Term {
	if c.terms == nil {
		return nil
	}
	return c.terms.sorted
}

// DroppedTerms is how many word occurrences the capped table did not count.
func (c *Corpus) DroppedTerms() int64 {
	if c.terms == nil {
		return 0
	}
	return c.terms.dropped
}
