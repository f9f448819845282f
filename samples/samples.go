// Package samples holds the code samples of every operation of the API, in
// curl, Python, TypeScript and Go, each with the client of clients/ as a
// caller installs it, on the bundled sample's ids; and what each prints on
// the bundled sample (output/). They are written by samplegen (go run
// ./samples/writesamples, which make clients runs), run by clients'
// TestSamples against a real server, and embedded here for the OpenAPI
// document, whose operations carry them as x-codeSamples (apiref).
package samples

import (
	"embed"
	"strings"
)

//go:embed curl python ts go output
var files embed.FS

// Lang is one language of the samples: where its files are and what the
// OpenAPI document calls it (x-codeSamples' lang, Redocly's and Scalar's
// names, and label).
type Lang struct {
	Name  string // the template's name: curl, python, typescript, go
	Lang  string
	Label string
	Fence string // a Markdown code fence's language
}

// Langs are the samples' languages, in the order the reference shows them.
var Langs = []Lang{
	{Name: "curl", Lang: "Shell", Label: "curl", Fence: "sh"},
	{Name: "python", Lang: "Python", Label: "Python", Fence: "python"},
	{Name: "typescript", Lang: "TypeScript", Label: "TypeScript", Fence: "ts"},
	{Name: "go", Lang: "Go", Label: "Go", Fence: "go"},
}

// File is where a language's sample of an operation is, under samples/.
func (l Lang) File(opID string) string {
	switch l.Name {
	case "curl":
		return "curl/" + opID + ".sh"
	case "python":
		return "python/" + opID + ".py"
	case "typescript":
		return "ts/" + opID + ".ts"
	default:
		return "go/" + opID + "/main.go"
	}
}

// OutputFile is where what the Python, TypeScript and Go samples of an
// operation print on the bundled sample is kept (all three print the same).
func OutputFile(opID string) string { return "output/" + opID + ".txt" }

// Sample is one language's sample of an operation, as x-codeSamples lists it.
type Sample struct {
	Lang   string `json:"lang"`
	Label  string `json:"label"`
	Source string `json:"source"`
}

// Of returns the samples of an operation, one per language in Langs'
// order, or none when it has none.
func Of(opID string) []Sample {
	var out []Sample
	for _, l := range Langs {
		b, err := files.ReadFile(l.File(opID))
		if err != nil {
			return nil
		}
		out = append(out, Sample{Lang: l.Lang, Label: l.Label, Source: string(b)})
	}
	return out
}

// Output is what the samples of an operation print on the bundled sample;
// "" when it is not kept.
func Output(opID string) string {
	b, err := files.ReadFile(OutputFile(opID))
	if err != nil {
		return ""
	}
	return strings.TrimRight(string(b), "\n")
}
