package corpus

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// benchCorpus is $SOAKD_CORPUS_BENCH (go run ./corpus/gen -docs 200000
// -out F), or else 200 000 small documents with ids in random order.
func benchCorpus(b *testing.B) string {
	if p := os.Getenv("SOAKD_CORPUS_BENCH"); p != "" {
		return p
	}
	p := filepath.Join(b.TempDir(), "bench.ndjson")
	f, err := os.Create(p)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for _, i := range rand.New(rand.NewPCG(1, 2)).Perm(200000) {
		fmt.Fprintf(w, "{\"id\":\"p%06d\",\"title\":\"doc %d\"}\n", i, i)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return p
}

// BenchmarkOpenKeyed opens a corpus keyed by its id field (the
// duplicate check included).
func BenchmarkOpenKeyed(b *testing.B) {
	path := benchCorpus(b)
	for b.Loop() {
		c, err := Open(path, Options{KeyField: "id"})
		if err != nil {
			b.Fatal(err)
		}
		c.Close()
	}
}

// BenchmarkDuplicateCheck is the duplicate-key check alone.
func BenchmarkDuplicateCheck(b *testing.B) {
	c, err := Open(benchCorpus(b), Options{KeyField: "id"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	b.ReportAllocs()
	for b.Loop() {
		if err := c.checkDuplicateKeys("id"); err != nil {
			b.Fatal(err)
		}
	}
}
