package main

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// markdownAnchors returns the anchors GitHub gives the headings of a
// markdown file: lower case, punctuation but '-' and '_' dropped, spaces
// as '-', a repeated heading suffixed -1, -2, ... Headings in code blocks
// do not count.
func markdownAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	heading := regexp.MustCompile(`^#{1,6} (.*)`)
	drop := regexp.MustCompile(`[^\p{L}\p{N}_\- ]`)
	anchors, seen := map[string]bool{}, map[string]int{}
	inBlock := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, "```") {
			inBlock = !inBlock
		}
		if inBlock {
			continue
		}
		m := heading.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		a := strings.ReplaceAll(drop.ReplaceAllString(strings.ToLower(strings.TrimSpace(m[1])), ""), " ", "-")
		n := seen[a]
		seen[a] = n + 1
		if n > 0 {
			a += "-" + strconv.Itoa(n)
		}
		anchors[a] = true
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return anchors
}

// TestDocLinks: every relative link in README.md and docs/*.md names a
// file that exists and, for a markdown file, an anchor one of its
// headings makes.
func TestDocLinks(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) == 0 {
		t.Fatal("no docs/*.md")
	}
	files := append([]string{filepath.Join(root, "README.md")}, docs...)
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	scheme := regexp.MustCompile(`^[a-z][a-z0-9+.-]*:`)
	cache := map[string]map[string]bool{}
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(root, f)
		for _, m := range link.FindAllStringSubmatch(string(data), -1) {
			u := m[1]
			if scheme.MatchString(u) {
				continue // http(s), mailto: not checked here
			}
			p, frag, _ := strings.Cut(u, "#")
			target := f
			if p != "" {
				target = filepath.Join(filepath.Dir(f), filepath.FromSlash(p))
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: link %s: no file %s", rel, u, target)
				continue
			}
			checked++
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			if cache[target] == nil {
				cache[target] = markdownAnchors(t, target)
			}
			if !cache[target][frag] {
				t.Errorf("%s: link %s: no heading makes anchor #%s", rel, u, frag)
			}
		}
	}
	if checked < 20 {
		t.Errorf("checked %d links: the README's list of docs should give at least 20", checked)
	}
}
