#!/bin/sh
# GET /games: The games served, with their route templates (operationId listGames).
# A public route: no key needed.
# -f: an error status (its JSON body: error, message) fails the command.

curl -fsS "${CARDCAT_URL:-http://localhost:8080}/games"
