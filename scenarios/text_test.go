package scenarios

import (
	"strings"
	"testing"
)

func TestDocTextAndSearchQuery(t *testing.T) {
	vocab := map[string]bool{}
	for _, w := range Vocabulary() {
		vocab[w] = true
	}
	if len(vocab) != len(vocabulary) {
		t.Fatalf("vocabulary has duplicates")
	}
	sameTitle := 0
	for n := int64(0); n < 5000; n++ {
		title, body := DocText(n)
		t2, b2 := DocText(n)
		if title != t2 || body != b2 {
			t.Fatalf("DocText(%d) not deterministic", n)
		}
		if string(AppendTitle(nil, n)) != title || string(AppendBody([]byte("x"), n)) != "x"+body {
			t.Fatalf("Append* of %d differ from DocText: %q %q", n, title, body)
		}
		tw, bw := strings.Fields(title), strings.Fields(body)
		if len(tw) != 2 || len(bw) != 8 {
			t.Fatalf("record %d: title %q body %q", n, title, body)
		}
		words := map[string]bool{}
		for _, w := range append(tw, bw...) {
			if !vocab[w] {
				t.Fatalf("word %q not in vocabulary", w)
			}
			words[w] = true
		}
		q := SearchQuery(n)
		qw := strings.Fields(q)
		if len(qw) != 2 || q != qw[0]+" "+qw[1] || q != SearchQuery(n) {
			t.Fatalf("SearchQuery(%d) = %q, want two deterministic words", n, q)
		}
		for _, w := range qw {
			if !words[w] {
				t.Fatalf("SearchQuery(%d) = %q: %q is not in the record's title %q or body %q", n, q, w, title, body)
			}
		}
		if qw[0] == qw[1] && len(words) > 1 {
			t.Fatalf("SearchQuery(%d) = %q repeats a word though the record has others", n, q)
		}
		if n > 0 {
			if prev, _ := DocText(n - 1); prev == title {
				sameTitle++
			}
		}
	}
	if sameTitle > 50 {
		t.Errorf("%d of 5000 neighbouring records share a title", sameTitle)
	}
}

func TestSearchQueryDoesNotAllocate(t *testing.T) {
	var sink string
	n := int64(0)
	if a := testing.AllocsPerRun(1000, func() { sink = SearchQuery(n); n++ }); a != 0 {
		t.Errorf("SearchQuery allocates %.1f times per call", a)
	}
	buf := make([]byte, 0, 256)
	if a := testing.AllocsPerRun(1000, func() { buf = AppendBody(AppendTitle(buf[:0], n), n); n++ }); a != 0 {
		t.Errorf("AppendTitle/AppendBody allocate %.1f times per call", a)
	}
	_ = sink
}
