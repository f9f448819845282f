// Command writedocs writes the documents the clients are generated from:
// openapi.json, the OpenAPI 3.1 document `cardcat serve` answers at
// GET /openapi.json with its defaults, and openapi-3.0.json, its OpenAPI 3.0
// copy for oapi-codegen (see package openapidoc). clients/generate.sh runs it:
//
//	go run ./clients/writedocs -dir clients
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cardcat/cardcat/clients/openapidoc"
)

func main() {
	dir := flag.String("dir", "clients", "directory to write openapi.json and openapi-3.0.json into")
	flag.Parse()
	if err := write(*dir); err != nil {
		fmt.Fprintln(os.Stderr, "writedocs:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	doc, err := openapidoc.Render()
	if err != nil {
		return err
	}
	doc30, err := openapidoc.Downgrade(doc)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, openapidoc.File), doc, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, openapidoc.File30), doc30, 0o644)
}
