// Package tcgcatalog generates the TCGplayer catalogue of a synthetic
// mirror: its categories, every group planned up front (a few thousand
// records even for a million cards), and each group's products, generated
// from the group's own stream when the group is written, in the forms of the
// real files of its game (products_mtg.go, products_pkm.go, products_dbs.go,
// products_op.go; the sealed products of all in products.go).
package tcgcatalog

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/game"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
	"github.com/cardcat/cardcat/internal/synth/names"
	"github.com/cardcat/cardcat/internal/synth/rng"
)

// categoryInfo names the TCGplayer categories the generator knows.
var categoryInfo = map[int]struct{ name, display, slug string }{
	1:  {"Magic", "Magic: The Gathering", "magic"},
	3:  {"Pokemon", "Pokemon", "pokemon"},
	27: {"Dragon Ball Super CCG", "Dragon Ball Super: Masters", "dragon-ball-super-ccg"},
	68: {"One Piece Card Game", "One Piece Card Game", "one-piece-card-game"},
	80: {"Dragon Ball Super Fusion World", "Dragon Ball Super: Fusion World", "dragon-ball-super-fusion-world"},
	85: {"Pokemon Japan", "Pokemon Japan", "pokemon-japan"},
}

// Category is the record of TCGplayer category id.
func Category(id int) tcgplayer.Category {
	info, ok := categoryInfo[id]
	if !ok {
		info.name, info.display = fmt.Sprintf("Category %d", id), fmt.Sprintf("Category %d", id)
	}
	return tcgplayer.Category{CategoryID: id, Name: info.name, DisplayName: info.display, ModifiedOn: "2026-01-30T19:19:34.983"}
}

// Group styles.
const (
	styleMain      = "main"      // a booster set: 100-400 cards and several sealed products
	styleCompanion = "companion" // a small side group of a main set, sharing its code
	styleStarter   = "starter"   // a starter deck (Fusion World)
)

// Plan is one synthetic group before its products exist.
type Plan struct {
	Game       string // the game's code
	Group      tcgplayer.Group
	Cards      int  // cards, code cards included
	Sealed     int  // sealed products
	CodeShared bool // another group of the game has its abbreviation
	style      string
	firstPID   int
	presale    bool
	main       *Plan // a companion's main set
	// numPrefix is what the group's One Piece card numbers start with
	// ("OP05", "ST05", "P"); numBase is the last promo number before them.
	numPrefix string
	numBase   int
}

// PlanCatalogue plans every group of every game for total cards, dated up
// to base.
func PlanCatalogue(seed uint64, total int, games []game.Game, base time.Time) []*Plan {
	var plans []*Plan
	for gi, g := range games {
		share := total / len(games)
		if gi == 0 {
			share += total % len(games)
		}
		used := map[string]bool{} // name keys and codes of the game's groups
		var gamePlans []*Plan
		for ci, cat := range g.TCGCategories {
			n := share / len(g.TCGCategories)
			if g.Code == "dbs" && len(g.TCGCategories) == 2 {
				// Fusion World (80) is the larger line.
				n = share * 2 / 5
				if cat == 80 {
					n = share - n
				}
			} else if ci == 0 {
				n += share % len(g.TCGCategories)
			}
			gamePlans = append(gamePlans, planCategory(seed, g.Code, cat, n, used, base)...)
		}
		markCodes(gamePlans)
		plans = append(plans, gamePlans...)
	}
	// Ids grow with the publication date, across categories, as TCGplayer's do.
	slices.SortStableFunc(plans, func(a, b *Plan) int { return strings.Compare(a.Group.PublishedOn, b.Group.PublishedOn) })
	rv := rng.New(seed, "ids")
	r := &rv
	gid, pid := 3000+r.Intn(500), 100000+r.Intn(5000)
	for _, p := range plans {
		p.Group.GroupID = gid
		p.firstPID = pid
		gid += r.Between(1, 4)
		pid += p.Cards + p.Sealed + r.Between(0, 30)
	}
	return plans
}

