package status

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"html/template"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cardcat/cardcat/internal/site"
)

// The status page's paths, served beside the API (cmd/cardcat/mount.go).
const (
	PagePath = "/status"
	JSONPath = "/status.json"
	FeedPath = "/status/incidents.atom"
)

// StaleAfter is how old the last check may be for the page to say up or
// down; older, the API's state is unknown (no replica is checking).
const StaleAfter = 3 * time.Minute

// Page serves the status page, its JSON and the incidents' feed. What it
// shows is read at most once per CacheFor: the page is public and never
// counted, so its readers must not cost the store a query each.
type Page struct {
	Store Store
	// Catalogue is the catalogue served, per game; nil before one is
	// loaded.
	Catalogue func() []Game
	// LastIngest is the last ingest's outcome (ok false: none known).
	LastIngest func(ctx context.Context) (in Ingest, ok bool, err error)
	PublicURL  string // no trailing slash
	Version    string
	Now        func() time.Time
	Log        *slog.Logger
	CacheFor   time.Duration

	mu      sync.Mutex // held by the one request that reads the store
	cached  atomic.Pointer[report]
	started time.Time // the feed's updated without incidents; set once, under mu
}

// Game is one game's catalogue served.
type Game struct {
	Code, Name  string
	Version     int64
	UpdatedAt   time.Time
	Sets, Cards int
}

// Ingest is the last ingest: the version last written, and how the
// server's own scheduled refresh last ended when it ran after it.
type Ingest struct {
	Version  int64
	At       time.Time
	Data     string // sample, live, mirror, unknown
	Failed   bool   // the last scheduled refresh, after At, failed
	FailedAt time.Time
	Error    string
}

// ServeHTTP answers GET and HEAD of the three paths.
func (p *Page) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	switch r.URL.Path {
	case PagePath, JSONPath, FeedPath:
	default:
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("Not found: the status page is " + PagePath + ", its JSON " + JSONPath + ", its incidents' feed " + FeedPath + ".\n"))
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		h.Set("Allow", "GET, HEAD")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusMethodNotAllowed)
		w.Write([]byte("Method not allowed: GET or HEAD.\n"))
		return
	}
	rep := p.report(r.Context())
	h.Set("Content-Security-Policy", site.CSPGuide)
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "public, max-age="+strconv.Itoa(int(p.cacheFor()/time.Second)))
	var body []byte
	var err error
	switch r.URL.Path {
	case PagePath:
		h.Set("Content-Type", "text/html; charset=utf-8")
		body, err = rep.html()
	case JSONPath:
		h.Set("Content-Type", "application/json")
		h.Set("Access-Control-Allow-Origin", "*") // a dashboard on another origin may read it
		body, err = json.MarshalIndent(rep.JSON, "", "  ")
		body = append(body, '\n')
	case FeedPath:
		h.Set("Content-Type", site.AtomType)
		body, err = p.feed(rep).Marshal()
	}
	if err != nil {
		p.Log.Error("status page", "path", r.URL.Path, "err", err)
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		w.WriteHeader(http.StatusInternalServerError)
		w.Write([]byte("The status page failed; it has been logged.\n"))
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.Write(body)
}

func (p *Page) cacheFor() time.Duration {
	if p.CacheFor <= 0 {
		return 10 * time.Second
	}
	return p.CacheFor
}

