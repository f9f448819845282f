// Package bench holds the assets of cardcat's load harness: the wrk Lua
// scripts, embedded so that the harness (bench/cmd/loadbench) runs from any
// directory. See bench/README.md.
package bench

import "embed"

// Lua holds lua/*.lua, the scripts wrk runs.
//
//go:embed lua/*.lua
var Lua embed.FS
