// Package analytics computes the answers of the five paid game endpoints
// (prices by set, set statistics, completion value, trending sets, top
// cards) once per catalogue version, so that a request only validates its
// parameters, picks a ready body and writes it.
//
// # Use
//
// When a snapshot of a game is built, call Build with that GameSnapshot and
// the game's catalogue it was built from, and with the game's TCGplayer
// price history at the catalogue's day in Options.TCGHistory (read from the
// store, store.Store.TCGMarketAverages: trending's market_t); keep the *Game
// next to the snapshot (same version, same atomic swap: internal/serving
// does both). A handler (internal/httpapi, handler_{endpoint}.go):
//
//  1. checks the plan (403) once the key is known;
//  2. parses the query with ParsePricesBySet, ParseStatistics,
//     ParseTrending or ParseTopCards; a *ParamError (errors.Is
//     ErrInvalidParameter) is 400 {"error":"Invalid parameter","message":
//     err.Error()}, the message naming the parameter and its allowed values;
//  3. resolves :set to a set_id as the set listing does (set_id or
//     set_code, disambiguation, 404: the snapshot's job);
//  4. writes the Answer of PricesBySet, Statistics, CompletionValue,
//     Trending or TopCards as application/json: its Body, with its Tag as
//     the ETag (made once per version, not per request). An Answer without
//     a Body for a listed set is a programming error (500).
//
// The bodies are shared: never modify them.
//
// # Decisions
//
// The product's behaviour on the points SPEC.md and DECISIONS.md leave open
// (which products and which prices count, money and percentages, orders,
// ties, parameters) is written down in the README, "API behaviour", "Paid
// endpoints", for the README; each rule is also stated where it is coded
// (values.go, prices.go, statistics.go, completion.go, trending.go,
// history.go, topcards.go, params.go) and tested on the hand-checked fixture.
//
// # Cost
//
// Build renders, per set, both statistics and the completion value, and each
// item of the trending and top-cards lists once; it keeps none of the
// catalogue. A list answer for a limit k is the first k pre-rendered items
// between the envelope, assembled on the first request for that k and kept.
//
// The prices bodies are as large as the prices they show (about 1.2 kB per
// card for the three sources), and the snapshot already holds every price in
// its card records. So a prices body is rendered on the first request of its
// (set, source) in a version, under a sync.Once, from those records
// (catalog.CardPrices, rendered with catalog.AppendTCGPriceBlock and
// AppendCMPriceBlock, the card detail's own renderers) and kept for the
// version: some tens of microseconds for a set of 250 cards (see
// BenchmarkPricesRender). A version thus starts at a few bytes per card
// (BenchmarkBuild, heap-B/card) and grows by each prices body requested, up
// to the eager figure if every set is asked for with every source
// (all-prices-B/card). Every answer after its first is a map lookup or an
// index, with no allocation (BenchmarkAnswers).
package analytics
