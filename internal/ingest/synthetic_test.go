package ingest_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest"
	"github.com/cardcat/cardcat/internal/synth"
)

// TestSyntheticMirrorLinks ingests a small synthetic mirror of every game
// and holds ingest to what synth planted (synth-cases.json): the cards synth
// names alike on both marketplaces (exactly, or but for case, punctuation or
// Cardmarket's own spelling), the ones links.csv pairs and the sealed
// products Cardmarket sells are linked, and nothing else is. Pokémon's
// Cardmarket names carry the attacks and One Piece's the card number, so
// this is also where synth's name forms meet ingest's linking keys.
func TestSyntheticMirrorLinks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	res, err := synth.Synthetic(ctx, synth.Options{Out: dir, Seed: 3, Cards: 2000})
	if err != nil {
		t.Fatal(err)
	}
	cat, rep, err := ingest.BuildFromMirror(ctx, dir, game.Default(), now)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range game.Default().All() {
		gr := gameReport(t, rep, g.Code)
		planted := res.Report.Games[g.Code]
		if planted == nil {
			t.Fatalf("%s: not in %s", g.Code, synth.CasesFile)
		}
		count := func(c string) int {
			if planted.Cases[c] == nil {
				return 0
			}
			return planted.Cases[c].Count
		}
		want := count("linked_by_name") + count("name_cosmetic_variation") + count("renamed_linked_by_links_csv") + count("sealed_non_single")
		t.Logf("%s: planted %d links; ingest linked %d (%d by name, %d by name in a TCGdex set pair, %d by links.csv, %d by MTGJSON), "+
			"%d ambiguous, %d Cardmarket-only, %d TCGplayer-only, %d of %d expansions matched",
			g.Code, want, gr.Linked, gr.LinkedByName, gr.LinkedBySetPair, gr.LinkedOperator, gr.LinkedMTGJSON,
			gr.Ambiguous, gr.CardmarketOnly, gr.TCGOnly, gr.ExpansionsMatched, gr.ExpansionsMatched+gr.ExpansionsUnmatched)
		if gr.Linked == 0 || gr.Linked != want {
			t.Errorf("%s: ingest linked %d products, synth planted %d links", g.Code, gr.Linked, want)
		}
		if gr.LinkedOperator != count("renamed_linked_by_links_csv") {
			t.Errorf("%s: %d links by links.csv, synth wrote %d", g.Code, gr.LinkedOperator, count("renamed_linked_by_links_csv"))
		}
		if gr.Ambiguous == 0 {
			t.Errorf("%s: no ambiguous name left unlinked", g.Code)
		}
		// One expansion per game matches no group: the Cardmarket-only one.
		if gr.ExpansionsUnmatched != 1 {
			t.Errorf("%s: %d expansions unmatched, want 1 (warnings %v)", g.Code, gr.ExpansionsUnmatched, gr.Warnings)
		}
	}
	if rep := gameReport(t, rep, "pkm"); rep.LinkedBySetPair == 0 {
		t.Errorf("pkm: no link inside a TCGdex set pair (links/pokemon-tcgdex/sets.csv)")
	}
	checkHoloPrices(t, dir, cat.Game("pkm"))
}

// checkHoloPrices: Pokémon's price guide has "-holo" keys, no "-foil" ones,
// and ingest reads them as the foil prices.
func checkHoloPrices(t *testing.T, dir string, pkm *catalog.GameCatalog) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cardmarket", "6", "price_guide.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		PriceGuides []map[string]*float64 `json:"priceGuides"`
	}
	if err := json.Unmarshal(b, &file); err != nil {
		t.Fatal(err)
	}
	holo := map[int]float64{} // idProduct → trend-holo
	for _, row := range file.PriceGuides {
		for k := range row {
			if strings.HasSuffix(k, "-foil") {
				t.Fatalf("Pokémon price guide row %v has %s", row, k)
			}
		}
		if v := row["trend-holo"]; v != nil {
			holo[int(*row["idProduct"])] = *v
		}
	}
	checked := 0
	for _, c := range pkm.Cards {
		want, ok := holo[c.CMProductID]
		if !ok {
			continue
		}
		for _, p := range c.CMPrices {
			if p.Variant != catalog.CMFoil {
				continue
			}
			checked++
			if got := catalog.MoneyFromFloat(want); p.Trend != got {
				t.Errorf("pkm card %s (Cardmarket %d): foil trend %v, trend-holo %v", c.ID, c.CMProductID, p.Trend, want)
			}
		}
	}
	if checked == 0 || checked != len(holo) {
		t.Errorf("%d Pokémon foil prices read of %d trend-holo values", checked, len(holo))
	}
}
