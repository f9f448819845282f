package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
)

// batchMax is the most ids one batch lookup takes.
const batchMax = 100

// GET /{game}/cards?ids=: up to batchMax cards in one request, counted once:
// their pre-rendered detail bodies in the order asked, each card once (at
// the first id that found it), and the ids that found no card of the game,
// as sent and once each.
func (s *Server) handleCardsBatch(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		ids, err := batchIDs(queryOf(r))
		if err != nil {
			return reply{}, err
		}
		_, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		var found [batchMax]catalog.CardRef
		refs := found[:0]
		var missing []string
		for _, id := range ids {
			ref, ok := lookupAnyForm(g, code, id)
			switch {
			case !ok:
				if !slices.Contains(missing, id) {
					missing = append(missing, id)
				}
			case !slices.Contains(refs, ref):
				refs = append(refs, ref)
			}
		}

		bp := getBuffer()
		b := append(*bp, `{"success":true,"data":[`...)
		b = g.AppendCards(b, refs)
		b = append(b, `],"not_found":[`...)
		for i, id := range missing {
			if i > 0 {
				b = append(b, ',')
			}
			b = jsonw.AppendString(b, id)
		}
		b = append(b, "]}"...)
		*bp = b
		return madeReply(jsonContentType, bp), nil
	}
}

// lookupAnyForm finds a card by an id of either form GET /{game}/cards/{id}
// takes; a malformed id or another game's finds nothing.
func lookupAnyForm(g *catalog.GameSnapshot, code, id string) (catalog.CardRef, bool) {
	if catalog.ClassifyCardID(code, id) == catalog.IDMalformed {
		return 0, false
	}
	return g.LookupCard(id)
}

// batchIDs reads ids: every ids parameter, split at commas, each id trimmed
// of spaces; 1 to batchMax ids as sent (repeats count), none empty.
func batchIDs(q url.Values) ([]string, error) {
	vs, ok := q["ids"]
	if !ok {
		return nil, newError(http.StatusBadRequest, errInvalidParameter,
			"The parameter ids is required: 1 to "+strconv.Itoa(batchMax)+" card ids separated by commas, as in ?ids=ID,ID.")
	}
	n := 0
	for _, v := range vs {
		n += strings.Count(v, ",") + 1
	}
	invalid := func(why string) error {
		return newError(http.StatusBadRequest, errInvalidParameter,
			"The parameter ids must list 1 to "+strconv.Itoa(batchMax)+" card ids separated by commas; "+why+".")
	}
	if n > batchMax { // before splitting: a long list costs nothing
		return nil, invalid("it lists " + strconv.Itoa(n))
	}
	ids := make([]string, 0, n)
	for _, v := range vs {
		for id := range strings.SplitSeq(v, ",") {
			id = strings.Trim(id, " ")
			if id == "" {
				if n == 1 {
					return nil, invalid("it is empty")
				}
				return nil, invalid("id " + strconv.Itoa(len(ids)+1) + " of " + strconv.Itoa(n) + " is empty")
			}
			ids = append(ids, id)
		}
	}
	return ids, nil
}
