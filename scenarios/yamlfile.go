package scenarios

import (
	"bytes"
	"errors"
	"io"
	"reflect"

	"gopkg.in/yaml.v3"
)

// DecodeStrict decodes one YAML document in data (named file in
// messages) into v with unknown keys as errors, collecting every type
// and unknown-key problem with its line, the way scenario files are read.
// It returns the document's top mapping node for LineOf. Other config
// files (the daemon's soakd.yaml) use it so every file soakd reads
// reports problems the same way. decoded is true when the decoder went
// through the whole document (no problems, or only unknown keys and
// mistyped values, which leave v's fields zero): v can then be validated
// in the same pass, its FieldErrors placed by FieldProblems.
func DecodeStrict(file string, data []byte, v any, what string) (doc *yaml.Node, probs Problems, decoded bool) {
	if probs := precheck(file, data); len(probs) > 0 {
		return nil, probs, false
	}
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Problems{{File: file, Msg: "empty " + what}}, false
		}
		return nil, Problems{syntaxProblem(file, err)}, false
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Problems{{File: file, Line: extra.Line, Msg: "more than one YAML document; a " + what + " holds one"}}, false
	}
	doc = &root
	if doc.Kind == yaml.DocumentNode && len(doc.Content) == 1 {
		doc = doc.Content[0]
	}
	if doc.Kind != yaml.MappingNode {
		return nil, Problems{{File: file, Line: doc.Line, Msg: "a " + what + " must be a mapping"}}, false
	}
	if probs := checkWidth(file, doc); len(probs) > 0 {
		return doc, probs, false
	}
	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(v); err != nil {
		learnKeys(reflect.TypeOf(v))
		probs := decodeProblems(file, err)
		nameNumberFields(doc, probs)
		sortProblems(probs)
		var te *yaml.TypeError
		return doc, probs, errors.As(err, &te)
	}
	return doc, nil, true
}

// FieldProblems places validation errors in doc by line, leaving out
// those about a field that one of decoded (DecodeStrict's problems)
// already reports as mistyped, or inside or around it: the zero it
// decoded to is not what the file says.
func FieldProblems(file string, doc *yaml.Node, decoded Problems, fes []FieldError) Problems {
	mistyped := mistypedPaths(doc, decoded)
	var out Problems
next:
	for _, fe := range fes {
		for _, m := range mistyped {
			if relatedPaths(fe.Path, m) {
				continue next
			}
		}
		out = append(out, Problem{File: file, Line: lineOf(doc, fe.Path), Field: fe.Path, Msg: fe.Msg})
	}
	return out
}

// LineOf returns the line of the node at a dotted path such as
// "schedules[1].cron" in doc, or of the deepest part of it that exists.
func LineOf(doc *yaml.Node, path string) int { return lineOf(doc, path) }

// SortProblems orders problems by line.
func SortProblems(ps Problems) { sortProblems(ps) }
