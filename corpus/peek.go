package corpus

import (
	"compress/gzip"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/soakd/soakd/regfile"
)

// Peek is the cheap check a scenario's validation makes: the file
// exists, is not empty, and its first document (NDJSON) or header (CSV)
// has fields, among them the key field; a CSV header must also name the
// text fields. It reads at most the first document.
func Peek(path, keyField string, textFields []string) error {
	f, err := regfile.Open(path) // a FIFO is refused by name, not waited on
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("corpus %s does not exist", path)
		}
		return fmt.Errorf("corpus %s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("corpus %s: %v", path, err)
	}
	if st.Size() == 0 {
		return fmt.Errorf("corpus %s: the file is empty", path)
	}
	var r io.Reader = io.LimitReader(f, st.Size())
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("corpus %s: not gzip data: %v", path, err)
		}
		r = zr
	}
	var names []string
	if FormatOf(path) == CSV {
		cr := csv.NewReader(r)
		if names, err = cr.Read(); err != nil {
			if errors.Is(err, io.EOF) {
				return fmt.Errorf("corpus %s: no header line", path)
			}
			return fmt.Errorf("corpus %s: line 1: header: %v", path, err)
		}
		for _, tf := range textFields {
			if !slices.Contains(names, tf) {
				return fmt.Errorf("corpus %s: line 1: the header has no column %q (columns: %s)", path, tf, strings.Join(names, ", "))
			}
		}
	} else {
		c := &Corpus{name: path}
		d := &docReader{c: c}
		d.br = newLineReader(r)
		doc, _, _, err := d.next()
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("corpus %s: no documents (only blank lines)", path)
		}
		if err != nil {
			return err
		}
		for _, f := range doc {
			names = append(names, f.Name)
		}
		if len(names) == 0 {
			return fmt.Errorf("corpus %s: line %d: the first document has no fields", path, d.line)
		}
	}
	if keyField != "" && !slices.Contains(names, keyField) {
		return fmt.Errorf("corpus %s: the first document has no key field %q (fields: %s)", path, keyField, strings.Join(names, ", "))
	}
	return nil
}

// Bounds of Check's full pass.
const (
	// CheckBytes is the largest file (as stored) Check reads through.
	CheckBytes = 64 << 20
	// checkInflated caps a gzipped file's copy during Check.
	checkInflated = 256 << 20
)

// Check is what a scenario's validation runs: the pass Open makes
// (every document parsed, the key and text fields found, keys not
// repeated), so validate refuses what the run would, at the document's
// line, for a file of at most CheckBytes that inflates (gzip) to at
// most 256 MiB; a larger file gets Peek's look and the run's pass.
func Check(path, keyField string, textFields []string) error {
	if err := Peek(path, keyField, textFields); err != nil {
		return err
	}
	st, err := os.Stat(path)
	if err != nil || st.Size() > CheckBytes {
		return nil
	}
	c, err := Open(path, Options{KeyField: keyField, TextFields: textFields, MaxInflated: checkInflated})
	if errors.Is(err, ErrInflatedCap) {
		return nil
	}
	if err != nil {
		return err
	}
	return c.Close()
}
