package config

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
)

// Print writes the effective configuration: each setting of the commands,
// its value, and where the value came from (default, a variable, a flag),
// every secret that is set as ***.
func (c *Config) Print(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "FLAG\tVARIABLE\tVALUE\tFROM")
	for _, s := range c.settings {
		v := s.value.get(c)
		switch {
		case s.Secret && v != "":
			v = "***"
		case v == "" || strings.ContainsFunc(v, func(r rune) bool { return r == '"' || unicode.IsSpace(r) || !unicode.IsPrint(r) }):
			v = strconv.Quote(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", or(dashed(s.Flag), "-"), or(s.Var, "-"), v, c.origins[s.Name()])
	}
	return tw.Flush()
}

// PrintVariables writes, for --help after the flags, the settings of the
// commands that have a variable and no flag.
func (c *Config) PrintVariables(w io.Writer) {
	first := true
	for _, s := range c.settings {
		if s.Flag != "" {
			continue
		}
		if first {
			fmt.Fprintln(w, "\nVariables without a flag:")
			first = false
		}
		fmt.Fprintf(w, "  %s\n    \t%s\n", s.Var, s.usage())
	}
}

// PrintDefaults writes the flags of fs as flag.PrintDefaults does, but
// names the argument of a setting's flag by its type ("-addr string",
// "-refresh-interval duration"), where flag's own would say "value".
func PrintDefaults(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		var b strings.Builder
		fmt.Fprintf(&b, "  -%s", f.Name)
		name, usage := flag.UnquoteUsage(f)
		fv, setting := f.Value.(*flagValue)
		if setting {
			name = fv.s.value.typeName()
			if fv.s.value.isBool() {
				name = ""
			}
		}
		if name != "" {
			b.WriteString(" " + name)
		}
		if b.Len() <= 4 { // a one-letter bool flag fits on its line
			b.WriteString("\t")
		} else {
			b.WriteString("\n    \t")
		}
		b.WriteString(strings.ReplaceAll(usage, "\n", "\n    \t"))
		if d := f.DefValue; !setting && d != "" && d != "0" && d != "false" {
			if name == "string" {
				d = strconv.Quote(d)
			}
			fmt.Fprintf(&b, " (default %s)", d)
		}
		fmt.Fprintln(fs.Output(), b.String())
	})
}

// usage is the setting's line of --help: its doc, its variable and its
// default, in plain text.
func (s *Setting) usage() string {
	var where []string
	switch {
	case s.Flag != "" && s.Var != "" && s.Secret:
		where = append(where, "env "+s.Var+", or a file named by "+s.Var+"_FILE")
	case s.Flag != "" && s.Var != "":
		where = append(where, "env "+s.Var)
	case s.Secret:
		where = append(where, "or a file named by "+s.Var+"_FILE")
	}
	where = append(where, "default "+plain(s.defaultDoc()))
	return plain(s.Doc) + " (" + strings.Join(where, "; ") + ")"
}

// defaultDoc is the default as the reference writes it (Markdown).
func (s *Setting) defaultDoc() string {
	switch {
	case s.DefaultDoc != "":
		return s.DefaultDoc
	case s.Default == "":
		return "empty"
	}
	return "`" + s.Default + "`"
}

var (
	mdLink = regexp.MustCompile(`\[([^\]]*)\]\([^)]*\)`)
	// mdSeeLink is a link that only sends the reader to a section of the
	// reference: "([layout](#mirror-layout))", "; see [S3](#s3)".
	mdSeeLink = regexp.MustCompile(` ?\(\[[^\]]*\]\(#[^)]*\)\)|; see \[[^\]]*\]\(#[^)]*\)`)
)

// plain is Markdown as text for --help: without the links to sections of
// the reference, other links as their text, code without backquotes (which
// --help would take for the flag's argument name).
func plain(md string) string {
	md = mdSeeLink.ReplaceAllString(md, "")
	return strings.ReplaceAll(mdLink.ReplaceAllString(md, "$1"), "`", "")
}

func dashed(flag string) string {
	if flag == "" {
		return ""
	}
	return "--" + flag
}

func or(s, alt string) string {
	if s == "" {
		return alt
	}
	return s
}
