package synth

import (
	"encoding/json"
	"io"
	"strconv"
)

// The cases real data has and cardcat must handle. Both modes plant every one
// of them (the name and price cases in every group large enough, see
// groupJob.run) and count them, with a few examples, in synth-cases.json at
// the top of the mirror, so that tests can find them without hard-coding ids.
const (
	// caseLinkedByName: the Cardmarket single carries exactly the TCGplayer name.
	caseLinkedByName = "linked_by_name"
	// caseNameCosmetic: the Cardmarket name differs only in case, punctuation,
	// apostrophes (’ vs ') or whitespace (" - " vs " ", doubled or trailing
	// spaces): linking must normalise names. Detail names the variation.
	caseNameCosmetic = "name_cosmetic_variation"
	// caseRenamedLinked: the Cardmarket name is unrelated to TCGplayer's; a
	// links/links.csv row links the two products explicitly.
	caseRenamedLinked = "renamed_linked_by_links_csv"
	// caseRenamedUnlinked: as above without a links.csv row: the two stay
	// separate cards (a TCGplayer card and a Cardmarket-only card).
	caseRenamedUnlinked = "renamed_not_linked"
	// caseAmbiguous: two Cardmarket products of the matched expansion carry
	// the name of one TCGplayer product (once normalised): cardcat must refuse
	// to link either.
	caseAmbiguous = "ambiguous_name"
	// caseTCGOnly: a TCGplayer product without a Cardmarket product (about 4%
	// of cards, code cards, cases and other sealed products Cardmarket does not
	// sell).
	caseTCGOnly = "tcgplayer_only"
	// caseCMOnly: a Cardmarket single with no TCGplayer product inside an
	// expansion that matches a TCGplayer group (about 4% of the expansion).
	caseCMOnly = "cardmarket_only_in_matched_expansion"
	// caseCMOnlyExpansion: a Cardmarket expansion that matches no TCGplayer
	// group (one per game), with a handful of products.
	caseCMOnlyExpansion = "cardmarket_only_expansion"
	// caseSealedNonSingle: a sealed TCGplayer product sold on Cardmarket as a
	// non-single; for Magic with idProduct = the mcmId of mtg-sealed-content
	// where one exists (then under MTGJSON's name, so only that link joins them).
	caseSealedNonSingle = "sealed_non_single"
	// caseMTGJSONOrphan: an mtg-sealed-content link whose TCGplayer product is
	// not in the mirror; the Cardmarket product exists.
	caseMTGJSONOrphan = "mtg_sealed_content_link_without_tcgplayer_product"
	// caseTCGNoPriceRow: a TCGplayer product with no price row.
	caseTCGNoPriceRow = "tcgplayer_no_price_row"
	// caseTCGNullPriceRow: a TCGplayer price row whose values are all null
	// (the finish is listed, nothing is priced). Detail names the finish.
	caseTCGNullPriceRow = "tcgplayer_price_row_all_null"
	// caseTCGFoilOnly: a card TCGplayer prices in a foil finish only.
	caseTCGFoilOnly = "tcgplayer_foil_only"
	// caseCMNoGuide: a Cardmarket product with no price guide entry.
	caseCMNoGuide = "cardmarket_no_price_guide_entry"
	// caseCMNullGuide: a price guide entry whose values are all null.
	caseCMNullGuide = "cardmarket_price_guide_all_null"
	// caseTCGFoilCMNoFoil: TCGplayer prices a foil finish, Cardmarket's foil
	// fields are null (normal priced).
	caseTCGFoilCMNoFoil = "tcgplayer_foil_cardmarket_no_foil"
	// caseCMFoilTCGNoFoil: Cardmarket prices only foil, TCGplayer only Normal.
	caseCMFoilTCGNoFoil = "cardmarket_foil_only_tcgplayer_normal"
	// caseTrendUp, caseTrendDown, caseTrendStable: expansions whose cards'
	// 7-day averages are above, below or level with their 30-day averages.
	caseTrendUp     = "expansion_trend_up"
	caseTrendDown   = "expansion_trend_down"
	caseTrendStable = "expansion_trend_stable"
	// caseCMFrom1EUR, caseCMBelow1EUR: singles whose trend price is from 1
	// EUR up, or below (the growth and trending threshold).
	caseCMFrom1EUR  = "cardmarket_single_from_1_eur"
	caseCMBelow1EUR = "cardmarket_single_below_1_eur"
	// caseSharedSetCode, caseEmptySetCode, casePresaleGroup: TCGplayer groups
	// sharing an abbreviation, with an empty one, published in the future.
	caseSharedSetCode = "tcgplayer_shared_set_code"
	caseEmptySetCode  = "tcgplayer_empty_set_code"
	casePresaleGroup  = "tcgplayer_presale_group"
)

