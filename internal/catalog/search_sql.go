package catalog

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// sqlLike recognises the shapes of SQL injection attempts. Search never
// builds SQL, so this is about refusing probes politely and visibly, not
// about safety; what matters is that no real card name is refused, which is
// why every pattern needs SQL punctuation or two SQL keywords in SQL order
// (a card may be called "Select for Inspection", "Execute" or "Sleep",
// and its TCGplayer name may be "Sleep (Showcase)").
var sqlLike = regexp.MustCompile(`(?i)` + strings.Join([]string{
	`--`,      // line comment
	`/\*|\*/`, // block comment
	`;\s*(select|insert|update|delete|drop|alter|create|truncate|exec|execute|union|grant|revoke|shutdown|declare|set)\b`,
	`\bunion\s+(all\s+)?select\b`,
	`\bselect\s+(\*|null\b|\d|count\s*\(|@@)`,
	`\bselect\b.*\bfrom\s+(information_schema|sqlite_master|pg_\w+|mysql\.|dual\b|users?\b)`,
	`\binsert\s+into\b`,
	`\bdelete\s+from\b`,
	`\bdrop\s+(table|database|schema|view|index|user)\b`,
	`\btruncate\s+table\b`,
	`\balter\s+(table|database|user)\b`,
	`\bupdate\s+\w+\s+set\s+\w+\s*=`,
	// tautologies and the quote that opens them: ' or 1=1, " or ""=", ') or ('a'='a
	"['\"`]\\s*\\)?\\s*(or|and|\\|\\|)\\s+(['\"`(\\d]|true\\b|false\\b|not\\b|null\\b|exists\\b|sleep\\b|\\w+\\s*(=|<|>|\\blike\\b))",
	`\b(or|and)\s+(\d+|'[^']*'|"[^"]*")\s*(=|<>|!=|<|>|\blike\b)`,
	`\b(or|and)\s+\w+\s*(=|<>|!=)\s*\w+`,
	"['\"`]\\s*\\)?\\s*;",
	`\b(sleep|benchmark|pg_sleep)\s*\(\s*\d`,
	`\bwaitfor\s+delay\b`,
	`\bexec(ute)?\s+(xp_|sp_|master\.)`,
	`\bxp_cmdshell\b`,
	`@@(version|identity|servername)\b`,
	`\binformation_schema\b`,
	`\b(char|chr|concat)\s*\(\s*\d`,
	`\b0x[0-9a-f]{8,}\b`,
}, "|"))

// LooksLikeSQL reports whether q carries SQL-like text (`' or 1=1`,
// `union select`, `; drop table`, `--`, `/*` and the like) that search refuses.
func LooksLikeSQL(q string) bool { return maybeSQL(q) && sqlLike.MatchString(q) }

// sqlWords are the words (runs of \w) that some pattern of sqlLike needs
// whole, lower-cased; "or" and "and" count only when white space follows.
var sqlWords = map[string]bool{
	"union": true, "select": true, "insert": true, "delete": true, "drop": true, "truncate": true,
	"alter": true, "update": true, "sleep": true, "benchmark": true, "pg_sleep": true, "waitfor": true,
	"exec": true, "execute": true, "xp_cmdshell": true, "information_schema": true, "char": true,
	"chr": true, "concat": true,
}

// maybeSQL is false when no pattern of sqlLike can match q: q has none of
// the patterns' punctuation (";", "@", "||", "--", "/*", "*/": a card
// number's single "-" is not one), neither of the two letters outside ASCII
// that the patterns' case folding makes ASCII (U+017F "ſ" is "s", U+212A,
// the Kelvin sign, is "k"; \w, \b and \s are ASCII in Go's syntax), and
// none of their words. A quote alone matches nothing: every pattern with one
// also needs ";", "||" or "or"/"and" before white space, each of which is
// looked for. Running the regular expression on every query was a tenth of a
// search's time, and names with an apostrophe or an accent ("Urza's",
// "Pokémon") ran it until 2026-11-29.
func maybeSQL(q string) bool {
	var buf [32]byte
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == ';' || c == '@' || c == '|' && i+1 < len(q) && q[i+1] == '|':
			return true
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(q[i:])
			if r == '\u017F' || r == '\u212A' { // ſ and the Kelvin sign
				return true
			}
			i += size
			continue
		case (c == '-' || c == '/' || c == '*') && i+1 < len(q):
			if p := q[i : i+2]; p == "--" || p == "/*" || p == "*/" {
				return true
			}
			i++
			continue
		case !isWordByte(c):
			i++
			continue
		}
		j := i
		for j < len(q) && isWordByte(q[j]) {
			j++
		}
		if j-i > 2 && q[i] == '0' && q[i+1]|0x20 == 'x' {
			return true
		}
		if j-i <= len(buf) {
			w := buf[:j-i]
			for k := range w {
				if c := q[i+k]; 'A' <= c && c <= 'Z' {
					w[k] = c + 'a' - 'A'
				} else {
					w[k] = c
				}
			}
			if sqlWords[string(w)] {
				return true
			}
			if (string(w) == "or" || string(w) == "and") && j < len(q) && strings.IndexByte("\t\n\f\r ", q[j]) >= 0 {
				return true
			}
		}
		i = j
	}
	return false
}

// isWordByte reports whether c is in \w: [0-9A-Za-z_].
func isWordByte(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_'
}
