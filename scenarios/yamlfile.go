package scenarios

import (
	"bytes"
	"errors"
	"io"

	"gopkg.in/yaml.v3"
)

// DecodeStrict decodes one YAML document in data (named file in
// messages) into v with unknown keys as errors, collecting every type
// and unknown-key problem with its line, the way scenario files are read.
// It returns the document's top mapping node for LineOf. Other config
// files (the daemon's soakd.yaml) use it so every file soakd reads
// reports problems the same way.
func DecodeStrict(file string, data []byte, v any, what string) (*yaml.Node, Problems) {
	if len(data) > MaxFileBytes {
		return nil, Problems{{File: file, Msg: errTooLarge.Error()}}
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Problems{{File: file, Msg: "empty " + what}}
		}
		return nil, Problems{syntaxProblem(file, err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Problems{{File: file, Line: extra.Line, Msg: "more than one YAML document; a " + what + " holds one"}}
	}
	doc := &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil, Problems{{File: file, Line: doc.Line, Msg: "a " + what + " must be a mapping"}}
	}
	if probs := checkWidth(file, doc); len(probs) > 0 {
		return doc, probs
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(v); err != nil {
		probs := decodeProblems(file, err)
		sortProblems(probs)
		return doc, probs
	}
	return doc, nil
}

// LineOf returns the line of the node at a dotted path such as
// "schedules[1].cron" in doc, or of the deepest part of it that exists.
func LineOf(doc *yaml.Node, path string) int { return lineOf(doc, path) }

// SortProblems orders problems by line.
func SortProblems(ps Problems) { sortProblems(ps) }
