// Command gen writes the project's own sample corpus: product-like
// NDJSON documents whose words are made-up syllable words drawn with a
// Zipf law (as words in real text are), body lengths log-normal (as
// document sizes are), and a few numeric, boolean, nested and missing
// fields. Same flags, same bytes:
//
//	go run ./corpus/gen -out scenarios/testdata/corpus/docs.ndjson.gz
package main

import (
	"compress/gzip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
)

func main() {
	out := flag.String("out", "docs.ndjson.gz", "file to write (.gz: gzipped)")
	docs := flag.Int("docs", 1500, "documents")
	vocab := flag.Int("vocab", 4000, "distinct words")
	seed := flag.Uint64("seed", 1, "seed")
	flag.Parse()
	if err := write(*out, *docs, *vocab, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func write(path string, docs, vocab int, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(path, ".gz") {
		zw, _ = gzip.NewWriterLevel(f, gzip.BestCompression)
		w = zw
	}
	if err := generate(w, docs, vocab, seed); err != nil {
		f.Close()
		return err
	}
	if zw != nil {
		if err := zw.Close(); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

// words makes n distinct words of 2 to 4 consonant-vowel syllables:
// never an English stop word, rarely folded by a stemmer.
func words(r *rand.Rand, n int) []string {
	const cons, vows = "bdfgklmnprstvz", "aeiou"
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		for s := 2 + r.IntN(3); s > 0; s-- {
			b.WriteByte(cons[r.IntN(len(cons))])
			b.WriteByte(vows[r.IntN(len(vows))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// zipf draws ranks 0..n-1 with weight 1/(r+1)^s.
type zipf struct{ cum []float64 }

func newZipf(n int, s float64) zipf {
	z := zipf{cum: make([]float64, n)}
	acc := 0.0
	for i := range z.cum {
		acc += 1 / math.Pow(float64(i+1), s)
		z.cum[i] = acc
	}
	return z
}

func (z zipf) draw(r *rand.Rand) int {
	return min(sort.SearchFloat64s(z.cum, r.Float64()*z.cum[len(z.cum)-1]), len(z.cum)-1)
}

func logNormal(r *rand.Rand, median, sigma float64) float64 {
	return median * math.Exp(sigma*r.NormFloat64())
}

func generate(w io.Writer, docs, vocab int, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 0xc0ffee))
	vw := words(r, vocab)
	zw := newZipf(len(vw), 1.07)
	cats := words(r, 24)
	zc := newZipf(len(cats), 1.2)
	text := func(n int) string {
		ws := make([]string, n)
		for i := range ws {
			ws[i] = vw[zw.draw(r)]
		}
		return strings.Join(ws, " ")
	}
	enc := json.NewEncoder(w)
	for i := 0; i < docs; i++ {
		// A map would sort the keys; an ordered slice keeps the file's
		// field order like a real export's.
		d := orderedDoc{
			{"id", fmt.Sprintf("p%05d", i+1)},
			{"title", text(2 + r.IntN(5))},
			{"body", text(int(min(max(logNormal(r, 28, 0.8), 3), 400)))},
			{"category", cats[zc.draw(r)]},
			{"price", math.Round(logNormal(r, 20, 1)*100) / 100},
		}
		if n := r.IntN(5); n > 0 {
			tags := make([]string, n)
			for k := range tags {
				tags[k] = vw[zw.draw(r)]
			}
			d = append(d, kv{"tags", tags})
		}
		if r.IntN(4) > 0 {
			d = append(d, kv{"rating", math.Round((1+4*r.Float64())*10) / 10})
		} else {
			d = append(d, kv{"rating", nil})
		}
		d = append(d, kv{"meta", map[string]any{"views": int(logNormal(r, 300, 1.5)), "in_stock": r.IntN(5) > 0}})
		if err := enc.Encode(d); err != nil {
			return err
		}
	}
	return nil
}

type kv struct {
	k string
	v any
}

type orderedDoc []kv

func (d orderedDoc) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	for i, f := range d {
		if i > 0 {
			b = append(b, ',')
		}
		k, _ := json.Marshal(f.k)
		v, err := json.Marshal(f.v)
		if err != nil {
			return nil, err
		}
		b = append(append(append(b, k...), ':'), v...)
	}
	return append(b, '}'), nil
}
