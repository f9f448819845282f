// Package samplegen writes the code samples of every operation of the API
// (samples/): one per language, curl, Python, TypeScript and Go, each with
// the client of clients/ as a caller installs it, on the bundled sample's
// ids (the parameters' examples of the OpenAPI document, apiref's
// paramExamples). The requests are the document's; what each sample does
// with the answer is written once per route, for every language, in
// templates/; the base game's twin of a /{game}/ route (pkmGetCard of
// getCard) is the same sample on its own path and ids.
//
// `go run ./samples/writesamples` rewrites the files; clients' TestSamplesFresh
// fails while one differs from what Files renders now, and TestSamples runs
// them all against a real server.
package samplegen

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"go/format"
	"net/url"
	"slices"
	"sort"
	"strings"
	"text/template"

	"github.com/cardcat/cardcat/samples"
)

//go:embed templates/*.tmpl
var templates embed.FS

// Operation is one operation of the document, as the templates see it.
type Operation struct {
	ID      string // operationId: getCard, pkmGetCard
	Family  string // the route's operation: getCard for both
	Method  string
	Path    string // the document's path: /{game}/cards/{id}
	Summary string
	Public  bool
	Paid    bool
	Game    string         // dbs for a /{game}/ path, the base game (pkm) for its own; "" for a service route
	Ex      map[string]any // the parameters' examples, {game} included
}

// Operations are the document's operations, sorted by operationId.
func Operations(doc []byte) ([]Operation, error) {
	var d struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Parameters map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("samplegen: %w", err)
	}
	type param struct {
		Ref     string `json:"$ref"`
		Name    string
		In      string
		Example any
	}
	var ops []Operation
	ids := map[string]bool{}
	for path, item := range d.Paths {
		for method, raw := range item {
			var o struct {
				OperationID string
				Summary     string
				Security    *[]any
				Paid        bool `json:"x-paid"`
				Parameters  []param
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("samplegen: %s %s: %w", method, path, err)
			}
			ids[o.OperationID] = true
			op := Operation{ID: o.OperationID, Family: o.OperationID, Method: strings.ToUpper(method), Path: path,
				Summary: o.Summary, Public: o.Security != nil && len(*o.Security) == 0, Paid: o.Paid, Ex: map[string]any{}}
			for _, p := range o.Parameters {
				if p.Ref != "" {
					var c param
					if err := json.Unmarshal(d.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")], &c); err != nil {
						return nil, fmt.Errorf("samplegen: %s: %w", p.Ref, err)
					}
					p = c
				}
				if p.Example != nil {
					op.Ex[p.Name] = p.Example
				}
			}
			if game, ok := op.Ex["game"].(string); ok {
				op.Game = game
			}
			ops = append(ops, op)
		}
	}
	// A base game's own operation is named its code + the route's
	// (pkmGetCard); its game is that code.
	for i := range ops {
		op := &ops[i]
		for j := 1; j < len(op.ID); j++ {
			if op.ID[j] >= 'A' && op.ID[j] <= 'Z' {
				if strings.ToLower(op.ID[:j]) == op.ID[:j] && op.ID[:j] != "get" && op.ID[:j] != "list" && op.ID[:j] != "search" && op.ID[:j] != "post" {
					op.Game = op.ID[:j]
					op.Family = strings.ToLower(op.ID[j:j+1]) + op.ID[j+1:]
				}
				break
			}
		}
	}
	sort.Slice(ops, func(i, j int) bool { return ops[i].ID < ops[j].ID })
	return ops, nil
}

// Files renders every sample of the document's operations: path under
// samples/ → content.
func Files(doc []byte) (map[string][]byte, error) {
	ops, err := Operations(doc)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, l := range samples.Langs {
		t, err := template.New(l.Name).Funcs(funcs).ParseFS(templates, "templates/"+l.Name+".tmpl")
		if err != nil {
			return nil, fmt.Errorf("samplegen: %w", err)
		}
		for _, op := range ops {
			if t.Lookup(op.Family) == nil {
				return nil, fmt.Errorf("samplegen: templates/%s.tmpl has no sample of %s (%s %s): write one", l.Name, op.Family, op.Method, op.Path)
			}
			var b bytes.Buffer
			if err := t.ExecuteTemplate(&b, op.Family, op); err != nil {
				return nil, fmt.Errorf("samplegen: %s of %s: %w", l.Name, op.ID, err)
			}
			src := tidy(b.Bytes())
			if l.Name == "go" {
				if src, err = format.Source(src); err != nil {
					return nil, fmt.Errorf("samplegen: go of %s: %w\n%s", op.ID, err, b.Bytes())
				}
			}
			files[l.File(op.ID)] = src
		}
	}
	return files, nil
}