// maxExamples bounds the examples kept per case and game.
const maxExamples = 8

// Example is one instance of a case.
type Example struct {
	TCGProductID  int    `json:"tcgplayer_product_id,omitempty"`
	TCGGroupID    int    `json:"tcgplayer_group_id,omitempty"`
	CMProductIDs  []int  `json:"cardmarket_product_ids,omitempty"`
	CMExpansionID int    `json:"cardmarket_expansion_id,omitempty"`
	Name          string `json:"name,omitempty"`
	CMName        string `json:"cardmarket_name,omitempty"`
	Detail        string `json:"detail,omitempty"`
}

// Case is how often a case occurs in one game, with the first examples.
type Case struct {
	Count    int       `json:"count"`
	Examples []Example `json:"examples"`
}

type caseLog struct {
	cases map[string]*Case
}

func newCaseLog() *caseLog { return &caseLog{cases: map[string]*Case{}} }

func (l *caseLog) add(name string, ex Example) {
	if l.note(name) {
		l.example(name, ex)
	}
}

// note counts one occurrence of a case and reports whether an example of it
// is still wanted (to skip building examples nobody keeps).
func (l *caseLog) note(name string) bool {
	c := l.cases[name]
	if c == nil {
		c = &Case{Examples: []Example{}}
		l.cases[name] = c
	}
	c.Count++
	return len(c.Examples) < maxExamples
}

// example keeps an example of a case counted with note.
func (l *caseLog) example(name string, ex Example) {
	c := l.cases[name]
	c.Examples = append(c.Examples, ex)
}

// merge adds o's cases after l's.
func (l *caseLog) merge(o *caseLog) {
	for name, oc := range o.cases {
		c := l.cases[name]
		if c == nil {
			c = &Case{Examples: []Example{}}
			l.cases[name] = c
		}
		c.Count += oc.Count
		for _, ex := range oc.Examples {
			if len(c.Examples) < maxExamples {
				c.Examples = append(c.Examples, ex)
			}
		}
	}
}

// GameCounts are the numbers of one game in a generated mirror.
type GameCounts struct {
	TCGGroups     int `json:"tcgplayer_groups"`
	TCGProducts   int `json:"tcgplayer_products"`
	TCGPriceRows  int `json:"tcgplayer_price_rows"`
	CMExpansions  int `json:"cardmarket_expansions"`
	CMSingles     int `json:"cardmarket_singles"`
	CMNonSingles  int `json:"cardmarket_non_singles"`
	CMPriceGuides int `json:"cardmarket_price_guide_entries"`
	LinksCSVRows  int `json:"links_csv_rows"`
	MTGJSONLinks  int `json:"mtg_sealed_content_links"`
	MTGJSONFiles  int `json:"mtg_sealed_content_files"`
	// TCGdexSetPairs: rows of links/pokemon-tcgdex/sets.csv with both ids
	// (synthetic Pokémon).
	TCGdexSetPairs int `json:"tcgdex_set_pairs,omitempty"`
}

// GameReport is one game's part of synth-cases.json.
type GameReport struct {
	// RealCardmarket: the game's Cardmarket files are the real mirror's,
	// copied; only its TCGplayer prices are generated, and no case planted.
	RealCardmarket bool             `json:"real_cardmarket,omitempty"`
	Counts         GameCounts       `json:"counts"`
	Cases          map[string]*Case `json:"cases"`
}

// Report is synth-cases.json.
type Report struct {
	Mode  string                 `json:"mode"`
	Seed  uint64                 `json:"seed"`
	Day   int                    `json:"day"`
	Cards int                    `json:"cards,omitempty"`
	Games map[string]*GameReport `json:"games"`
}

func (r *Report) game(code string) *GameReport {
	g := r.Games[code]
	if g == nil {
		g = &GameReport{Cases: map[string]*Case{}}
		r.Games[code] = g
	}
	return g
}

func (r *Report) write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

func fmtEUR(f *float64) string {
	if f == nil {
		return "null"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}
