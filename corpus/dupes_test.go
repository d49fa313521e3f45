package corpus

import (
	"fmt"
	"strings"
	"testing"
)

// A key field with a value twice is refused, with the count of repeats
// and the first repeated values' lines (blank lines and CSV's header
// counted as the file has them); unique keys open as before.
func TestDuplicateKeys(t *testing.T) {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "{\"id\":\"k%d\"}\n", i)
		if i == 3 {
			b.WriteString("\n")
		}
	}
	b.WriteString("{\"id\":\"k2\"}\n{\"id\":\"k9\"}\n{\"id\":\"k2\"}\n{\"id\":\"k2\"}\n")
	_, err := Open(write(t, "d.ndjson", b.String()), Options{KeyField: "id"})
	want := `corpus ` // the path, then:
	for _, w := range []string{want, `4 documents repeat a value of the key field "id"`, `"k2" on lines 3, 14, 16, 1 more`, `"k9" on lines 11, 15`, "drop key_field"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("error %v, want it to say %q", err, w)
		}
	}
	if err != nil && strings.Index(err.Error(), `"k2"`) > strings.Index(err.Error(), `"k9"`) {
		t.Errorf("%v: the value repeated first in the file comes first", err)
	}
	_, err = Open(write(t, "d.csv.gz", "id,title\nx,a\ny,b\nx,c\n"), Options{KeyField: "id"})
	if err == nil || !strings.Contains(err.Error(), `1 document repeats`) || !strings.Contains(err.Error(), `"x" on lines 2, 4`) {
		t.Errorf("CSV: %v", err)
	}
	c, err := Open(write(t, "d.ndjson", ndjson), Options{KeyField: "id"})
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Without key_field the same documents are records by number.
	c, err = Open(write(t, "d.ndjson", b.String()), Options{})
	if err != nil || c.Count() != 16 {
		t.Fatalf("unkeyed: %v", err)
	}
	c.Close()
}
