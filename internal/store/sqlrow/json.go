package sqlrow

import (
	"encoding/json"
	"fmt"
	"github.com/cardcat/cardcat/internal/jsonw"

	"github.com/cardcat/cardcat/internal/catalog"
)

// The extra fields and the variants of a card are stored as JSON text:
// [["key","value"],...] keeps the order of the fields, which an object would
// not, and ["Normal","Foil"] the order of the finishes. An empty list is "[]".

// AppendExtra appends extra as JSON to b.
func AppendExtra(b []byte, extra []catalog.ExtraField) []byte {
	b = append(b, '[')
	for i, f := range extra {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		b = jsonw.AppendStringNoHTML(b, f.Key)
		b = append(b, ',')
		b = jsonw.AppendStringNoHTML(b, f.Value)
		b = append(b, ']')
	}
	return append(b, ']')
}

// ParseExtra parses what AppendExtra wrote. An empty list is nil.
func ParseExtra(s string) ([]catalog.ExtraField, error) {
	if s == "[]" || s == "" {
		return nil, nil
	}
	if extra, ok := parsePlainPairs(s); ok {
		return extra, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal([]byte(s), &pairs); err != nil {
		return nil, fmt.Errorf("extra fields: %w", err)
	}
	extra := make([]catalog.ExtraField, len(pairs))
	for i, p := range pairs {
		extra[i] = catalog.ExtraField{Key: p[0], Value: p[1]}
	}
	return extra, nil
}

// AppendStrings appends ss as a JSON array to b.
func AppendStrings(b []byte, ss []string) []byte {
	b = append(b, '[')
	for i, s := range ss {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendStringNoHTML(b, s)
	}
	return append(b, ']')
}

// ParseStrings parses what AppendStrings wrote. An empty list is nil.
func ParseStrings(s string) ([]string, error) {
	if s == "[]" || s == "" {
		return nil, nil
	}
	if ss, ok := parsePlainStrings(s); ok {
		return ss, nil
	}
	var ss []string
	if err := json.Unmarshal([]byte(s), &ss); err != nil {
		return nil, fmt.Errorf("string list: %w", err)
	}
	return ss, nil
}

// A million cards are loaded at every start, so the common case, lists of
// strings without escapes as AppendExtra and AppendStrings write them, is
// parsed here without encoding/json's reflection. Anything else (an escape,
// white space) is left to encoding/json.

// jsonScanner reads the compact JSON that AppendExtra and AppendStrings write.
type jsonScanner struct {
	s string
	i int
}

func (sc *jsonScanner) byte(c byte) bool {
	if sc.i < len(sc.s) && sc.s[sc.i] == c {
		sc.i++
		return true
	}
	return false
}

// plainString reads a string without escapes.
func (sc *jsonScanner) plainString() (string, bool) {
	if !sc.byte('"') {
		return "", false
	}
	start := sc.i
	for ; sc.i < len(sc.s); sc.i++ {
		switch c := sc.s[sc.i]; {
		case c == '"':
			sc.i++
			return sc.s[start : sc.i-1], true
		case c == '\\' || c < 0x20:
			return "", false
		}
	}
	return "", false
}

func parsePlainStrings(s string) ([]string, bool) {
	sc := jsonScanner{s: s}
	if !sc.byte('[') {
		return nil, false
	}
	ss := make([]string, 0, 4)
	for {
		str, ok := sc.plainString()
		if !ok {
			return nil, false
		}
		ss = append(ss, str)
		if sc.byte(']') {
			return ss, sc.i == len(s)
		}
		if !sc.byte(',') {
			return nil, false
		}
	}
}

func parsePlainPairs(s string) ([]catalog.ExtraField, bool) {
	sc := jsonScanner{s: s}
	if !sc.byte('[') {
		return nil, false
	}
	extra := make([]catalog.ExtraField, 0, 4)
	for {
		if !sc.byte('[') {
			return nil, false
		}
		key, ok := sc.plainString()
		if !ok || !sc.byte(',') {
			return nil, false
		}
		value, ok := sc.plainString()
		if !ok || !sc.byte(']') {
			return nil, false
		}
		extra = append(extra, catalog.ExtraField{Key: key, Value: value})
		if sc.byte(']') {
			return extra, sc.i == len(s)
		}
		if !sc.byte(',') {
			return nil, false
		}
	}
}
