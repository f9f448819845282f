// Package analytics computes the answers of the five paid game endpoints
// (prices by set, set statistics, completion value, trending sets, top
// cards) once per catalogue version, so that a request only validates its
// parameters, picks a precomputed body and writes it.
//
// # Use
//
// When a snapshot of a game is built, call Build with the game's catalogue
// and the snapshot's card_info renderer; keep the *Game next to the snapshot
// (same version, same atomic swap). A handler:
//
//  1. resolves :set to a set_id (set_id or set_code, disambiguation, 404:
//     the snapshot's job) and checks the plan (403);
//  2. parses the query with ParsePricesBySet, ParseStatistics,
//     ParseTrending or ParseTopCards; a *ParamError (errors.Is
//     ErrInvalidParameter) is 400 {"error":"Invalid parameter","message":
//     err.Error()}, the message naming the parameter and its allowed values;
//  3. writes the []byte of PricesBySet, Statistics, CompletionValue,
//     Trending or TopCards as application/json. A nil answer means the set
//     has no answers (not a listed set): 404.
//
// The bodies are shared: never modify them.
//
// # Decisions on the open points
//
// These complete SPEC.md ("Paid game endpoints") and DECISIONS.md ("Paid
// endpoints"); they belong in the README as the product's behaviour.
//
// Money. Every amount is summed in integer cents (int64). A mean or a
// percentage is one integer division of exact sums, rounded once, halves
// away from zero (0.5 cent up, -0.5 down). Amounts are JSON numbers with no
// trailing zeros, as in the card bodies ("12.5", "0.03", "5"); the
// statistics averages are strings with exactly two decimals ("5.10").
// Percentages have a sign and one decimal ("+12.3%", "-4.0%"); a change that
// rounds to zero is "+0.0%".
//
// Which products count. Prices by set lists every product of the set, sealed
// products and products of undetermined type included (the row's
// product_type tells them apart). Statistics, completion value, trending and
// top cards count only product_type "card"; set_info.total_cards there is
// that number of cards, so it equals the sum of rarity_breakdown.
//
// Which price of a card. Where no finish is asked for (completion value's
// Cardmarket side, trending, top cards) a card's Cardmarket values are its
// normal entry, or its foil entry when it has no normal price; the choice is
// by entry, not by field (a normal entry without avg30 does not borrow the
// foil's). TCGplayer finish names are compared case-insensitively.
//
// Prices by set (GET /{game}/prices/:set, source = both | tcg | cm).
//   - Rows come in the set listing's order (natural card number, unnumbered
//     cards by name, sealed products last); a card's rows in upstream finish
//     order, then any Cardmarket finish that joined none, normal before foil.
//   - Every priced TCGplayer finish is a row, variant = its name as
//     TCGplayer gives it. Cardmarket normal joins Normal; Cardmarket foil
//     joins Foil, or Holofoil when the card has no Foil. A Cardmarket finish
//     that joins nothing (a Cardmarket-only card, a card whose TCGplayer
//     finishes do not include it) is a row of its own with market_t null and
//     variant "Normal" or "Foil": TCGplayer's spelling, so that one finish
//     has one name in the variant column whichever marketplace prices it.
//   - A product without any price (no priced TCGplayer finish, no Cardmarket
//     price) has no row; a set with no price answers data [] and total 0.
//   - source=tcg (=cm) is exactly the both-list restricted to the rows that
//     have a TCGplayer (Cardmarket) price, with the other block null; the row
//     keeps the variant it has in the both-list (a Cardmarket foil that
//     joined Holofoil is the row "Holofoil"). "both" is accepted as an
//     explicit value and is what the response says without a source.
//   - Not paginated: limit and page are ignored; total = the number of rows.
//     A row's blocks carry exactly the spec's fields (market_t has no
//     sub_type_name: that is the row's variant).
//
// Statistics (GET /{game}/sets/:set/statistics, variant = normal | foil).
//   - market_t uses market_price of the variant's finish: Normal for normal;
//     Foil, else Holofoil, for foil. A card without that finish, or whose
//     finish has no market price, is not priced in the variant.
//   - market_c uses the variant's Cardmarket entry: avg, trend when avg is
//     null.
//   - min_price, max_price, the average and most_expensive run over the
//     cards priced in the variant; all four are null when none is.
//     most_expensive is the card at max_price that comes first in the set
//     listing; its price is max_price.
//   - trend_direction compares the mean avg7 with the mean avg30 over the
//     cards whose variant entry has both (no 1 EUR threshold here: the spec
//     sets it for growth and trending only): "up" above +5%, "down" below -5%,
//     "stable" otherwise, exactly +/-5% included, and "stable" when no card
//     has both averages.
//   - rarity_breakdown counts every card of the set (priced or not) by
//     rarity, "Unknown" for a card without one; keys in byte order (as
//     encoding/json orders a map).
//
// Completion value (GET /{game}/sets/:set/completion-value).
//   - One copy of every card, in its base finish. TCGplayer: Normal; else
//     the cheapest priced finish by market price; when no finish has a market
//     price, the one with the lowest low price; ties keep upstream order.
//     Cardmarket: normal, else foil (the rule above).
//   - low/market/high_estimate sum the base finish's low_price, market_price
//     and high_price (USD); low/avg/trend_estimate sum the Cardmarket low, avg
//     and trend (EUR). A card without a value adds nothing to that sum; an
//     estimate that no card contributes to is null (a set only on Cardmarket
//     has null USD estimates, not 0).
//   - breakdown_by_rarity: count = every card of the rarity; total_cost =
//     sum of the base finish's market_price in USD, 0 when none is priced
//     (the spec types it as a number). Keys in byte order.
//   - note (inside completion_cost) says one copy per card, base finish, and
//     that the two currencies are not comparable.
//
// Trending sets (GET /{game}/sets/trending, period = 7d, limit 10, max 50).
//   - A card takes part when its Cardmarket values have avg30 >= 1 EUR
//     (Options.MinAvg30) and an avg7. A set's price_change is (mean avg7 -
//     mean avg30) / mean avg30 over those cards, which is (sum avg7 - sum
//     avg30) / sum avg30, computed from the exact sums;
//     avg_price_current and avg_price_previous are the two means, each
//     rounded once to cents. A set with no such card is left out.
//   - card_count is the number of cards the change is computed over (the
//     set's full count is on /sets), so a caller can weigh a move.
//   - Sets are ordered by the size of the move, |price_change|, largest
//     first, compared exactly rather than on the rounded text; equal moves
//     follow the set list's order (newest release_date first, then name,
//     then set_id).
//   - top_movers: up to 3 of those cards by the size of their own change,
//     ties in set listing order; each {name, change}.
//   - market_c is never null (a set without data is left out); market_t is
//     {"status":"unavailable","message":...} until TCGplayer history covers
//     30 days.
//
// Top cards (GET /{game}/analytics/top-cards, metric = price | growth,
// source = tcg | cm, limit 10, max 100).
//   - price/tcg: the highest market_price over the card's finishes;
//     price/cm: trend of the card's Cardmarket values, avg when trend is
//     null; highest first.
//   - growth (cm only): cards whose Cardmarket values have avg30 >= 1 EUR
//     and an avg7; change_7d = (avg7 - avg30) / avg30; current_price = avg7;
//     the largest signed change first (rises before falls), compared exactly.
//   - Ties, in every list, go to the smaller card id (stable across
//     refreshes). card_info is the snapshot's, verbatim.
//
// Parameters. The first value of a repeated parameter counts; an empty value
// (?limit=) is the same as an absent one; the values of source, metric,
// variant and period are matched case-insensitively. limit is decimal
// digits, optionally after a "+", and at least 1; a larger value than the
// maximum (however many digits) is clamped; anything else (0, -1, 1.5, "ten")
// is 400. Top cards: metric defaults to price; source defaults to tcg, or cm
// for growth; an explicit source=tcg with growth is 400, as is source=both.
// When several parameters are wrong, the first in the order metric, source,
// limit (top cards) or period, limit (trending) is reported.
//
// # Cost
//
// Build renders, per set, the three prices bodies, both statistics and the
// completion value, and renders each item of the trending and top-cards lists
// once; it does not keep the catalogue. A list answer for a limit k is the
// first k pre-rendered items between the envelope, assembled on the first
// request for that k and kept. Every answer is then a map lookup or an index,
// with no allocation (see BenchmarkAnswers). The bodies cost about as many
// bytes as the prices they show: about 1.2 kB per card of the catalogue,
// nearly all of it the prices bodies (see BenchmarkBuild, answer-B/card).
package analytics
