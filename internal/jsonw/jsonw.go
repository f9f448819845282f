// Package jsonw appends JSON values to byte slices without reflection, for the
// places that write a great many of them (the snapshot's pre-rendered cards,
// the generator's upstream files, the store's JSON columns, the access log).
// Its output is byte for byte what encoding/json writes for the same value
// (what log/slog writes, for AppendStringSlog).
package jsonw

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// asIs and asIsHTML say which ASCII bytes are written as they are, without
// and with the HTML escapes: one lookup per byte in the loop of appendString.
var asIs, asIsHTML = func() (plain, html [utf8.RuneSelf]bool) {
	for c := byte(0x20); c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return plain, html
}()

// AppendString appends s as a JSON string escaped as encoding/json does by
// default: HTML-safe (<, > and & as \u003c, \u003e, \u0026), U+2028 and
// U+2029 escaped, invalid UTF-8 replaced by U+FFFD.
func AppendString(b []byte, s string) []byte { return appendString(b, s, true, true) }

// AppendStringNoHTML is AppendString without the HTML escapes, as
// json.Encoder.SetEscapeHTML(false) writes: for text that is never served.
func AppendStringNoHTML(b []byte, s string) []byte { return appendString(b, s, false, true) }

// AppendStringSlog is AppendStringNoHTML as log/slog's JSONHandler writes it,
// \b and \f as \u0008 and \u000c: for log lines that must read as slog's.
func AppendStringSlog(b []byte, s string) []byte { return appendString(b, s, false, false) }

// appendString escapes <, > and & when html is set, and writes \b and \f
// short when shortBF is (encoding/json does; log/slog does not).
func appendString(b []byte, s string, html, shortBF bool) []byte {
	safe := &asIs
	if html {
		safe = &asIsHTML
	}
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if safe[c] {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '\\' || c == '"':
				b = append(b, '\\', c)
			case c == '\b' && shortBF:
				b = append(b, '\\', 'b')
			case c == '\f' && shortBF:
				b = append(b, '\\', 'f')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
