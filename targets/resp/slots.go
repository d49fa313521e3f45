package resp

import (
	"fmt"
	"github.com/soakd/soakd/scenarios"
	"strconv"
	"strings"
)

// Redis Cluster runs a command, a script or a MULTI only when all its
// keys hash to one slot; otherwise the server answers CROSSSLOT (and
// go-redis refuses a cross-slot MULTI before sending it). A key's slot
// comes from its hash tag — the text between its first '{' and the next
// '}', when that is not empty — or else from the whole key. In a
// template "{{" is a literal '{', so a hash tag around a placeholder is
// "{{{user}}": "cart:{{{user}}" renders "cart:{42}", which hashes by the
// user alone.

// SlotConflict reports, for scenario s, two of keys, the key templates of one op, that
// can hash to different cluster slots (conflict false: they cannot). Two
// keys agree when their hash-slot text is the same, placeholder for
// placeholder (one binding, {key} or {seq} renders one value per op), or
// when both are plain text of one slot. A key with a placeholder that
// can render a brace (a binding prefix or a choice with one, a corpus
// field) cannot be judged here and is left to the server.
func SlotConflict(s *scenarios.Scenario, keys []string) (a, b string, conflict bool) {
	var first, firstKey string
	have := false
	draws := 0
	for _, k := range keys {
		sym, ok := slotText(s, k, &draws)
		if !ok {
			continue
		}
		tag := hashSlotText(sym)
		if !have {
			first, firstKey, have = tag, k, true
			continue
		}
		if tag == first {
			continue
		}
		if !strings.ContainsRune(tag, 0) && !strings.ContainsRune(first, 0) && KeySlot(tag) == KeySlot(first) {
			continue
		}
		return firstKey, k, true
	}
	return "", "", false
}

// CrossSlotError explains a SlotConflict for op name.
func CrossSlotError(name, a, b string) error {
	return fmt.Errorf("op %s: keys %q and %q can hash to different slots of the redis cluster, which refuses such a command (CROSSSLOT); "+
		"give every key of the op one hash tag, e.g. \"cart:{{{user}}\" and \"seen:{{{user}}\" (rendered cart:{42} and seen:{42}; {{ is a literal '{')", name, a, b)
}

// slotText renders key template tpl symbolically: text as it is, each
// placeholder as a token (NUL-delimited, so never a brace) that is the
// same for placeholders drawing one value per op and different for
// independent draws. ok is false when a placeholder can render a brace.
func slotText(s *scenarios.Scenario, tpl string, draws *int) (string, bool) {
	segs, err := scenarios.ParseTemplate(tpl, func(n string) bool { _, ok := s.Bindings[n]; return ok })
	if err != nil {
		return "", false
	}
	hasBrace := func(t string) bool { return strings.ContainsAny(t, "{}") }
	var b strings.Builder
	for _, sg := range segs {
		switch sg.Kind {
		case scenarios.GenLiteral:
			b.WriteString(sg.Text)
		case scenarios.GenKey:
			if hasBrace(s.Keyspace.Prefix) {
				return "", false
			}
			b.WriteString(s.Keyspace.Prefix)
			b.WriteString("\x00key\x00")
		case scenarios.GenSeq:
			b.WriteString("\x00seq\x00")
		case scenarios.GenBinding:
			bd := s.Bindings[sg.Text]
			if bd.Gen != "" {
				g, err := scenarios.ParseGenerator(bd.Gen)
				if err != nil || g.Kind == scenarios.GenCorpus || (g.Kind == scenarios.GenChoice && hasBrace(strings.Join(g.Choices, ""))) {
					return "", false
				}
			} else if hasBrace(bd.Prefix) {
				return "", false
			}
			b.WriteString(bd.Prefix)
			b.WriteString("\x00b:" + sg.Text + "\x00")
		case scenarios.GenCorpus:
			return "", false
		case scenarios.GenChoice:
			if hasBrace(strings.Join(sg.Choices, "")) {
				return "", false
			}
			fallthrough
		default: // an independent draw: a token of its own
			*draws++
			b.WriteString("\x00g" + strconv.Itoa(*draws) + "\x00")
		}
	}
	return b.String(), true
}

// hashSlotText is the part of key k that Redis Cluster hashes.
func hashSlotText(k string) string {
	if i := strings.IndexByte(k, '{'); i >= 0 {
		if j := strings.IndexByte(k[i+1:], '}'); j > 0 {
			return k[i+1 : i+1+j]
		}
	}
	return k
}

// KeySlot is the Redis Cluster slot of key k: CRC16 (XMODEM) of its
// hash-slot text, mod 16384.
func KeySlot(k string) int {
	var crc uint16
	for _, c := range []byte(hashSlotText(k)) {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % 16384
}
