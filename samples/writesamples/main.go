// Command writesamples writes the code samples of every operation of the
// API into samples/ (see package samplegen), from the OpenAPI document the
// route table renders now. clients/generate.sh runs it:
//
//	go run ./samples/writesamples -dir samples
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cardcat/cardcat/clients/openapidoc"
	"github.com/cardcat/cardcat/samples/samplegen"
)

func main() {
	dir := flag.String("dir", "samples", "the samples directory to write into")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "writesamples:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
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
	return nil
}
