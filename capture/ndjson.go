package capture

import (
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// The NDJSON op log carries any bytes: an argument that is not UTF-8 is
// written base64-encoded (standard alphabet, padded) and its index in
// args listed in "b64":
//
//	{"ts": 1.5, "op": "SET", "args": ["k", "/w=="], "b64": [1]}
//
// A JSON string holds Unicode text, so raw bytes >= 0x80 written as
// "\u00ff" came back as UTF-8 (two bytes) and binary values changed on
// replay. Logs without "b64" read as before.

// NDJSONOp is one op for AppendNDJSON.
type NDJSONOp struct {
	TS   float64 // seconds
	DB   int     // written when not 0
	Op   string  // the command (UTF-8 text)
	Args [][]byte
}

// AppendNDJSON appends op as one NDJSON line (with its newline) to b:
// each argument a JSON string when it is UTF-8, else base64 listed in
// "b64", so every byte comes back as it was.
func AppendNDJSON(b []byte, op NDJSONOp) []byte {
	b = append(b, `{"ts": `...)
	b = strconv.AppendFloat(b, op.TS, 'f', -1, 64)
	b = append(b, `, "op": `...)
	b = appendJSONString(b, op.Op)
	b = append(b, `, "args": [`...)
	var bin []int
	for i, a := range op.Args {
		if i > 0 {
			b = append(b, ", "...)
		}
		if utf8.Valid(a) {
			b = appendJSONString(b, string(a))
			continue
		}
		bin = append(bin, i)
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, a)
		b = append(b, '"')
	}
	b = append(b, ']')
	if len(bin) > 0 {
		b = append(b, `, "b64": [`...)
		for j, i := range bin {
			if j > 0 {
				b = append(b, ", "...)
			}
			b = strconv.AppendInt(b, int64(i), 10)
		}
		b = append(b, ']')
	}
	if op.DB != 0 {
		b = append(b, `, "db": `...)
		b = strconv.AppendInt(b, int64(op.DB), 10)
	}
	return append(b, "}\n"...)
}

// appendJSONString appends s (valid UTF-8) as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	q, _ := json.Marshal(s) // a string always marshals
	return append(b, q...)
}
