package ingest

import (
	"fmt"
	"sort"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/ingest/cardmarket"
)

// links is the outcome of linking one game's products across the marketplaces.
type links struct {
	cmOf      map[int]int       // TCGplayer productId → Cardmarket idProduct
	tcgOf     map[int]int       // Cardmarket idProduct → TCGplayer productId
	matchOf   map[int]string    // TCGplayer productId → how it was linked (catalog.Match*)
	groupOf   map[int]int       // Cardmarket idExpansion → TCGplayer groupId it matched
	setLinked map[int]bool      // Cardmarket idExpansion matched by an explicit set pair (game.SetLinks)
	forbidden map[linkPair]bool // pairs a rule would have linked but never.csv forbids
	counts    map[string]int    // pairs linked, by catalog.Match* kind
	ambiguous int               // Cardmarket products left unlinked because their name was ambiguous
	warnings  []string
}

// Linking rules, strongest first:
//
//  0. A pair the operator forbids (links/never.csv) is linked by no rule.
//  1. Explicit identifiers (MTGJSON sealed content, the operator's links.csv).
//     A product named by two different explicit links is linked by neither.
//     A pair both MTGJSON and links.csv give counts as the operator's
//     (match "operator"): the operator has vouched for it.
//  2. A Cardmarket expansion is matched to the TCGplayer group an explicit set
//     pair gives (game.SetLinks: TCGdex's pairs for Pokémon); else to the
//     group of the same game whose product names overlap its own the most:
//     the best group must share at least minOverlap names and strictly more
//     than any other group.
//  3. Inside a matched group (all expansions matched to it together), a
//     product is linked when its name key (TCGKey, CMKey: the folded name,
//     without Pokémon's bracketed attacks, with One Piece's card number) is
//     carried by exactly one TCGplayer product and exactly one Cardmarket
//     product, neither linked yet. A name that is ambiguous inside the pair
//     stays unlinked: a wrong link is worse than a missing one. The match
//     says "name", or "name_set_pair" when the expansion was matched by an
//     explicit set pair.
func linkProducts(u *upstream) *links {
	l := &links{cmOf: map[int]int{}, tcgOf: map[int]int{}, matchOf: map[int]string{}, groupOf: map[int]int{},
		setLinked: map[int]bool{}, forbidden: map[linkPair]bool{}, counts: map[string]int{}}

	tcgGroup := map[int]int{} // productId → groupId
	for gid, ps := range u.products {
		for _, p := range ps {
			tcgGroup[p.ProductID] = gid
		}
	}
	cmAll := make(map[int]*cardmarket.Product, len(u.cmSingle)+len(u.cmSealed))
	for _, list := range [][]cardmarket.Product{u.cmSingle, u.cmSealed} {
		for i := range list {
			cmAll[list[i].IDProduct] = &list[i]
		}
	}

	l.linkExplicit(u, tcgGroup, cmAll)
	l.matchExpansions(u, tcgGroup)
	l.linkByName(u)
	return l
}

func (l *links) linkExplicit(u *upstream, tcgGroup map[int]int, cmAll map[int]*cardmarket.Product) {
	tcgPartners := map[int]map[int]string{} // productId → idProduct → match
	cmPartners := map[int]map[int]bool{}
	for _, e := range u.links {
		if _, ok := tcgGroup[e.tcg]; !ok {
			continue // product not in this catalogue (other set or not published yet)
		}
		if _, ok := cmAll[e.cm]; !ok {
			continue
		}
		if u.never[linkPair{e.tcg, e.cm}] {
			// Left out before the conflict check, so that a forbidden pair
			// does not block the right one another file gives.
			l.forbidden[linkPair{e.tcg, e.cm}] = true
			continue
		}
		if tcgPartners[e.tcg] == nil {
			tcgPartners[e.tcg] = map[int]string{}
		}
		if cmPartners[e.cm] == nil {
			cmPartners[e.cm] = map[int]bool{}
		}
		if tcgPartners[e.tcg][e.cm] != catalog.MatchOperator {
			tcgPartners[e.tcg][e.cm] = e.match
		}
		cmPartners[e.cm][e.tcg] = true
	}
	tcgIDs := make([]int, 0, len(tcgPartners))
	for id := range tcgPartners {
		tcgIDs = append(tcgIDs, id)
	}
	sort.Ints(tcgIDs)
	for _, t := range tcgIDs {
		if len(tcgPartners[t]) != 1 {
			l.warnings = append(l.warnings, fmt.Sprintf("TCGplayer product %d has %d explicit Cardmarket links: none used", t, len(tcgPartners[t])))
			continue
		}
		var c int
		for c = range tcgPartners[t] {
		}
		if len(cmPartners[c]) != 1 {
			l.warnings = append(l.warnings, fmt.Sprintf("Cardmarket product %d has %d explicit TCGplayer links: none used", c, len(cmPartners[c])))
			continue
		}
		l.link(t, c, tcgPartners[t][c])
	}
}

