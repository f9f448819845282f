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
