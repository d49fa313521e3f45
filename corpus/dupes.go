package corpus

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// maxDupesListed is how many duplicated key values an error names.
const maxDupesListed = 5

// key returns document i's key field value.
func (c *Corpus) key(i uint32) []byte {
	lo := uint32(0)
	if i > 0 {
		lo = c.keyEnd[i-1]
	}
	return c.keys[lo:c.keyEnd[i]]
}

// checkDuplicateKeys refuses a corpus whose key field has a value twice:
// the later document would overwrite the earlier one, so the store would
// hold fewer records than were loaded, and reads of the one record would
// see the other's fields. The documents are sorted by key (4 bytes a
// document, freed after); only when duplicates exist is the file read
// again to find the lines of the first few.
func (c *Corpus) checkDuplicateKeys(keyField string) error {
	n := len(c.keyEnd)
	order := make([]uint32, n)
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int {
		if d := bytes.Compare(c.key(a), c.key(b)); d != 0 {
			return d
		}
		return int(a) - int(b)
	})
	var dupes int64
	var groups [][]uint32 // each: the documents sharing one value, in file order
	for i := 0; i < n; {
		j := i + 1
		for j < n && bytes.Equal(c.key(order[i]), c.key(order[j])) {
			j++
		}
		if j-i > 1 {
			dupes += int64(j - i - 1)
			groups = append(groups, order[i:j])
		}
		i = j
	}
	if dupes == 0 {
		return nil
	}
	slices.SortFunc(groups, func(a, b []uint32) int { return int(a[0]) - int(b[0]) })
	groups = groups[:min(len(groups), maxDupesListed)]
	want := map[uint32]int64{}
	for _, g := range groups {
		for _, d := range g[:min(len(g), 3)] {
			want[d] = 0
		}
	}
	if err := c.linesOf(want); err != nil {
		return err
	}
	var list []string
	for _, g := range groups {
		var ls []string
		for _, d := range g[:min(len(g), 3)] {
			ls = append(ls, fmt.Sprint(want[d]))
		}
		if len(g) > 3 {
			ls = append(ls, fmt.Sprintf("%d more", len(g)-3))
		}
		list = append(list, fmt.Sprintf("%q on lines %s", c.key(g[0]), strings.Join(ls, ", ")))
	}
	what := "documents repeat"
	if dupes == 1 {
		what = "document repeats"
	}
	return fmt.Errorf("corpus %s: %d %s a value of the key field %q (each would overwrite the one before it): %s; make the field unique or drop key_field (key by record number)",
		c.name, dupes, what, keyField, strings.Join(list, "; "))
}

// linesOf fills want (document -> 0) with each document's line, in one
// pass through the file.
func (c *Corpus) linesOf(want map[uint32]int64) error {
	start, line := int64(0), int64(1)
	if c.format == CSV {
		start, line = c.hdrEnd, 2
	}
	d := c.reader(start, line)
	for i := uint32(0); ; i++ {
		_, l, _, err := d.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, ok := want[i]; ok {
			want[i] = l
		}
	}
}
