package corpus

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// parseObject flattens one NDJSON line, a JSON object, into fields in
// the file's order: strings unquoted, numbers and booleans as their
// JSON text, objects and arrays as their compact JSON (those marked
// Field.JSON); null fields are left out (a hash has no null).
func parseObject(line []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, notJSON(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object (one document a line)")
	}
	var doc []Field
	seen := map[string]bool{}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, notJSON(err)
		}
		name := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, fmt.Errorf("field %q: %v", name, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("field %q appears twice", name)
		}
		seen[name] = true
		v, ok, err := flatValue(raw)
		if err != nil {
			return nil, fmt.Errorf("field %q: %v", name, err)
		}
		if ok {
			doc = append(doc, Field{Name: name, Value: v, JSON: raw[0] != '"'})
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, notJSON(err)
	}
	if rest := bytes.TrimSpace(line[dec.InputOffset():]); len(rest) > 0 {
		return nil, errors.New("more than one JSON value on the line")
	}
	return doc, nil
}

func flatValue(raw json.RawMessage) ([]byte, bool, error) {
	switch raw[0] {
	case 'n':
		return nil, false, nil
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, false, err
		}
		return []byte(s), true, nil
	case '{', '[':
		var b bytes.Buffer
		if err := json.Compact(&b, raw); err != nil {
			return nil, false, err
		}
		return b.Bytes(), true, nil
	}
	return append([]byte(nil), raw...), true, nil
}

// notJSON says why a line is not JSON.
func notJSON(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("not JSON: the line ends inside the document")
	}
	return fmt.Errorf("not JSON: %v", err)
}