// report is what the page shows at one time, read at most once per
// CacheFor by one request at a time; while one reads the store (slow, or
// down: 5 s at most), the others get the last reading. A store that fails
// leaves out what it holds, said in Problems.
func (p *Page) report(ctx context.Context) *report {
	now := p.Now()
	if c := p.cached.Load(); c != nil && now.Sub(c.at) < p.cacheFor() {
		return c
	}
	if !p.mu.TryLock() {
		if c := p.cached.Load(); c != nil {
			return c
		}
		p.mu.Lock() // the first reading: wait for it
	}
	defer p.mu.Unlock()
	if c := p.cached.Load(); c != nil && now.Sub(c.at) < p.cacheFor() {
		return c // read while this request waited
	}
	if p.started.IsZero() {
		p.started = now
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	rep := &report{at: now, started: p.started, publicURL: p.PublicURL, version: p.Version}
	j := &rep.JSON
	j.GeneratedAt = now.UTC().Format(time.RFC3339)
	j.Status, j.Indicator = "unknown", "none"
	j.Catalogue = []gameJSON{}
	j.Incidents = []incidentJSON{}
	problem := func(what string, err error) {
		p.Log.Warn("status page: "+what, "err", err)
		rep.Problems = append(rep.Problems, "The "+what+" could not be read.")
	}

	last, err := p.Store.LatestCheck(ctx)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		problem("last check", err)
	default:
		j.LastCheck = &checkJSON{At: last.Minute.Format(time.RFC3339), OK: last.OK, HTTPStatus: last.Status,
			LatencyMS: math.Round(float64(last.Latency)/float64(time.Millisecond)*10) / 10}
		if now.Sub(last.Minute) <= StaleAfter {
			j.Status = map[bool]string{true: "up", false: "down"}[last.OK]
		}
	}

	if p.Catalogue != nil {
		for _, g := range p.Catalogue() {
			j.Catalogue = append(j.Catalogue, gameJSON{Game: g.Code, Name: g.Name, Version: g.Version,
				UpdatedAt: g.UpdatedAt.UTC().Format(time.RFC3339), AgeSeconds: int64(now.Sub(g.UpdatedAt) / time.Second),
				Sets: g.Sets, Cards: g.Cards})
		}
	}
	if p.LastIngest != nil {
		in, ok, err := p.LastIngest(ctx)
		switch {
		case err != nil:
			problem("last ingest", err)
		case ok:
			ij := &ingestJSON{Version: in.Version, At: in.At.UTC().Format(time.RFC3339), Data: in.Data, Outcome: "ok"}
			if in.Failed {
				ij.Outcome, ij.Error = "failed", in.Error
				ij.FailedAt = in.FailedAt.UTC().Format(time.RFC3339)
			}
			j.LastIngest = ij
		}
	}

	first, err := p.Store.FirstCheck(ctx)
	if err != nil && !errors.Is(err, ErrNotFound) {
		problem("uptime", err)
	}
	var counts []DayChecks
	if err == nil {
		if counts, err = p.Store.CheckDays(ctx, WindowStart(now), UptimeEnd(now)); err != nil {
			problem("uptime", err)
		}
	}
	rep.Uptime = ComputeUptime(counts, first, now)
	j.Uptime = uptimeJSON{Days: WindowDays, Percent: percent(rep.Uptime.Share()), Minutes: rep.Uptime.Minutes, MinutesUp: rep.Uptime.Up}
	for _, d := range rep.Uptime.Days {
		j.Uptime.Daily = append(j.Uptime.Daily, dayJSON{Date: d.Date.Format(time.DateOnly), Percent: percent(d.Share()),
			Minutes: d.Minutes, MinutesUp: d.Up, MinutesWithoutCheck: d.NoCheck})
	}

	incidents, err := p.Store.Incidents(ctx, WindowStart(now))
	if err != nil {
		problem("incidents", err)
	}
	rep.Incidents = incidents
	worst := 0
	for _, in := range incidents {
		ij := incidentJSON{ID: in.ID, Title: in.Title, Impact: string(in.Impact), State: string(in.State),
			CreatedAt: in.CreatedAt.Format(time.RFC3339), UpdatedAt: in.UpdatedAt.Format(time.RFC3339), Updates: []updateJSON{}}
		if !in.ResolvedAt.IsZero() {
			ij.ResolvedAt = in.ResolvedAt.Format(time.RFC3339)
		}
		for _, u := range in.Updates {
			ij.Updates = append(ij.Updates, updateJSON{State: string(u.State), Message: u.Message, At: u.At.Format(time.RFC3339)})
		}
		j.Incidents = append(j.Incidents, ij)
		if in.Open() {
			if r := impactRank[in.Impact]; r > worst {
				worst, j.Indicator = r, string(in.Impact)
			}
		}
	}
	p.cached.Store(rep)
	return rep
}

var impactRank = map[Impact]int{Minor: 1, Major: 2, Critical: 3}

// percent is a share as a percentage with three decimals, nil without one.
func percent(share float64, ok bool) *float64 {
	if !ok {
		return nil
	}
	v := math.Floor(share*100*1000) / 1000 // floored: 99.9996% up is not 100%
	return &v
}

// report is one reading of the page: its JSON, and what the HTML adds.
type report struct {
	at        time.Time
	started   time.Time // the page's first reading: the feed's updated without incidents
	publicURL string
	version   string
	JSON      reportJSON
	Uptime    Uptime
	Incidents []Incident
	Problems  []string
}

type reportJSON struct {
	Status      string         `json:"status"`    // up, down, unknown
	Indicator   string         `json:"indicator"` // the worst open incident's impact, or none
	GeneratedAt string         `json:"generated_at"`
	LastCheck   *checkJSON     `json:"last_check"`
	Catalogue   []gameJSON     `json:"catalogue"`
	LastIngest  *ingestJSON    `json:"last_ingest"`
	Uptime      uptimeJSON     `json:"uptime"`
	Incidents   []incidentJSON `json:"incidents"`
}

type checkJSON struct {
	At         string  `json:"at"`
	OK         bool    `json:"ok"`
	HTTPStatus int     `json:"http_status"`
	LatencyMS  float64 `json:"latency_ms"`
}

type gameJSON struct {
	Game       string `json:"game"`
	Name       string `json:"name"`
	Version    int64  `json:"version"`
	UpdatedAt  string `json:"updated_at"`
	AgeSeconds int64  `json:"age_seconds"`
	Sets       int    `json:"sets"`
	Cards      int    `json:"cards"`
}

type ingestJSON struct {
	Version  int64  `json:"version"`
	At       string `json:"at"`
	Data     string `json:"data"`
	Outcome  string `json:"outcome"` // ok, failed
	FailedAt string `json:"failed_at,omitempty"`
	Error    string `json:"error,omitempty"`
}

