package apiref

import (
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/account"
	"github.com/cardcat/cardcat/internal/game"
)

// LLMs renders GET /llms.txt (the llms.txt convention: a title, a
// one-paragraph summary, then sections of short lines) from the route table,
// so that it lists what the server serves, as the OpenAPI document does.
func LLMs(ref *Reference) []byte {
	base := ref.PublicURL
	var b strings.Builder
	line := func(parts ...string) {
		for _, p := range parts {
			b.WriteString(p)
		}
		b.WriteByte('\n')
	}
	line("# cardcat API")
	line()
	line("> A read-only REST API (JSON over HTTP GET) for trading-card catalogues and their marketplace prices: ",
		GameNames(ref.Games), ". Every card has its catalogue data and the prices of TCGplayer (USD, one per finish) and ",
		"Cardmarket (EUR, normal and foil), linked card by card and refreshed daily.")
	line()
	line("- Base URL: ", base)
	line("- Machine-readable description (OpenAPI 3.1): ", base, "/openapi.json")
	line("- Full documentation for people: ", base, "/docs")
	line()
	line("## Authentication")
	line()
	line("- Send the API key in the header `X-API-Key: pk_live_...`, or as `Authorization: Bearer pk_live_...`.")
	line("- A key is `pk_live_` or `pk_test_` followed by 32 letters and digits; the server's operator issues keys.")
	line("- ", PublicPathsNote(ref.Routes), " Every other route needs a key and counts toward the account's limits.")
	line("- Paid routes need the Ultra or Business plan or an active 7-day trial", ProGamesNote(ref.Games), "; otherwise 403 `Plan upgrade required` ",
		"with `redeem_url` (start the trial) or `upgrade_url` (trial ended).")
	line()
	line("## Routes")
	line()
	line("All are GET. `{game}` is one of: ", ref.gameCodes(), ref.baseGameNote(), ". `{set}` is a set_id (unique) or a set_code (any case); ",
		"`{id}` is a card id (the game's code, `_`, 16 hex; or 64 hex for a Cardmarket-only card); `{productId}` and `{idProduct}` ",
		"are TCGplayer's and Cardmarket's product numbers (`market_t.product_id`, `market_c.product_id`).")
	line()
	for i := range ref.Routes {
		rt := &ref.Routes[i]
		var notes []string
		for _, p := range rt.Op.Params {
			if p.In == "query" {
				notes = append(notes, paramNote(p))
			}
		}
		access := ""
		switch rt.Access {
		case Public:
			access = " (public)"
		case Paid:
			access = " (paid)"
		}
		params := ""
		if len(notes) > 0 {
			params = " Query: " + strings.Join(notes, "; ") + "."
		}
		if rt.ServedPrefixed(ref.Games) {
			line("- GET ", rt.Path, access, ": ", rt.Op.Summary, ".", params)
		} else if base, ok := ref.Games.Base(); ok {
			line("- GET ", strings.TrimPrefix(rt.Path, "/{game}"), access, ": ", base.Name, " only: ", rt.Op.Summary, ".", params)
		}
	}
	line()
	line("## For AI agents: MCP")
	line()
	line("- POST ", base, ref.MCP.Path, " speaks the Model Context Protocol (streamable HTTP, stateless), with the same key headers.")
	var tools []string
	for _, t := range ref.MCP.Tools {
		tools = append(tools, "`"+t.Name+"`")
	}
	line("- Tools: ", strings.Join(tools, ", "), ": each calls one route above and answers its JSON; ",
		"each tool call counts as one request, the protocol's other messages do not.")
	free := account.FreeLimits()
	line()
	line("## Limits")
	line()
	line("- Per account (all its keys, every game, every route), in fixed UTC windows: the Free plan has ",
		strconv.FormatInt(free.Hour, 10), " requests an hour and ", strconv.FormatInt(free.Day, 10), " a day.")
	line("- Every answer has X-RateLimit-Limit-Hour, X-RateLimit-Remaining-Hour, X-RateLimit-Limit-Day, X-RateLimit-Remaining-Day.")
	line("- Past either limit: 429 `Rate limit exceeded` with `Retry-After` (seconds). Requests without a valid key are limited per client address.")
	line("- Revalidation is free: a keyed 200 has an `ETag`; send it in `If-None-Match` and an unchanged answer is a 304 without a body, ",
		"never counted, answered even past the limits (a valid key is still needed).")
	line("- Page sizes: a set's cards ", strconv.Itoa(ref.Pages.SetDefault), " by default (at most ", strconv.Itoa(ref.Pages.SetMax),
		"); search ", strconv.Itoa(ref.Pages.SearchDefault), " (at most ", strconv.Itoa(ref.Pages.SearchMax), "). A larger `limit` is taken as the maximum.")
	line()
	line("## Errors")
	line()
	line("- Every error is JSON `{\"error\": \"...\", \"message\": \"...\"}`; `error` is stable (test on it), `message` says what to fix.")
	line("- 400 invalid parameter, card id or search query; 401 no or bad key; 403 paid route without access; ",
		"404 unknown set, card, image or path (an unknown path has `did_you_mean`); 405 any method but GET; ",
		"429 rate limit; 502 image source down; 503 loading or search busy (`Retry-After`).")
	line("- A set code shared by several sets answers 200 `{\"disambiguation\": true, \"matches\": [...]}`: repeat with a set_id.")
	line("- Amounts are JSON numbers (USD for TCGplayer, EUR for Cardmarket; never compare the two); a missing value is null.")
	return []byte(b.String())
}

// paramNote is a query parameter in a few words: name=values (default).
func paramNote(p Param) string {
	sc := p.Schema
	var b strings.Builder
	b.WriteString("`" + p.Name + "`")
	switch {
	case len(sc.Enum) > 0:
		b.WriteString(" " + strings.Join(sc.Enum, "|"))
	case sc.Type == "integer" && sc.Maximum != nil:
		b.WriteString(" 1-" + strconv.Itoa(*sc.Maximum))
	case sc.Type == "integer":
		b.WriteString(" from 1")
	case sc.MinLength != nil && sc.MaxLength != nil:
		b.WriteString(" " + strconv.Itoa(*sc.MinLength) + "-" + strconv.Itoa(*sc.MaxLength) + " characters")
	}
	if p.Required {
		b.WriteString(", required")
	} else if sc.Default != nil {
		b.WriteString(", default ")
		switch d := sc.Default.(type) {
		case int:
			b.WriteString(strconv.Itoa(d))
		case string:
			b.WriteString(d)
		}
	}
	return b.String()
}

// baseGameNote says where the base game's routes are, when there is one.
func (ref *Reference) baseGameNote() string {
	base, ok := ref.Games.Base()
	if !ok {
		return ""
	}
	return "; the base game, " + base.Name + " (`" + base.Code + "`), is served at the same routes without `/{game}` (`/sets`, `/cards/{id}`, ...)"
}

// ProGamesNote names the games whose paid routes the Pro plan opens: " (the
// Pro plan also opens those of `pkm` and `op`)", or "" when none.
func ProGamesNote(games *game.Registry) string {
	var codes []string
	for _, g := range games.All() {
		if g.ProPaid {
			codes = append(codes, "`"+g.Code+"`")
		}
	}
	if len(codes) == 0 {
		return ""
	}
	return " (the Pro plan also opens those of " + strings.Join(codes, " and ") + ")"
}

func (ref *Reference) gameCodes() string {
	var codes []string
	for _, g := range ref.Games.All() {
		if g.Base {
			continue
		}
		codes = append(codes, "`"+g.Code+"` ("+g.Name+")")
	}
	return strings.Join(codes, ", ")
}
