package ingest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const linksHeader = "game,tcgplayer_product_id,cardmarket_id_product\n"

// linkFileSeeds are inputs for both pair files (links.csv, never.csv).
var linkFileSeeds = []string{"", linksHeader, linksHeader + "mtg,541241,774128\ndbs,535600,700001\n", linksHeader + "# comment\nmtg, 1, 2\n",
	linksHeader + "mtg,0,1\n", linksHeader + "mtg,-1,1\n", linksHeader + "mtg,1\n", linksHeader + "mtg,1,2,3\n", linksHeader + ",1,2\n",
	linksHeader + "mtg,99999999999999999999,1\n", linksHeader + "mtg,+1,1\n", linksHeader + "\"m\"\"tg\",1,2\n", linksHeader + "\"unterminated,1,2\n",
	"game,tcg,cm\nmtg,1,2\n", "\ufeff" + linksHeader + "mtg,1,2\n", linksHeader + "mtg,1,2\r\n\r\n", linksHeader + "mtg\x00,1,2\n",
	linksHeader + "'; DROP TABLE cards; --,1,2\n", linksHeader + "mtg ,1 ,2\t\n", linksHeader + "\"mtg\n\",1,2\nmtg,3,4\n"}

// FuzzDecodeLinksCSV: any bytes are refused with an error or give rows with
// a game, positive ids and increasing line numbers after the header's; the
// rows round-trip through a file written from them.
func FuzzDecodeLinksCSV(f *testing.F) {
	for _, s := range linkFileSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rows, err := decodeLinksCSV(bytes.NewReader(data))
		if err != nil {
			if rows != nil || err.Error() == "" {
				t.Fatalf("error %v with rows %v", err, rows)
			}
			return
		}
		for i, r := range rows {
			if r.game == "" || r.game != strings.TrimSpace(r.game) || r.tcg <= 0 || r.cm <= 0 || r.line < 2 || i > 0 && r.line <= rows[i-1].line {
				t.Fatalf("row %d accepted: %+v", i, r)
			}
		}
		again, err := decodeLinksCSV(strings.NewReader(writeLinksCSV(rows)))
		if err != nil {
			t.Fatalf("rows written again do not decode: %v\n%s", err, writeLinksCSV(rows))
		}
		if diff := cmp.Diff(withoutLines(rows), withoutLines(again), cmp.AllowUnexported(csvLink{})); diff != "" {
			t.Fatalf("rows changed when written and read again:\n%s", diff)
		}
	})
}

// FuzzNeverCSV: for any links.csv and never.csv that decode, each game's
// operator links are either refused with an error naming both lines, or
// none of them is forbidden and every never.csv pair of the game is.
func FuzzNeverCSV(f *testing.F) {
	for _, s := range linkFileSeeds {
		f.Add([]byte(linksHeader+"mtg,1,2\n"), []byte(s))
	}
	f.Add([]byte(linksHeader+"mtg,1,2\ndbs,3,4\n"), []byte(linksHeader+"dbs,1,2\nmtg,3,4\n"))
	f.Add([]byte(linksHeader+"mtg,1,2\n# c\nmtg,3,4\n"), []byte(linksHeader+"\nmtg,3,4\n"))
	f.Fuzz(func(t *testing.T, linksData, neverData []byte) {
		links, err := decodeLinksCSV(bytes.NewReader(linksData))
		if err != nil {
			return
		}
		never, err := decodeLinksCSV(bytes.NewReader(neverData))
		if err != nil {
			return
		}
		banned := map[string]map[linkPair]bool{}
		for _, r := range never {
			if banned[r.game] == nil {
				banned[r.game] = map[linkPair]bool{}
			}
			banned[r.game][linkPair{r.tcg, r.cm}] = true
		}
		games := map[string]bool{"mtg": true}
		for _, r := range append(links, never...) {
			games[r.game] = true
		}
		for game := range games {
			ops, forbidden, err := operatorLinks(game, links, never)
			clash := false
			for _, r := range links {
				clash = clash || r.game == game && banned[game][linkPair{r.tcg, r.cm}]
			}
			if err != nil {
				if !clash || ops != nil || forbidden != nil || !strings.Contains(err.Error(), "line ") || !strings.Contains(err.Error(), "never.csv line ") {
					t.Fatalf("game %q: error %v (clash %v) with %v, %v", game, err, clash, ops, forbidden)
				}
				continue
			}
			if clash {
				t.Fatalf("game %q: a links.csv row that never.csv forbids was accepted: %v", game, ops)
			}
			if diff := cmp.Diff(banned[game], forbidden, cmp.AllowUnexported(linkPair{})); len(banned[game])+len(forbidden) > 0 && diff != "" {
				t.Fatalf("game %q: forbidden pairs (-want +got):\n%s", game, diff)
			}
			for _, r := range ops {
				if r.game != game {
					t.Fatalf("game %q: got a row of %q", game, r.game)
				}
			}
		}
	})
}

// writeLinksCSV writes rows as a pair file. Games are quoted, so that one
// starting with '#' is not a comment.
func writeLinksCSV(rows []csvLink) string {
	var b strings.Builder
	b.WriteString(linksHeader)
	for _, r := range rows {
		b.WriteString(`"` + strings.ReplaceAll(r.game, `"`, `""`) + `",` + strconv.Itoa(r.tcg) + "," + strconv.Itoa(r.cm) + "\n")
	}
	return b.String()
}

// withoutLines drops the line numbers, which a rewritten file need not keep.
func withoutLines(rows []csvLink) []csvLink {
	out := make([]csvLink, len(rows))
	for i, r := range rows {
		r.line = 0
		out[i] = r
	}
	return out
}
