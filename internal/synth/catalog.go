package synth

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/fold"
	"github.com/cardcat/cardcat/internal/ingest/tcgplayer"
)

// The synthetic TCGplayer catalogue: categories, groups planned up front (a
// few thousand records even for a million cards), and each group's products
// generated from the group's own stream when the group is written.

// categoryInfo names the TCGplayer categories the generator knows.
var categoryInfo = map[int]struct{ name, display, slug string }{
	1:  {"Magic", "Magic: The Gathering", "magic"},
	27: {"Dragon Ball Super CCG", "Dragon Ball Super: Masters", "dragon-ball-super-ccg"},
	80: {"Dragon Ball Super Fusion World", "Dragon Ball Super: Fusion World", "dragon-ball-super-fusion-world"},
}

func categoryRecord(id int) tcgplayer.Category {
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

// groupPlan is one synthetic group before its products exist.
type groupPlan struct {
	spec       *gameSpec
	group      tcgplayer.Group
	style      string
	cards      int
	sealed     int
	firstPID   int
	presale    bool
	codeShared bool
}

// planCatalogue plans every group of every game for total cards.
func planCatalogue(seed uint64, total int, specs []*gameSpec, base time.Time) []*groupPlan {
	var plans []*groupPlan
	for gi, spec := range specs {
		share := total / len(specs)
		if gi == 0 {
			share += total % len(specs)
		}
		used := map[string]bool{} // name keys and codes of the game's groups
		var gamePlans []*groupPlan
		for ci, cat := range spec.categories {
			n := share / len(spec.categories)
			if spec.code == "dbs" && len(spec.categories) == 2 {
				// Fusion World (80) is the larger line.
				n = share * 2 / 5
				if cat == 80 {
					n = share - n
				}
			} else if ci == 0 {
				n += share % len(spec.categories)
			}
			gamePlans = append(gamePlans, planCategory(seed, spec, cat, n, used, base)...)
		}
		markCodes(gamePlans)
		plans = append(plans, gamePlans...)
	}
	// Ids grow with the publication date, across categories, as TCGplayer's do.
	slices.SortStableFunc(plans, func(a, b *groupPlan) int { return strings.Compare(a.group.PublishedOn, b.group.PublishedOn) })
	rv := newRNG(seed, "ids")
	r := &rv
	gid, pid := 3000+r.intn(500), 100000+r.intn(5000)
	for _, p := range plans {
		p.group.GroupID = gid
		p.firstPID = pid
		gid += r.between(1, 4)
		pid += p.cards + p.sealed + r.between(0, 30)
	}
	return plans
}

// planCategory plans one category's groups, oldest first.
func planCategory(seed uint64, spec *gameSpec, cat, cards int, used map[string]bool, base time.Time) []*groupPlan {
	rv := newRNG(seed, "plan", cat)
	r := &rv
	var plans []*groupPlan
	var lastMain *groupPlan
	mains, starters, companions := 0, 0, 0
	for left := cards; left > 0; {
		p := &groupPlan{spec: spec, group: tcgplayer.Group{CategoryID: cat}}
		switch {
		case lastMain != nil && (companions == 0 || r.chance(0.1)):
			// The first main set of each category gets one for sure, so
			// that shared codes exist in small runs too.
			companions++
			p.style = styleCompanion
			p.cards, p.sealed = r.between(10, 45), 0
			p.group.Abbreviation = lastMain.group.Abbreviation
			switch cat {
			case 1:
				p.group.Name = "Commander: " + lastMain.group.Name
			case 80:
				p.group.Name = lastMain.group.Name + " Release Event Cards"
				p.group.Abbreviation += "_PR"
			default:
				p.group.Name = lastMain.group.Name + " Pre-Release Cards"
			}
			lastMain = nil // one companion per main set
		case cat == 80 && mains > 0 && r.chance(0.15):
			starters++
			p.style = styleStarter
			p.cards, p.sealed = r.between(20, 30), 2
			p.group.Name = fmt.Sprintf("Starter Deck %d: %s", starters, pick(r, dbsCharacters))
			p.group.Abbreviation = fmt.Sprintf("FS%02d", starters)
		default:
			mains++
			p.style = styleMain
			p.cards, p.sealed = r.between(95, 390), r.between(3, 6)
			if cat == 1 {
				p.sealed = r.between(6, 11)
				p.group.Name = setName(r, mtgSetFirst, mtgSetSecond)
			} else {
				p.group.Name = setName(r, dbsSetFirst, dbsSetSecond)
			}
			switch cat {
			case 80:
				p.group.Abbreviation = fmt.Sprintf("FB%02d", mains)
			case 27:
				p.group.Abbreviation = fmt.Sprintf("BT%d", mains)
			default:
				p.group.Abbreviation = mtgCode(r, p.group.Name, used)
			}
			used["code:"+p.group.Abbreviation] = true
			lastMain = p
		}
		if p.style != styleCompanion {
			for k := 2; used[fold.Key(p.group.Name)]; k++ {
				p.group.Name = strings.TrimRight(strings.TrimRight(p.group.Name, "0123456789"), " ") + " " + strconv.Itoa(k)
			}
		}
		used[fold.Key(p.group.Name)] = true
		p.cards = min(p.cards, left)
		left -= p.cards
		plans = append(plans, p)
	}

	// Dates: spread from the line's first year to the base date; companions
	// share their main set's date; the newest set is a presale.
	start := map[int]time.Time{1: time.Date(1995, 4, 1, 0, 0, 0, 0, time.UTC), 27: time.Date(2017, 7, 28, 0, 0, 0, 0, time.UTC)}[cat]
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
			d = base.AddDate(0, 0, r.between(60, 150)).Truncate(24 * time.Hour)
			p.presale = true
		default:
			d = start.Add(time.Duration(float64(span) * float64(i) / float64(len(plans)))).Truncate(24 * time.Hour)
		}
		p.group.PublishedOn = d.Format("2006-01-02T15:04:05")
		mod := d.AddDate(0, 0, r.between(0, 400))
		if mod.After(base) {
			mod = base.Add(-time.Duration(r.intn(86400)) * time.Second)
		}
		p.group.ModifiedOn = mod.Add(time.Duration(r.intn(86400000)) * time.Millisecond).Format("2006-01-02T15:04:05.999")
	}
	return plans
}

// mtgCode makes a three-letter set code from a set name, unused in the game.
func mtgCode(r *rng, name string, used map[string]bool) string {
	var b []byte
	for _, w := range strings.Fields(fold.Clean(name)) {
		if c := w[0]; c >= 'A' && c <= 'Z' {
			b = append(b, c)
		}
	}
	for len(b) < 3 {
		b = append(b, byte('A'+r.intn(26)))
	}
	code := string(b[:3])
	for i := 0; used["code:"+code]; i++ {
		code = string(b[:2]) + string(rune('A'+r.intn(26)))
		if i > 50 {
			code += strconv.Itoa(i)
		}
	}
	return code
}

// markCodes gives one main set of the game an empty code (TCGplayer has such
// groups) and marks the codes several groups share (a main set and its
// companion).
func markCodes(plans []*groupPlan) {
	var mains []*groupPlan
	for _, p := range plans {
		if p.style == styleMain && !p.presale {
			mains = append(mains, p)
		}
	}
	if len(mains) > 1 {
		mains[len(mains)/2].group.Abbreviation = ""
	}
	count := map[string]int{}
	for _, p := range plans {
		count[p.group.Abbreviation]++
	}
	for _, p := range plans {
		p.codeShared = p.group.Abbreviation != "" && count[p.group.Abbreviation] > 1
	}
}