type uptimeJSON struct {
	Days      int       `json:"days"`
	Percent   *float64  `json:"percent"`
	Minutes   int       `json:"minutes"`
	MinutesUp int       `json:"minutes_up"`
	Daily     []dayJSON `json:"daily"`
}

type dayJSON struct {
	Date                string   `json:"date"`
	Percent             *float64 `json:"percent"`
	Minutes             int      `json:"minutes"`
	MinutesUp           int      `json:"minutes_up"`
	MinutesWithoutCheck int      `json:"minutes_without_check"`
}

type incidentJSON struct {
	ID         int64        `json:"id"`
	Title      string       `json:"title"`
	Impact     string       `json:"impact"`
	State      string       `json:"state"`
	CreatedAt  string       `json:"created_at"`
	UpdatedAt  string       `json:"updated_at"`
	ResolvedAt string       `json:"resolved_at,omitempty"`
	Updates    []updateJSON `json:"updates"`
}

type updateJSON struct {
	State   string `json:"state"`
	Message string `json:"message"`
	At      string `json:"at"`
}

//go:embed templates
var templateFS embed.FS

var pageTemplate = template.Must(template.New("status.html").Funcs(template.FuncMap{
	"pct": func(v *float64) string {
		if v == nil {
			return "no data"
		}
		return strconv.FormatFloat(*v, 'f', 3, 64) + "%"
	},
	"day":    func(t time.Time) string { return t.Format(time.DateOnly) },
	"minute": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"age":    age,
	"title":  func(s string) string { return strings.ToUpper(s[:1]) + s[1:] },
}).ParseFS(templateFS, "templates/status.html"))

var headerTemplate = template.Must(pageTemplate.ParseFS(site.Templates, "templates/header.html"))

// barClass is a day's class in the 90-day bar.
func barClass(d Day) string {
	share, ok := d.Share()
	switch {
	case !ok:
		return "none"
	case share == 1:
		return "full"
	case share >= 0.99:
		return "high"
	case share >= 0.95:
		return "low"
	}
	return "down"
}

func (rep *report) html() ([]byte, error) {
	type bar struct {
		Class, Title string
	}
	var bars []bar
	for i, d := range rep.Uptime.Days {
		title := d.Date.Format(time.DateOnly) + ": "
		if _, ok := d.Share(); ok {
			title += pctOf(rep.JSON.Uptime.Daily[i].Percent) + " up (" + strconv.Itoa(d.Down()) + " of " + strconv.Itoa(d.Minutes) + " minutes down)"
		} else {
			title += "no data"
		}
		bars = append(bars, bar{Class: barClass(d), Title: title})
	}
	var b bytes.Buffer
	err := headerTemplate.ExecuteTemplate(&b, "status.html", map[string]any{
		"R": rep, "J": rep.JSON, "Bars": bars, "Header": site.HeaderFor("status"),
		"CSS": site.AssetURL("site.css"), "Icon": site.AssetURL("favicon.svg"), "Version": rep.version,
	})
	return b.Bytes(), err
}

func pctOf(v *float64) string {
	if v == nil {
		return "no data"
	}
	return strconv.FormatFloat(*v, 'f', 3, 64) + "%"
}

// age is a duration in words: "3 h 20 min".
func age(seconds int64) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case d < time.Minute:
		return strconv.FormatInt(seconds, 10) + " s"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h " + strconv.Itoa(int(d%time.Hour/time.Minute)) + " min"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days"
}

// feed is the incidents' Atom feed: an entry per incident of the page,
// updated at its last update.
func (p *Page) feed(rep *report) *site.Feed {
	page := p.PublicURL + PagePath
	self := p.PublicURL + FeedPath
	f := &site.Feed{ID: self, Title: "cardcat API incidents", Author: site.Person{Name: "cardcat", URI: page},
		Links:   []site.Link{{Rel: "self", Type: "application/atom+xml", Href: self}, {Rel: "alternate", Type: "text/html", Href: page}},
		Updated: site.AtomTime(rep.started)}
	for i, in := range rep.Incidents {
		if i == 0 || in.UpdatedAt.After(time.Time(f.Updated)) {
			f.Updated = site.AtomTime(in.UpdatedAt)
		}
		var text strings.Builder
		for _, u := range in.Updates {
			text.WriteString(u.At.UTC().Format("2006-01-02 15:04 UTC") + ", " + string(u.State) + ": " + u.Message + "\n")
		}
		published := site.AtomTime(in.CreatedAt)
		anchor := page + "#incident-" + strconv.FormatInt(in.ID, 10)
		f.Entries = append(f.Entries, site.Entry{ID: anchor,
			Title:   "[" + string(in.State) + ", " + string(in.Impact) + "] " + in.Title,
			Updated: site.AtomTime(in.UpdatedAt), Published: &published,
			Links:   []site.Link{{Rel: "alternate", Type: "text/html", Href: anchor}},
			Content: site.Content{Type: "text", Body: text.String()}})
	}
	return f
}