// planCategory plans one category's groups, oldest first.
func planCategory(seed uint64, gameCode string, cat, cards int, used map[string]bool, base time.Time) []*Plan {
	rv := rng.New(seed, "plan", cat)
	r := &rv
	var plans []*Plan
	var lastMain *Plan
	mains, starters, companions, promos := 0, 0, 0, 0
	for left := cards; left > 0; {
		p := &Plan{Game: gameCode, Group: tcgplayer.Group{CategoryID: cat}}
		switch {
		case lastMain != nil && (companions == 0 || r.Chance(0.1)):
			// The first main set of each category gets one for sure, so
			// that shared codes exist in small runs too.
			companions++
			p.style = styleCompanion
			p.Cards, p.Sealed = r.Between(10, 45), 0
			p.Group.Abbreviation = lastMain.Group.Abbreviation
			p.main = lastMain
			switch cat {
			case 1:
				p.Group.Name = "Commander: " + lastMain.Group.Name
			case 80:
				p.Group.Name = lastMain.Group.Name + " Release Event Cards"
				p.Group.Abbreviation += "_PR"
			case 3, 85:
				// Named once the main set's name is final (pokemonNames).
			case 68:
				// One Piece's side groups have codes of their own ("OP02 PRE")
				// and promo numbers ("P-001").
				p.Group.Name = lastMain.Group.Name + " Pre-Release Cards"
				p.Group.Abbreviation += " PRE"
				p.numPrefix, p.numBase = "P", promos
				promos += p.Cards
			default:
				p.Group.Name = lastMain.Group.Name + " Pre-Release Cards"
			}
			lastMain = nil // one companion per main set
		case (cat == 80 || cat == 68) && mains > 0 && r.Chance(0.15):
			starters++
			p.style = styleStarter
			p.Cards, p.Sealed = r.Between(20, 30), 2
			if cat == 68 {
				p.Cards = r.Between(17, 21)
				p.Group.Name = fmt.Sprintf("Starter Deck %d: %s", starters, rng.Pick(r, names.OPDecks))
				p.Group.Abbreviation = fmt.Sprintf("ST-%02d", starters)
				p.numPrefix = fmt.Sprintf("ST%02d", starters)
				break
			}
			p.Group.Name = fmt.Sprintf("Starter Deck %d: %s", starters, rng.Pick(r, names.DBSCharacters))
			p.Group.Abbreviation = fmt.Sprintf("FS%02d", starters)
		default:
			mains++
			p.style = styleMain
			p.Cards, p.Sealed = r.Between(95, 390), r.Between(3, 6)
			switch cat {
			case 1:
				p.Sealed = r.Between(6, 11)
				p.Group.Name = names.SetName(r, names.MTGSetFirst, names.MTGSetSecond)
			case 3, 85:
				p.Cards = r.Between(100, 260) // Pokémon's sets are smaller than Magic's
				p.Group.Name = names.SetName(r, names.PkmSetFirst, names.PkmSetSecond)
			case 68:
				// About 120 numbers, as One Piece's boosters have, with
				// parallels on top.
				p.Cards = r.Between(120, 190)
				p.Group.Name = names.SetName(r, names.OPSetFirst, names.OPSetSecond)
			default:
				p.Group.Name = names.SetName(r, names.DBSSetFirst, names.DBSSetSecond)
			}
			switch cat {
			case 80:
				p.Group.Abbreviation = fmt.Sprintf("FB%02d", mains)
			case 27:
				p.Group.Abbreviation = fmt.Sprintf("BT%d", mains)
			case 68:
				p.Group.Abbreviation = fmt.Sprintf("OP%02d", mains)
				p.numPrefix = p.Group.Abbreviation
			case 85:
				// Japanese codes follow the date (pokemonNames).
			default:
				p.Group.Abbreviation = mtgCode(r, p.Group.Name, used)
			}
			used["code:"+p.Group.Abbreviation] = true
			lastMain = p
		}
		if p.style != styleCompanion {
			for k := 2; used[fold.Key(p.Group.Name)]; k++ {
				p.Group.Name = strings.TrimRight(strings.TrimRight(p.Group.Name, "0123456789"), " ") + " " + strconv.Itoa(k)
			}
		}
		used[fold.Key(p.Group.Name)] = true
		p.Cards = min(p.Cards, left)
		left -= p.Cards
		plans = append(plans, p)
	}

	// Dates: spread from the line's first year to the base date; companions
	// share their main set's date; the newest set is a presale.
	start := map[int]time.Time{
		1: time.Date(1995, 4, 1, 0, 0, 0, 0, time.UTC), 27: time.Date(2017, 7, 28, 0, 0, 0, 0, time.UTC),
		3: time.Date(1999, 1, 9, 0, 0, 0, 0, time.UTC), 85: time.Date(1996, 10, 20, 0, 0, 0, 0, time.UTC),
		68: time.Date(2022, 12, 2, 0, 0, 0, 0, time.UTC),
	}[cat]
	if start.IsZero() {
		start = time.Date(2024, 2, 16, 0, 0, 0, 0, time.UTC)
	}
	newest := len(plans) - 1
	for newest > 0 && plans[newest].style == styleCompanion {
		newest--
	}
	span := base.Sub(start)
	var d time.Time
	for i, p := range plans {
		switch {
		case p.style == styleCompanion:
			p.presale = plans[i-1].presale
		case i == newest:
			d = base.AddDate(0, 0, r.Between(60, 150)).Truncate(24 * time.Hour)
			p.presale = true
		default:
			d = start.Add(time.Duration(float64(span) * float64(i) / float64(len(plans)))).Truncate(24 * time.Hour)
		}
		p.Group.PublishedOn = d.Format("2006-01-02T15:04:05")
		mod := d.AddDate(0, 0, r.Between(0, 400))
		if mod.After(base) {
			mod = base.Add(-time.Duration(r.Intn(86400)) * time.Second)
		}
		p.Group.ModifiedOn = mod.Add(time.Duration(r.Intn(86400000)) * time.Millisecond).Format("2006-01-02T15:04:05.999")
	}
	if cat == 3 || cat == 85 {
		pokemonNames(r, cat, plans)
	}
	return plans
}

