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
)

// Peek is the cheap check a scenario's validation makes: the file
// exists, is not empty, and its first document (NDJSON) or header (CSV)
// has fields, among them the key field; a CSV header must also name the
// text fields. It reads at most the first document.
func Peek(path, keyField string, textFields []string) error {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("corpus %s does not exist", path)
		}
		return fmt.Errorf("corpus %s: %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("corpus %s: %v", path, err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("corpus %s: not a regular file", path)
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
