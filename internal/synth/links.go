package synth

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// writeLinksCSV writes links/links.csv: the explicit links between a
// TCGplayer product and a Cardmarket product whose names do not match.
func writeLinksCSV(out string, rows []linkRow) error {
	slices.SortFunc(rows, func(a, b linkRow) int {
		if c := strings.Compare(a.game, b.game); c != 0 {
			return c
		}
		return a.tcgID - b.tcgID
	})
	dir := filepath.Join(out, "links")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, "links.csv"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	w.WriteString("game,tcgplayer_product_id,cardmarket_id_product\n")
	for _, r := range rows {
		fmt.Fprintf(w, "%s,%d,%d\n", r.game, r.tcgID, r.cmID)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// MTGJSON's names and categories of sealed products, for the synthetic
// mtg-sealed-content files. MTGJSON calls a display a box and drops the
// " - " between set and product ("Bloomburrow - Play Booster Display" is
// "Bloomburrow Play Booster Box"), so most of these names do not match
// TCGplayer's and only the link joins them.

func mtgjsonName(setName, tcgName string) string {
	rest := strings.TrimPrefix(tcgName, setName+" - ")
	rest = strings.ReplaceAll(rest, "Display", "Box")
	return setName + " " + rest
}

func mtgjsonCategory(name string) (category, subtype string) {
	w := names.WordsOf(name)
	switch {
	case w.Has("case"):
		category = "BOOSTER_CASE"
	case w.Has("display", "box"):
		category = "BOOSTER_BOX"
	case w.Has("bundle"):
		category = "BUNDLE"
	case w.Has("deck"):
		category = "DECK"
	case w.Has("kit"):
		category = "KIT"
	default:
		category = "BOOSTER_PACK"
	}
	for _, s := range []string{"collector", "commander", "prerelease", "play"} {
		if w.Has(s) {
			return category, strings.ToUpper(s)
		}
	}
	return category, "DEFAULT"
}

type mtgjsonProduct struct {
	Category    string            `json:"category"`
	Identifiers map[string]string `json:"identifiers"`
	ReleaseDate string            `json:"release_date"`
	Subtype     string            `json:"subtype"`
}

// writeMTGJSON writes links/mtg-sealed-content/{CODE}.json in the layout of
// the real files (YAML converted to JSON, keys sorted, two-space indent).
func writeMTGJSON(out, code string, links []sealedLink) error {
	dir := filepath.Join(out, "links", "mtg-sealed-content")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	doc := struct {
		Code     string                    `json:"code"`
		Products map[string]mtgjsonProduct `json:"products"`
	}{Code: strings.ToLower(code), Products: map[string]mtgjsonProduct{}}
	for _, l := range links {
		ids := map[string]string{"tcgplayerProductId": strconv.Itoa(l.tcgID)}
		if l.mcmID > 0 {
			ids["mcmId"] = strconv.Itoa(l.mcmID)
		}
		doc.Products[l.name] = mtgjsonProduct{Category: l.category, Identifiers: ids, ReleaseDate: l.release, Subtype: l.subtype}
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, code+".json"), b, 0o644)
}

// writeTCGdexSets writes name (links/pokemon-tcgdex/sets.csv) in the form of
// TCGdex's set list (shared/data POKEMON.md), which pairs Pokémon's
// TCGplayer groups with Cardmarket expansions: three in four of the groups
// have both ids, the others only one (TCGdex knows only one of the two),
// which pairs nothing. It returns the number of pairs.
func writeTCGdexSets(out, name string, seed uint64, tasks []task) (int, error) {
	type row struct {
		lang, date string
		rec        []string
	}
	var rows []row
	pairs := 0
	index := map[string]int{}
	for _, t := range tasks {
		g, e := t.job.group, t.job.expansion
		date := g.PublishedOn[:min(10, len(g.PublishedOn))]
		era := names.PkmEraOf(g.PublishedOn)
		lang, file := "en", "data/"+era.SerieDir+"/"
		if g.CategoryID == 85 {
			lang, file = "ja", "data-asia/"+strings.ToUpper(era.Serie)+"/"
		}
		// TCGdex names a set without TCGplayer's era prefix ("SV05: ").
		name := g.Name
		for _, sep := range []string{": ", " - "} {
			if head, rest, ok := strings.Cut(name, sep); ok && len(head) <= 6 {
				name = rest
			}
		}
		index[lang+era.Serie]++
		set := fmt.Sprintf("%s%02d", era.Serie, index[lang+era.Serie])
		if lang == "ja" && g.Abbreviation != "" {
			set = g.Abbreviation
		}
		tcgID, cmID := strconv.Itoa(g.GroupID), strconv.Itoa(e.IDExpansion)
		r := rng.New(seed, "tcgdex", g.GroupID)
		switch x := r.Float(); {
		case x < 0.75:
			pairs++
		case x < 0.9:
			tcgID = ""
		default:
			cmID = ""
		}
		rows = append(rows, row{lang, date, []string{lang, era.Serie, set, name, g.Abbreviation, date, tcgID, cmID, file + name + ".ts"}})
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		if c := strings.Compare(a.lang, b.lang); c != 0 {
			return c
		}
		return strings.Compare(a.date, b.date)
	})
	path := filepath.Join(out, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return 0, err
	}
	f, err := os.Create(path)
	if err != nil {
		return 0, err
	}
	w := csv.NewWriter(f)
	w.Write([]string{"language", "tcgdex_serie", "tcgdex_set", "name", "abbreviation", "release_date", "tcgplayer_group_id", "cardmarket_id_expansion", "tcgdex_file"})
	for _, r := range rows {
		w.Write(r.rec)
	}
	if w.Flush(); w.Error() != nil {
		f.Close()
		return 0, w.Error()
	}
	return pairs, f.Close()
}