// tidy drops the blank lines the templates' actions leave at the start and
// runs of blank lines, and ends the file in one newline.
func tidy(b []byte) []byte {
	var out []string
	blank := true
	for line := range strings.Lines(string(b)) {
		line = strings.TrimRight(line, " \t\n")
		if line == "" {
			if blank {
				continue
			}
			blank = true
		} else {
			blank = false
		}
		out = append(out, line)
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return []byte(strings.Join(out, "\n") + "\n")
}

var funcs = template.FuncMap{
	// json is a value as a JSON literal: a string in double quotes, which
	// Python, TypeScript and Go read the same.
	"json": func(v any) (string, error) {
		b, err := json.Marshal(v)
		return string(b), err
	},
	// url is the operation's path with its examples, and the query
	// parameters named (their examples) or given (name=value): what curl asks for.
	"url": func(op Operation, query ...string) string {
		path := op.Path
		for name, v := range op.Ex {
			path = strings.ReplaceAll(path, "{"+name+"}", url.PathEscape(fmt.Sprint(v)))
		}
		if len(query) > 0 {
			q := url.Values{}
			for _, name := range query {
				if v, ok := op.Ex[name]; ok {
					q.Set(name, fmt.Sprint(v))
				} else if k, v, ok := strings.Cut(name, "="); ok {
					q.Set(k, v)
				}
			}
			path += "?" + q.Encode()
		}
		return path
	},
	// pyGame is the Python client's object of the operation's game.
	"pyGame": func(op Operation) string { return "client." + op.Game },
	// tsOpts is the TypeScript client's options of a request, after a
	// comma: the path parameters, the query given (a TypeScript object's
	// fields) and other options; nothing when there are none.
	"tsOpts": func(op Operation, query, extra string) string {
		var params []string
		if p := pathParams(op); p != "" {
			params = append(params, "path: "+p)
		}
		if query != "" {
			params = append(params, "query: { "+query+" }")
		}
		var opts []string
		if len(params) > 0 {
			opts = append(opts, "params: { "+strings.Join(params, ", ")+" }")
		}
		if extra != "" {
			opts = append(opts, extra)
		}
		if len(opts) == 0 {
			return ""
		}
		return ", { " + strings.Join(opts, ", ") + " }"
	},
	// goImports are the packages a Go sample imports beyond those of
	// every sample.
	"goImports": func(family string) []string {
		return map[string][]string{
			"getDocs": {"strings"}, "getOpenAPI": {"encoding/json"}, "getLLMsTxt": {"strings"}, "listChanges": {"time"},
			"getBulkFile": {"bufio", "compress/gzip", "io"},
		}[family]
	},
	// pyImports and tsImports are the modules a Python or TypeScript
	// sample imports beyond the client.
	"pyImports": func(family string) []string {
		return map[string][]string{"getBulkFile": {"gzip"}}[family]
	},
	"tsImports": func(family string) []string {
		return map[string][]string{
			"getCardImage": {`import { writeFile } from "node:fs/promises";`},
			"getSetImage":  {`import { writeFile } from "node:fs/promises";`},
			"getBulkFile": {`import { createReadStream, createWriteStream } from "node:fs";`,
				`import { createInterface } from "node:readline";`, `import { Readable } from "node:stream";`,
				`import { pipeline } from "node:stream/promises";`, `import type { ReadableStream } from "node:stream/web";`,
				`import { createGunzip } from "node:zlib";`},
		}[family]
	},
	// goName is the Go client's name of the operation: GetCard, PkmGetCard.
	"goName": func(op Operation) string { return strings.ToUpper(op.ID[:1]) + op.ID[1:] },
	// goGame is the Go client's game argument and a comma, `"dbs", `;
	// nothing for the base game's own operation.
	"goGame": func(op Operation) string {
		if strings.HasPrefix(op.Path, "/{game}/") {
			return fmt.Sprintf("%q, ", op.Game)
		}
		return ""
	},
}

// pathParams are the TypeScript client's path parameters of op, { game:
// "dbs", id: "..." }; "" when it has none.
func pathParams(op Operation) string {
	var parts []string
	for _, seg := range strings.Split(op.Path, "/") {
		if name, ok := strings.CutPrefix(seg, "{"); ok {
			name = strings.TrimSuffix(name, "}")
			b, _ := json.Marshal(op.Ex[name])
			parts = append(parts, name+": "+string(b))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "{ " + strings.Join(parts, ", ") + " }"
}

// Families are the routes' operations the templates must have a sample of.
func Families(ops []Operation) []string {
	var f []string
	for _, op := range ops {
		if !slices.Contains(f, op.Family) {
			f = append(f, op.Family)
		}
	}
	return f
}

// Markdown markers of the section of docs/api.md that Markdown writes.
const (
	DocsBegin = "<!-- The code samples: written by `go run ./samples/writesamples` from samples/; do not edit. -->"
	DocsEnd   = "<!-- End of the code samples. -->"
)

// Markdown is the section of docs/api.md that shows the samples: per route,
// the four samples of its operation (of the /{game}/ path, on Dragon Ball
// Super's ids) without the client's setup, which the section shows once,
// and what they print on the bundled sample (output, by operationId); the
// base game's twin by what it prints. files are Files' output.
func Markdown(doc []byte, files map[string][]byte, output func(opID string) string) (string, error) {
	ops, err := Operations(doc)
	if err != nil {
		return "", err
	}
	byID := map[string]Operation{}
	for _, op := range ops {
		byID[op.ID] = op
	}
	rank := func(op Operation) int {
		if i := slices.Index(docsOrder, op.Family); i >= 0 {
			return i
		}
		return len(docsOrder)
	}
	ops = slices.Clone(ops)
	slices.SortStableFunc(ops, func(a, b Operation) int { return rank(a) - rank(b) })
	var b strings.Builder
	b.WriteString(DocsBegin + "\n\n")
	b.WriteString("## Code samples\n\n")
	b.WriteString("Every operation in curl, Python, TypeScript and Go, each with the [client](#client-libraries) of its language " +
		"as you install it, on the ids of the sample bundled with the server (`make run` serves it). CI runs every one " +
		"against a real server and checks that it prints what is shown under it; the reference at `/docs` shows the same " +
		"samples beside each operation, and the repository keeps them as files that run as they are (`samples/`: " +
		"`curl/`, `python/`, `ts/`, `go/`, one per operationId). Each reads your key from `CARDCAT_API_KEY` and the " +
		"server from `CARDCAT_URL` (default `http://localhost:8080`), and starts with the client's setup, shown here once:\n\n")
	setup := map[string]string{}
	for _, l := range samples.Langs {
		src := string(files[l.File("getCard")])
		head, _ := cutSetup(l.Name, src)
		for strings.HasPrefix(head, "#") || strings.HasPrefix(head, "//") {
			_, head, _ = strings.Cut(head, "\n")
		}
		setup[l.Name] = head
		if l.Name == "curl" {
			continue
		}
		fmt.Fprintf(&b, "```%s\n%s```\n\n", l.Fence, head)
	}
	b.WriteString("The Pokémon routes (without `/{game}`) are the same samples with `client.pkm` in Python, no `game` in " +
		"TypeScript's path, the `Pkm...` methods in Go (`PkmGetCardWithResponse`) and Pokémon's ids; what each prints " +
		"is shown after its route's.\n\n")
	for _, op := range ops {
		if op.Game != "" && !strings.HasPrefix(op.Path, "/{game}/") && op.Family != op.ID {
			if _, ok := byID[op.Family]; ok {
				continue // the twin, shown with its route
			}
		}
		fmt.Fprintf(&b, "### Samples: %s %s\n\n%s (`%s`).\n\n", op.Method, op.Path, op.Summary, op.ID)
		for _, l := range samples.Langs {
			_, body := cutSetup(l.Name, string(files[l.File(op.ID)]))
			fmt.Fprintf(&b, "%s:\n\n```%s\n%s```\n\n", l.Label, l.Fence, body)
		}
		if out := output(op.ID); out != "" {
			fmt.Fprintf(&b, "Python, TypeScript and Go print, on the sample:\n\n```text\n%s\n```\n\n", out)
		}
		for _, twin := range ops {
			if twin.Family == op.ID && twin.ID != op.ID {
				fmt.Fprintf(&b, "Pokémon, `%s %s` (`%s`", twin.Method, twin.Path, twin.ID)
				for _, name := range []string{"id", "set", "q", "ids", "productId", "idProduct"} {
					if v, ok := twin.Ex[name]; ok {
						fmt.Fprintf(&b, ", %s `%v`", name, v)
					}
				}
				b.WriteString(")")
				if out := output(twin.ID); out != "" {
					fmt.Fprintf(&b, " prints:\n\n```text\n%s\n```\n\n", out)
				} else {
					b.WriteString(".\n\n")
				}
			}
		}
	}
	b.WriteString(DocsEnd + "\n")
	return b.String(), nil
}

// cutSetup splits a sample into the client's setup and the rest: curl's
// comments and the command; Python's and TypeScript's imports and client;
// Go's program up to the client and main's body, dedented. A sample
// without the usual setup (Go's MCP sample) is all body.
func cutSetup(lang, src string) (setup, body string) {
	lines := strings.SplitAfter(src, "\n")
	cut := 0
	switch lang {
	case "curl":
		for cut < len(lines) && (strings.HasPrefix(lines[cut], "#") || strings.TrimSpace(lines[cut]) == "") {
			cut++
		}
	case "python":
		for i, line := range lines {
			if strings.HasPrefix(line, "client = cardcat.Client(") {
				cut = i + 1
			}
		}
	case "typescript":
		for i, line := range lines {
			if line == "});\n" && strings.Contains(strings.Join(lines[:i], ""), "createCardcatClient({") {
				cut = i + 1
				break
			}
		}
	case "go":
		start := strings.Index(src, "cardcat.NewClientWithResponses(")
		if start < 0 {
			return "", src
		}
		end := strings.Index(src[start:], "\n\t}\n")
		if end < 0 {
			return "", src
		}
		setupEnd := start + end + len("\n\t}\n")
		rest := src[setupEnd:]
		mainEnd := strings.Index(rest, "\n}\n")
		if mainEnd < 0 {
			return "", src
		}
		var dedented []string
		for _, line := range strings.SplitAfter(strings.Trim(rest[:mainEnd+1], "\n")+"\n", "\n") {
			dedented = append(dedented, strings.TrimPrefix(line, "\t"))
		}
		return src[:setupEnd] + "}\n", strings.Join(dedented, "") + strings.TrimLeft(rest[mainEnd+len("\n}\n"):], "\n")
	}
	setup = strings.Join(lines[:cut], "")
	body = strings.TrimLeft(strings.Join(lines[cut:], ""), "\n")
	// The sample's own imports stay with it.
	var own []string
	for _, line := range lines[:cut] {
		if strings.HasPrefix(line, "import ") && line != "import os\n" && line != "import cardcat\n" && !strings.Contains(line, `"cardcat-client"`) {
			own = append(own, line)
		}
	}
	if len(own) > 0 {
		body = strings.Join(own, "") + "\n" + body
	}
	return setup, body
}

// docsOrder is the order of the routes in docs/api.md's "Endpoints"; a
// route not named here comes after them.
var docsOrder = []string{"getRoot", "listGames", "getHealth", "getDocs", "getOpenAPI", "getLLMsTxt",
	"listSets", "getSetCards", "getCard", "getCardByTCGplayerProduct", "getCardByCardmarketProduct", "getCards",
	"searchCards", "getCardImage", "getSetImage", "listBulkFiles", "getBulkFile", "listChanges",
	"getSetPrices", "getSetStatistics", "getSetCompletionValue", "getTrendingSets", "getTopCards", "getCardHistory",
	"listAlerts", "postMCP"}

// SpliceDocs puts section (Markdown's) into docs/api.md's text in the place
// of the one between its markers, or, the first time, before its section
// "## For AI agents: MCP".
func SpliceDocs(api, section string) (string, error) {
	if i := strings.Index(api, DocsBegin); i >= 0 {
		j := strings.Index(api[i:], DocsEnd)
		if j < 0 {
			return "", fmt.Errorf("samplegen: docs/api.md has %q without %q", DocsBegin, DocsEnd)
		}
		return api[:i] + section + strings.TrimPrefix(api[i+j+len(DocsEnd):], "\n"), nil
	}
	i := strings.Index(api, "\n## For AI agents: MCP\n")
	if i < 0 {
		return "", fmt.Errorf("samplegen: docs/api.md has no section \"## For AI agents: MCP\" to put the samples before")
	}
	return api[:i+1] + section + "\n" + api[i+1:], nil
}
