package images

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// SetLogos maps a TCGplayer group to the TCGdex set whose logo it has:
// TCGdex's set list (links/pokemon-tcgdex/sets.csv: language, tcgdex_serie,
// tcgdex_set, tcgplayer_group_id, ...). A group that TCGdex gives several
// sets of one language has no logo: a wrong logo is worse than none.
type SetLogos struct {
	of map[setLogoKey]SetLogo
}

type setLogoKey struct {
	group    int
	language string
}

// SetLogo is a set's logo on TCGdex's asset server.
type SetLogo struct {
	Language, Serie, Set string
}

// Lookup returns the logo of a TCGplayer group's set in language.
func (l *SetLogos) Lookup(group int, language string) (SetLogo, bool) {
	if l == nil {
		return SetLogo{}, false
	}
	s, ok := l.of[setLogoKey{group, language}]
	return s, ok && s.Set != ""
}

// Len is the number of groups with a logo.
func (l *SetLogos) Len() int {
	n := 0
	if l != nil {
		for _, s := range l.of {
			if s.Set != "" {
				n++
			}
		}
	}
	return n
}

// ReadSetLogos reads TCGdex's set list. Columns are found by their header;
// a line without a TCGplayer group is skipped.
func ReadSetLogos(r io.Reader) (*SetLogos, error) {
	cr := csv.NewReader(r)
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("set logos: header: %w", err)
	}
	col := map[string]int{}
	for i, h := range header {
		col[strings.TrimPrefix(strings.TrimSpace(h), "\ufeff")] = i
	}
	for _, name := range []string{"language", "tcgdex_serie", "tcgdex_set", "tcgplayer_group_id"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("set logos: no %s column", name)
		}
	}
	l := &SetLogos{of: map[setLogoKey]SetLogo{}}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return l, nil
		}
		if err != nil {
			return nil, fmt.Errorf("set logos: %w", err)
		}
		line, _ := cr.FieldPos(0)
		gid := strings.TrimSpace(rec[col["tcgplayer_group_id"]])
		if gid == "" {
			continue
		}
		group, err := strconv.Atoi(gid)
		if err != nil || group <= 0 {
			return nil, fmt.Errorf("set logos: line %d: tcgplayer_group_id %q is not a positive integer", line, gid)
		}
		logo := SetLogo{Language: strings.TrimSpace(rec[col["language"]]), Serie: strings.TrimSpace(rec[col["tcgdex_serie"]]),
			Set: strings.TrimSpace(rec[col["tcgdex_set"]])}
		if logo.Language == "" || logo.Serie == "" || logo.Set == "" {
			continue
		}
		k := setLogoKey{group, logo.Language}
		if prev, dup := l.of[k]; dup && prev != logo {
			l.of[k] = SetLogo{} // several sets: no logo
			continue
		}
		l.of[k] = logo
	}
}
