package scenarios

import (
	"fmt"
	"unicode/utf8"
)

// MaxYAMLTokens caps a file's structural characters (',', ':', '-',
// '[', '{' and line breaks), counted in one pass over the bytes before
// any YAML is decoded. Decoding builds a node per item: a 4 MB file of
// 200,000 sweep points took 280 MB and 2 s to decode before validation
// refused its point count. No scenario comes near the cap (the catalog's
// largest holds under 500; a sweep or ramp has at most 1000 points of
// a few tokens each), and a file at it decodes in well under a second.
const MaxYAMLTokens = 50_000

// precheck refuses, before decoding, what decoding would make costly or
// report without a line: a file over MaxFileBytes, bytes that are not
// UTF-8 (yaml.v3 names no line for them), more than MaxYAMLTokens.
func precheck(file string, data []byte) Problems {
	if len(data) > MaxFileBytes {
		return Problems{{File: file, Msg: errTooLarge.Error()}}
	}
	if p, bad := notUTF8(file, data); bad {
		return Problems{p}
	}
	line, tokens := 1, 0
	for _, c := range data {
		switch c {
		case '\n':
			line++
			tokens++
		case ',', ':', '-', '[', '{':
			tokens++
		default:
			continue
		}
		if tokens > MaxYAMLTokens {
			return Problems{{File: file, Line: line, Msg: fmt.Sprintf("the file holds more than %d YAML tokens (',', ':', '-', '[', '{' and line breaks) by this line; no scenario or config needs that many (a sweep or ramp has at most %d points)", MaxYAMLTokens, MaxSweepPoints)}}
		}
	}
	return nil
}

// notUTF8 finds the first byte that is not UTF-8 (a file that starts
// with a UTF-16 byte order mark is left to the decoder, which reads it).
func notUTF8(file string, data []byte) (Problem, bool) {
	if len(data) >= 2 && (data[0] == 0xFE && data[1] == 0xFF || data[0] == 0xFF && data[1] == 0xFE) {
		return Problem{}, false
	}
	if utf8.Valid(data) {
		return Problem{}, false
	}
	line, col := 1, 1
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n <= 1 {
			return Problem{File: file, Line: line, Msg: fmt.Sprintf("byte 0x%02x at column %d is not UTF-8 (save the file as UTF-8)", data[i], col)}, true
		}
		if r == '\n' {
			line, col = line+1, 0
		}
		col++
		i += n
	}
	return Problem{File: file, Msg: "the file is not UTF-8"}, true
}
