package config

import (
	"fmt"
	"strings"
)

// The configuration reference of docs/operations.md is the text between
// these two lines, written by Reference; TestReference keeps it so, and
// `go test ./internal/config -update` rewrites it.
const (
	ReferenceBegin = "<!-- Generated from internal/config/table.go by `go test ./internal/config -update`; edit the table, not this. -->"
	ReferenceEnd   = "<!-- End of the generated configuration reference. -->"
)

// Reference is the configuration reference in Markdown: a section per set
// of commands, a row per setting (flag, variable, default, meaning).
func Reference() string {
	var b strings.Builder
	for i, sec := range sections {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "### %s\n\n", sec.title)
		if sec.intro != "" {
			b.WriteString(sec.intro + "\n\n")
		}
		b.WriteString("| flag | environment | default | meaning |\n|---|---|---|---|\n")
		for _, s := range table {
			if s.Commands != sec.commands {
				continue
			}
			flag, env := "", ""
			if s.Flag != "" {
				flag = "`--" + s.Flag + "`"
			}
			if s.Var != "" {
				env = "`" + s.Var + "`"
			}
			if s.Secret {
				env += " or `" + s.Var + "_FILE` ([secret](#secrets))"
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", flag, env, cell(s.defaultDoc()), cell(s.Doc))
		}
		if sec.outro != "" {
			b.WriteString("\n" + sec.outro + "\n")
		}
	}
	return b.String()
}

// cell is Markdown fit for a table's cell.
func cell(md string) string { return strings.ReplaceAll(md, "|", `\|`) }