// link records the pair t↔c, made by the rule match.
func (l *links) link(t, c int, match string) {
	l.cmOf[t], l.tcgOf[c], l.matchOf[t] = c, t, match
	l.counts[match]++
}

// minOverlap is the number of shared product names that matches an expansion
// to a group, unless the expansion is smaller than that (then all its names).
const minOverlap = 3

func (l *links) matchExpansions(u *upstream, tcgGroup map[int]int) {
	// Which groups carry each folded name.
	groupsOfName := map[string][]int{}
	for _, grp := range u.groups {
		seen := map[string]bool{}
		for i := range u.products[grp.GroupID] {
			k := TCGKey(u.game, &u.products[grp.GroupID][i])
			if !seen[k] {
				seen[k] = true
				groupsOfName[k] = append(groupsOfName[k], grp.GroupID)
			}
		}
	}
	overlap := map[int]map[int]int{} // idExpansion → groupId → shared names
	size := map[int]int{}
	seen := map[int]map[string]bool{}
	for _, list := range [][]cardmarket.Product{u.cmSingle, u.cmSealed} {
		for i := range list {
			p := &list[i]
			e := p.IDExpansion
			if e <= 0 {
				// No expansion (the field missing): nothing to match to a
				// group. As "expansion 0" it was matched like one, and the
				// sets' expansion ids then depended on map order (FuzzBuild).
				continue
			}
			if overlap[e] == nil {
				overlap[e] = map[int]int{}
				seen[e] = map[string]bool{}
			}
			if t, ok := l.tcgOf[p.IDProduct]; ok {
				// An explicit link is strong evidence: count it like several names.
				overlap[e][tcgGroup[t]] += minOverlap
			}
			k := CMKey(u.game, p.Name)
			if seen[e][k] {
				continue
			}
			seen[e][k] = true
			size[e]++
			for _, g := range groupsOfName[k] {
				overlap[e][g]++
			}
		}
	}
	for e, counts := range overlap {
		if g, ok := u.setPairs[e]; ok && tcgGroupExists(u, g) {
			l.groupOf[e], l.setLinked[e] = g, true
			continue
		}
		type score struct{ group, n int }
		scores := make([]score, 0, len(counts))
		for g, n := range counts {
			scores = append(scores, score{g, n})
		}
		sort.Slice(scores, func(i, j int) bool {
			if scores[i].n != scores[j].n {
				return scores[i].n > scores[j].n
			}
			return scores[i].group < scores[j].group
		})
		if len(scores) == 0 || scores[0].n == 0 || scores[0].n < min(minOverlap, size[e]) {
			continue
		}
		if len(scores) > 1 && scores[1].n == scores[0].n {
			l.warnings = append(l.warnings, fmt.Sprintf("Cardmarket expansion %d matches TCGplayer groups %d and %d equally: left unmatched", e, scores[0].group, scores[1].group))
			continue
		}
		l.groupOf[e] = scores[0].group
	}
}

func (l *links) linkByName(u *upstream) {
	type candidates struct {
		tcg, cm []int
		exp     int // the expansion of the Cardmarket product (of the last, when several)
	}
	byGroup := map[int]map[string]*candidates{}
	for gid, ps := range u.products {
		for i := range ps {
			p := &ps[i]
			if _, linked := l.cmOf[p.ProductID]; linked {
				continue
			}
			m := byGroup[gid]
			if m == nil {
				m = map[string]*candidates{}
				byGroup[gid] = m
			}
			k := TCGKey(u.game, p)
			if m[k] == nil {
				m[k] = &candidates{}
			}
			m[k].tcg = append(m[k].tcg, p.ProductID)
		}
	}
	for _, list := range [][]cardmarket.Product{u.cmSingle, u.cmSealed} {
		for i := range list {
			p := &list[i]
			gid, ok := l.groupOf[p.IDExpansion]
			if !ok {
				continue
			}
			if _, linked := l.tcgOf[p.IDProduct]; linked {
				continue
			}
			c := byGroup[gid][CMKey(u.game, p.Name)]
			if c == nil {
				continue // Cardmarket only
			}
			c.cm = append(c.cm, p.IDProduct)
			c.exp = p.IDExpansion
		}
	}
	for _, m := range byGroup {
		for _, c := range m {
			switch {
			case len(c.cm) == 0:
			case len(c.tcg) == 1 && len(c.cm) == 1:
				if p := (linkPair{c.tcg[0], c.cm[0]}); u.never[p] {
					l.forbidden[p] = true
					continue
				}
				match := catalog.MatchName
				if l.setLinked[c.exp] {
					match = catalog.MatchNameSetPair
				}
				l.link(c.tcg[0], c.cm[0], match)
			default:
				l.ambiguous += len(c.cm)
			}
		}
	}
}

func tcgGroupExists(u *upstream, gid int) bool {
	_, ok := u.products[gid]
	if ok {
		return true
	}
	for _, g := range u.groups {
		if g.GroupID == gid {
			return true
		}
	}
	return false
}
