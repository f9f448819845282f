// Command writesamples writes the code samples of every operation of the
// API into samples/ (see package samplegen), from the OpenAPI document the
// route table renders now, and their section of docs/api.md ("Code
// samples", with what each prints: samples/output, which `go test ./clients
// -run TestSamples -update` writes). clients/generate.sh runs it:
//
//	go run ./samples/writesamples -dir samples -docs docs/api.md
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cardcat/cardcat/clients/openapidoc"
	"github.com/cardcat/cardcat/samples"
	"github.com/cardcat/cardcat/samples/samplegen"
)

func main() {
	dir := flag.String("dir", "samples", "the samples directory to write into")
	docs := flag.String("docs", "docs/api.md", "the API's documentation, whose section of the samples is rewritten")
	flag.Parse()
	if err := write(*dir, *docs); err != nil {
		fmt.Fprintln(os.Stderr, "writesamples:", err)
		os.Exit(1)
	}
}

func write(dir, docs string) error {
	doc, err := openapidoc.Render()
	if err != nil {
		return err
	}
	files, err := samplegen.Files(doc)
	if err != nil {
		return err
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, content, 0o644); err != nil {
			return err
		}
	}
	section, err := samplegen.Markdown(doc, files, func(opID string) string {
		b, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(samples.OutputFile(opID))))
		return strings.TrimRight(string(b), "\n")
	})
	if err != nil {
		return err
	}
	api, err := os.ReadFile(docs)
	if err != nil {
		return err
	}
	text, err := samplegen.SpliceDocs(string(api), section)
	if err != nil {
		return err
	}
	return os.WriteFile(docs, []byte(text), 0o644)
}
