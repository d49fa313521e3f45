package scenarios

import "strings"

// Search documents and queries. Every adapter that runs op search
// stores, next to the YCSB fields, the same document for record n: a
// title of 2 words and a body of 8 words from a fixed vocabulary, and
// num = n (numeric, sortable). A search op on record n queries
// SearchQuery(n), two words of that record's title and body, so every
// store does the same work and finds at least record n: all the words,
// across title and body, sorted by num.

// vocabulary is the fixed word list of search documents and queries:
// no stop words, no word a stemmer folds into another.
var vocabulary = [...]string{
	"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel",
	"india", "juliet", "kilo", "lima", "mike", "november", "oscar", "papa",
	"quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
	"yankee", "zulu", "amber", "basalt", "cobalt", "dune", "ember", "fjord",
	"granite", "harbor", "iris", "jasper", "kelp", "lagoon", "meadow", "nectar",
	"onyx", "prairie", "quartz", "river", "summit", "tundra", "umber", "valley",
	"willow", "xenon", "yarrow", "zephyr", "anchor", "beacon", "canyon", "delta2",
	"estuary", "forest", "glacier", "highland", "island", "jungle", "karst", "lantern",
}

const (
	vocabSize  = len(vocabulary)
	titleWords = 2
	bodyWords  = 8
	docWords   = titleWords + bodyWords
)

// queries holds every two-word query "a b", sliced from one string, so
// SearchQuery never allocates.
var queries = func() (q [vocabSize * vocabSize]string) {
	var sb strings.Builder
	for _, a := range vocabulary {
		for _, b := range vocabulary {
			sb.WriteString(a)
			sb.WriteByte(' ')
			sb.WriteString(b)
		}
	}
	all, off := sb.String(), 0
	for i, a := range vocabulary {
		for j, b := range vocabulary {
			n := len(a) + 1 + len(b)
			q[i*vocabSize+j] = all[off : off+n]
			off += n
		}
	}
	return q
}()

// Vocabulary returns the word list of search documents (a copy).
func Vocabulary() []string { return append([]string(nil), vocabulary[:]...) }

// docWordIdx returns the vocabulary indices of record n's title (the
// first 2) and body (the other 8) words.
func docWordIdx(n int64) (w [docWords]uint8) {
	h := uint64(n)
	for i := range w {
		h = Mix64(h)
		w[i] = uint8(h % uint64(vocabSize))
	}
	return w
}

func appendWords(b []byte, w []uint8) []byte {
	for i, x := range w {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, vocabulary[x]...)
	}
	return b
}

// AppendTitle appends record n's title (2 words) to b.
func AppendTitle(b []byte, n int64) []byte {
	w := docWordIdx(n)
	return appendWords(b, w[:titleWords])
}

// AppendBody appends record n's body (8 words) to b.
func AppendBody(b []byte, n int64) []byte {
	w := docWordIdx(n)
	return appendWords(b, w[titleWords:])
}

// DocText returns the title (2 words) and body (8 words) of record n's
// search document; both are a pure function of n.
func DocText(n int64) (title, body string) {
	w := docWordIdx(n)
	var buf [docWords * 10]byte
	b := appendWords(buf[:0], w[:titleWords])
	t := len(b)
	b = appendWords(b, w[titleWords:])
	s := string(b)
	return s[:t], s[t:]
}

// SearchQuery returns the query of a search op on record n: two words,
// the first of its title and one of its body (a different word where
// the body has one), separated by a space. All the words occur in record
// n's document, so a search for all of them finds at least record n.
// It does not allocate.
func SearchQuery(n int64) string {
	w := docWordIdx(n)
	a := w[0]
	start := int(Mix64(uint64(n)^0x5eed) % bodyWords)
	b := w[1]
	for k := 0; k < bodyWords; k++ {
		if c := w[titleWords+(start+k)%bodyWords]; c != a {
			b = c
			break
		}
	}
	return queries[int(a)*vocabSize+int(b)]
}

// Uses reports whether any phase's mix runs op (adapters prepare search
// indexes only for scenarios that search).
func (sc *Scenario) Uses(op Op) bool {
	name := sc.OpName(op)
	for i := range sc.Phases {
		for _, m := range sc.Phases[i].Mixes() {
			if m[name] > 0 {
				return true
			}
		}
	}
	return false
}
