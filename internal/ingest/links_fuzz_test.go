package ingest

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzDecodeLinksCSV: any bytes are refused with an error or give rows with
// a game and positive ids; the rows round-trip through a file written from
// them.
func FuzzDecodeLinksCSV(f *testing.F) {
	const header = "game,tcgplayer_product_id,cardmarket_id_product\n"
	for _, s := range []string{"", header, header + "mtg,541241,774128\ndbs,535600,700001\n", header + "# comment\nmtg, 1, 2\n",
		header + "mtg,0,1\n", header + "mtg,-1,1\n", header + "mtg,1\n", header + "mtg,1,2,3\n", header + ",1,2\n",
		header + "mtg,99999999999999999999,1\n", header + "mtg,+1,1\n", header + "\"m\"\"tg\",1,2\n", header + "\"unterminated,1,2\n",
		"game,tcg,cm\nmtg,1,2\n", "\ufeff" + header + "mtg,1,2\n", header + "mtg,1,2\r\n\r\n", header + "mtg\x00,1,2\n",
		header + "'; DROP TABLE cards; --,1,2\n"} {
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
		var b strings.Builder
		b.WriteString(header)
		for i, r := range rows {
			if r.game == "" || r.tcg <= 0 || r.cm <= 0 {
				t.Fatalf("row %d accepted: %+v", i, r)
			}
			// Quoted, so that a game starting with '#' or a space is not a comment or trimmed.
			b.WriteString(`"` + strings.ReplaceAll(r.game, `"`, `""`) + `",` + strconv.Itoa(r.tcg) + "," + strconv.Itoa(r.cm) + "\n")
		}
		again, err := decodeLinksCSV(strings.NewReader(b.String()))
		if err != nil {
			t.Fatalf("rows written again do not decode: %v\n%s", err, b.String())
		}
		if diff := cmp.Diff(rows, again, cmp.AllowUnexported(csvLink{})); diff != "" {
			t.Fatalf("rows changed when written and read again:\n%s", diff)
		}
	})
}
