package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/jsonw"
	"github.com/cardcat/cardcat/internal/web"
)

// GET /{game}/sets: the pre-rendered set list.
func (s *Server) handleSets(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		_, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		return reply{kind: web.Kept, contentType: jsonContentType, body: g.SetListJSON(), tag: g.SetListTag()}, nil
	}
}

// GET /{game}/sets/{set}: a page of a set's cards, assembled from
// pre-rendered parts; or the disambiguation of a shared set code.
func (s *Server) handleSetCards(code string) keyedHandler {
	return func(r *http.Request) (reply, error) {
		pg, err := parsePaging(queryOf(r), setPageDefault, setPageMax)
		if err != nil {
			return reply{}, err
		}
		_, g, err := s.gameSnapshot(code)
		if err != nil {
			return reply{}, err
		}
		set, disambiguation, err := resolveSet(r, g, pathValue(r, "set"))
		if set == nil {
			return disambiguation, err
		}
		from, to := pg.Window(set.Total)
		return reply{kind: web.Kept, contentType: jsonContentType, tag: g.SetPageTag(set, pg.Page, pg.Limit),
			page: setPage{g: g, set: set, pg: pg, from: from, to: to}}, nil
	}
}

// setPage is a page of a set's card listing, cards [from, to) of it,
// assembled from the snapshot's pre-rendered parts when its bytes are sent
// (reply.bytes).
type setPage struct {
	g        *catalog.GameSnapshot
	set      *catalog.ListedSet
	pg       paging
	from, to int
}

// parts are the page in order: its head, the set's header, the run of its
// cards' listings as it lies in the snapshot, and its tail, appended to
// tail's memory. appendTo, length and send all take the page from them.
func (p *setPage) parts(tail []byte) [5][]byte {
	tail = append(tail, `],"pagination":`...)
	tail = p.pg.AppendJSON(tail, p.set.Total)
	run := p.g.SetRun(p.set, p.from, p.to)
	return [5][]byte{pageOpen, p.set.HeaderJSON(), cardsOpen, unsafe.Slice(unsafe.StringData(run), len(run)), append(tail, '}')}
}

// The constant parts of a set page.
var pageOpen, cardsOpen = []byte(`{"success":true,"set":`), []byte(`,"cards":[`)

// tailRoom holds a page's tail (its pagination) without an allocation.
type tailRoom [128]byte

func (p *setPage) appendTo(b []byte) []byte {
	var tail tailRoom
	for _, part := range p.parts(tail[:0]) {
		b = append(b, part...)
	}
	return b
}

// length is the length of the page appendTo makes, without making it.
func (p *setPage) length() int {
	var tail tailRoom
	n := 0
	for _, part := range p.parts(tail[:0]) {
		n += len(part)
	}
	return n
}

// send writes the page from its parts as they lie, not joined first: over
// serve's connections they leave in one writev without the page's copy
// (web.SendParts). The tail is in a pooled buffer: written through an
// interface, it would otherwise move to the heap.
func (p *setPage) send(w http.ResponseWriter, contentType []string) {
	bp := getBuffer()
	defer putBuffer(bp)
	parts := p.parts((*bp)[:0])
	*bp = parts[4]
	web.SendParts(w, contentType, parts[:]...)
}

// resolveSet resolves :set for every route under /{game}/sets/{set}: a
// set_id, else a set_code compared case-insensitively, narrowed to the sets
// of ?language= when given. A code that several sets share is answered
// with the disambiguation: its reply, with a nil set. No set is the 404
// "Set not found" with suggestions.
func resolveSet(r *http.Request, g *catalog.GameSnapshot, key string) (*catalog.ListedSet, reply, error) {
	language, err := parseLanguage(queryOf(r))
	if err != nil {
		return nil, reply{}, err
	}
	if set, ok := g.SetByID(key); ok {
		return set, reply{}, nil
	}
	switch sets := narrowLanguage(g.SetsByCode(key), language); len(sets) {
	case 0:
		return nil, reply{}, setNotFound(g, key)
	case 1:
		return sets[0], reply{}, nil
	default:
		return nil, keptReply(disambiguation(key, sets)), nil
	}
}

// disambiguation is the 200 answer for a set_code that several sets share.
func disambiguation(key string, sets []*catalog.ListedSet) []byte {
	b := []byte(`{"disambiguation":true,"message":`)
	b = jsonw.AppendString(b, fmt.Sprintf(
		"The set code %q matches %d sets; repeat the request with the set_id of the one you want.", key, len(sets)))
	b = append(b, `,"matches":[`...)
	for i, s := range sets {
		if i > 0 {
			b = append(b, ',')
		}
		b = catalog.AppendSetCandidate(b, &s.SetInfo)
	}
	b = append(b, `],"total":`...)
	b = strconv.AppendInt(b, int64(len(sets)), 10)
	return append(b, '}')
}

// setNotFound is the 404 of an unknown set. Unless :set has the form of a
// set_id (digits, maybe after "-"), it carries suggestions: the sets whose
// name holds every word of it (possibly none).
func setNotFound(g *catalog.GameSnapshot, key string) *apiError {
	e := newError(http.StatusNotFound, errSetNotFound,
		fmt.Sprintf("No %s set has the set_id or set_code %q. GET %s/sets lists them.", g.Game().Name, key, g.Game().PathPrefix()))
	if looksLikeSetID(key) {
		return e
	}
	suggestions := []json.RawMessage{}
	for _, s := range g.SuggestSets(key, 10) {
		suggestions = append(suggestions, catalog.AppendSetCandidate(nil, &s.SetInfo))
	}
	e.Body.Suggestions = suggestions
	if len(suggestions) > 0 {
		e.Body.Message += " Sets whose name matches are in suggestions; ask for one by its set_id."
	}
	return e
}

func looksLikeSetID(key string) bool {
	if len(key) > 0 && key[0] == '-' {
		key = key[1:]
	}
	if key == "" {
		return false
	}
	for i := 0; i < len(key); i++ {
		if key[i] < '0' || key[i] > '9' {
			return false
		}
	}
	return true
}

// parseLanguage is ?language=, a set language ("en", "ja"), lower-cased;
// "" when absent.
func parseLanguage(q url.Values) (string, error) {
	v, ok := q["language"]
	if !ok {
		return "", nil
	}
	if len(v) != 1 || !isLanguage(v[0]) {
		return "", newError(http.StatusBadRequest, errInvalidParameter,
			"language must be a set language code, such as en or ja (given once).")
	}
	return strings.ToLower(v[0]), nil
}

func isLanguage(s string) bool {
	if len(s) < 2 || len(s) > 8 {
		return false
	}
	for _, c := range s {
		if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && c != '-' {
			return false
		}
	}
	return true
}

// narrowLanguage keeps the sets of language ("" keeps all).
func narrowLanguage(sets []*catalog.ListedSet, language string) []*catalog.ListedSet {
	if language == "" {
		return sets
	}
	out := sets[:0:0]
	for _, st := range sets {
		if strings.EqualFold(st.Language, language) {
			out = append(out, st)
		}
	}
	return out
}