// pokemonNames gives Pokémon's dated sets the names and codes of their era,
// as TCGplayer writes them: English "SV05: Temporal Forces" (code TEF),
// "SWSH07: Evolving Skies" (SWSH07), "SM - Ultra Prism" (SM05), "XY -
// Phantom Forces"; Japanese "SV6a: Night Wanderer" (SV6a), older Japanese
// sets without a code. Companions follow their main set: English Trainer
// Galleries (promos before 2020) and Japanese promo cards, under its code.
func pokemonNames(r *rng.Stream, cat int, plans []*Plan) {
	eras := map[string]int{}
	for _, p := range plans {
		if p.style != styleMain {
			continue
		}
		g := &p.Group
		d := g.PublishedOn
		if cat == 3 {
			switch {
			case d >= "2023-03-31":
				eras["sv"]++
				g.Name = fmt.Sprintf("SV%02d: %s", eras["sv"], g.Name)
			case d >= "2020-02-07":
				eras["swsh"]++
				g.Name = fmt.Sprintf("SWSH%02d: %s", eras["swsh"], g.Name)
				g.Abbreviation = fmt.Sprintf("SWSH%02d", eras["swsh"])
			case d >= "2017-02-03":
				eras["sm"]++
				g.Name = "SM - " + g.Name
				g.Abbreviation = fmt.Sprintf("SM%02d", eras["sm"])
			case d >= "2014-02-05":
				g.Name = "XY - " + g.Name
			}
			continue
		}
		era := ""
		for _, e := range []struct{ from, code string }{
			{"2023-01-20", "SV"}, {"2019-12-06", "S"}, {"2016-12-09", "SM"}, {"2013-07-13", "XY"}, {"2010-12-17", "BW"},
		} {
			if d >= e.from {
				era = e.code
				break
			}
		}
		if era == "" {
			continue // no code, as TCGplayer has for most older Japanese sets
		}
		if n := eras[era]; n > 0 && r.Chance(0.3) {
			// A subset of the last numbered set ("SV6a").
			eras[era+"+"]++
			g.Abbreviation = fmt.Sprintf("%s%d%c", era, n, 'a'+rune(eras[era+"+"]-1)%26)
		} else {
			eras[era]++
			eras[era+"+"] = 0
			g.Abbreviation = fmt.Sprintf("%s%d", era, eras[era])
		}
		g.Name = g.Abbreviation + ": " + g.Name
	}
	for _, p := range plans {
		if p.style == styleCompanion {
			p.Group.Abbreviation = p.main.Group.Abbreviation
			switch {
			case cat == 85:
				p.Group.Name = p.main.Group.Name + " Promotional Cards"
			case p.Group.PublishedOn >= "2020":
				p.Group.Name = p.main.Group.Name + " Trainer Gallery"
			default:
				p.Group.Name = p.main.Group.Name + " Promos"
			}
		}
	}
}

// mtgCode makes a three-letter set code from a set name, unused in the game.
func mtgCode(r *rng.Stream, name string, used map[string]bool) string {
	var b []byte
	for _, w := range strings.Fields(fold.Clean(name)) {
		if c := w[0]; c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	for len(b) < 3 {
		b = append(b, byte('A'+r.Intn(26)))
	}
	code := string(b[:3])
	for i := 0; used["code:"+code]; i++ {
		code = string(b[:2]) + string(rune('A'+r.Intn(26)))
		if i > 50 {
			code += strconv.Itoa(i)
		}
	}
	return code
}

// markCodes gives one main set of the game an empty code (TCGplayer has such
// groups) and marks the codes several groups share (a main set and its
// companion).
func markCodes(plans []*Plan) {
	var mains []*Plan
	for _, p := range plans {
		if p.style == styleMain && !p.presale {
			mains = append(mains, p)
		}
	}
	if len(mains) > 1 {
		mains[len(mains)/2].Group.Abbreviation = ""
	}
	count := map[string]int{}
	for _, p := range plans {
		count[p.Group.Abbreviation]++
	}
	for _, p := range plans {
		p.CodeShared = p.Group.Abbreviation != "" && count[p.Group.Abbreviation] > 1
	}
}
