package apiref

import (
	"encoding/json"
	"strings"

	"github.com/cardcat/cardcat/internal/account"
)

// GET / and GET /games describe the API from the table and the registry:
// rendered once, served as bytes.

// Endpoint is a route as GET / lists it.
type Endpoint struct {
	Label        string
	Path         string // template: /{game}/sets/:set
	AuthRequired bool
}

// Endpoints are the routes GET / lists: each route under /{game}/ (or
// without a game), then, for the base game, each of its own routes as
// itself (pkm_sets /sets), and the MCP endpoint.
func Endpoints(ref *Reference) []Endpoint {
	var out []Endpoint
	base, hasBase := ref.Games.Base()
	for i := range ref.Routes {
		rt := &ref.Routes[i]
		if rt.ServedPrefixed(ref.Games) {
			out = append(out, Endpoint{Label: rt.Label, Path: rt.ListedPath(), AuthRequired: rt.Access != Public})
		}
		if hasBase && rt.PerGame() && rt.ServedFor(base) {
			out = append(out, Endpoint{Label: base.Code + "_" + rt.Label,
				Path: strings.TrimPrefix(rt.ListedPath(), "/{game}"), AuthRequired: rt.Access != Public})
		}
	}
	return append(out, Endpoint{Label: "mcp", Path: ref.MCP.Path, AuthRequired: true})
}

type rootBody struct {
	Name           string                  `json:"name"`
	Version        string                  `json:"version"`
	Status         string                  `json:"status"`
	Data           Data                    `json:"data"`
	Authentication rootAuth                `json:"authentication"`
	Endpoints      map[string]rootEndpoint `json:"endpoints"`
	RateLimits     rateLimits              `json:"rate_limits"`
}

// DataSource says what a catalogue version was made from. GET / and
// /health show it, so that nobody takes the bundled sample's generated
// prices for market prices, and so that a server on real data says so.
type DataSource string

const (
	// DataSample is the sample bundled with the server (sample/README.md),
	// which serve loads into an empty store.
	DataSample DataSource = "sample"
	// DataLive is an ingest of the marketplaces' downloads.
	DataLive DataSource = "live"
	// DataMirror is an ingest of a copy of those files (ingest --from DIR).
	DataMirror DataSource = "mirror"
	// DataUnknown is shown when the server cannot tell.
	DataUnknown DataSource = "unknown"
)

// DataSources are the values of DataSource, as the document lists them.
var DataSources = []DataSource{DataSample, DataLive, DataMirror, DataUnknown}

// Data is what GET / and /health say of the data served.
type Data struct {
	Source DataSource `json:"source"`
	Notice string     `json:"notice"`
}

// DataOf is the Data of a source; an unknown value is DataUnknown's.
func DataOf(source DataSource) Data {
	switch source {
	case DataSample:
		return Data{source, "This server answers from the sample bundled with cardcat, not from the marketplaces' " +
			"current data: the TCGplayer catalogue and the Cardmarket data of Pokémon and One Piece are real, but the " +
			"Cardmarket data of Magic and Dragon Ball Super and the TCGplayer prices (Fusion World's market prices excepted) " +
			"are generated. Do not use these prices."}
	case DataLive:
		return Data{source, "Ingested from the marketplaces' downloads: TCGplayer's (through tcgcsv.com) and Cardmarket's."}
	case DataMirror:
		return Data{source, "Ingested from a copy of the marketplaces' files kept by the operator: " +
			"its prices are as current as that copy."}
	}
	return Data{DataUnknown, "This server does not know what its catalogue was made from."}
}

type rootAuth struct {
	Required bool   `json:"required"`
	Method   string `json:"method"`
	Header   string `json:"header"`
	Format   string `json:"format"`
}

type rootEndpoint struct {
	Path         string `json:"path"`
	AuthRequired bool   `json:"auth_required"`
}

// Root renders GET /: what the service is, what its data is made from
// (source), how to authenticate, every endpoint.
func Root(ref *Reference, source DataSource) ([]byte, error) {
	b := rootBody{
		Name:    "cardcat",
		Version: ref.Version,
		Status:  "operational",
		Data:    DataOf(source),
		Authentication: rootAuth{
			Required: true,
			Method:   "api_key",
			Header:   "X-API-Key",
			Format: "pk_live_ (production) or pk_test_ (development) followed by 32 letters and digits; " +
				"sent in the header X-API-Key or as Authorization: Bearer followed by the key. " + PublicPathsNote(ref.Routes),
		},
		Endpoints:  map[string]rootEndpoint{},
		RateLimits: freeRateLimits(),
	}
	for _, d := range Endpoints(ref) {
		b.Endpoints[d.Label] = rootEndpoint{Path: d.Path, AuthRequired: d.AuthRequired}
	}
	return json.Marshal(b)
}

type gamesBody struct {
	Success bool       `json:"success"`
	Data    []gameItem `json:"data"`
}

type gameItem struct {
	Code      string        `json:"code"`
	Name      string        `json:"name"`
	Endpoints gameEndpoints `json:"endpoints"`
}

type gameEndpoints struct {
	Sets   string `json:"sets"`
	Set    string `json:"set"`
	Card   string `json:"card"`
	Search string `json:"search"`
	Image  string `json:"image"`
}

// Games renders GET /games: the listed games with their route templates.
func Games(ref *Reference) ([]byte, error) {
	b := gamesBody{Success: true, Data: []gameItem{}}
	for _, g := range ref.Games.All() {
		if !g.Listed {
			continue // the spec's list: the base game and One Piece are in GET / and the docs
		}
		p := g.PathPrefix()
		b.Data = append(b.Data, gameItem{Code: g.Code, Name: g.Name, Endpoints: gameEndpoints{
			Sets: p + "/sets", Set: p + "/sets/:set", Card: p + "/cards/:id", Search: p + "/search",
			Image: p + "/images/:id",
		}})
	}
	return json.Marshal(b)
}

// rateLimits are the limits of a plan as GET / shows them.
type rateLimits struct {
	PerHour int64  `json:"per_hour"`
	PerDay  int64  `json:"per_day"`
	Plan    string `json:"plan"`
}

// freeRateLimits are the Free plan's, which a caller without a key has.
func freeRateLimits() rateLimits {
	lim := account.FreeLimits()
	return rateLimits{PerHour: lim.Hour, PerDay: lim.Day, Plan: string(account.Free)}
}
