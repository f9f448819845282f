#!/usr/bin/env bash
# Regenerates every generated file of the clients, from the route table:
#
#   0. samples/                    the code samples of every operation (go run ./samples/writesamples),
#                                  which the document carries as x-codeSamples
#   1. clients/openapi.json        the document `cardcat serve` serves on its defaults,
#      clients/openapi-3.0.json    and its OpenAPI 3.0 copy for oapi-codegen (go run ./clients/writedocs)
#   2. clients/ts/src/schema.ts    the TypeScript types, by the openapi-typescript that
#                                  clients/ts/package-lock.json pins
#   3. clients/go/cardcat/cardcat.gen.go   the Go client, by the oapi-codegen of its go:generate line
#   4. clients/python/src/cardcat/schemas.py and _operations.py   the Python client's types and
#                                  methods, by clients/python/generate.py (python3, standard library)
#
# then type-checks the TypeScript client and its tests against the new types. What the samples print
# (samples/output) is rewritten by their test: go test ./clients -run TestSamples -update.
# clients/clients_test.go fails while a committed file differs from what this writes.
#
# Step 2 needs node 20 and npm: clients/ts's packages are installed with npm ci
# into clients/ts/node_modules (git-ignored) when it is missing or older than the lock.
set -euo pipefail
cd "$(dirname "$0")/.."

go run ./samples/writesamples -dir samples
go run ./clients/writedocs -dir clients

if [ ! clients/ts/node_modules/.package-lock.json -nt clients/ts/package-lock.json ]; then
	(cd clients/ts && npm ci --no-audit --no-fund --loglevel=error)
fi
node clients/ts/node_modules/openapi-typescript/bin/cli.js clients/openapi.json -o clients/ts/src/schema.ts

(cd clients/go/cardcat && go generate .)

python3 clients/python/generate.py

node clients/ts/node_modules/typescript/bin/tsc -p clients/ts --noEmit
