package catalog

import (
	"regexp"
	"strings"
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
func LooksLikeSQL(q string) bool { return sqlLike.MatchString(q) }
