package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/cardcat/cardcat/internal/serving"
)

// readFootprint reads where serve's memory is from its admin listener's
// /debug/footprint (serving.FootprintOf); nil with a reason when this
// cardcat has none (a build before it).
func readFootprint(ctx context.Context, admin string) (*serving.Footprint, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+admin+"/debug/footprint", nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /debug/footprint: %s", resp.Status)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var f serving.Footprint
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("GET /debug/footprint: %w", err)
	}
	return &f, nil
}

// footprintSection writes where the bytes are, per product, after start and
// after the load runs: the snapshot's parts (in the mapped artifact or on
// the heap, and how much of the mapped bytes are resident), then VmRSS
// split into the artifact's resident pages, the itemised heap parts, the
// rest of the heap (compressed variants, prices-by-set bodies, accounts,
// buffers, garbage not yet collected) and the runtime's own.
func footprintSection(p func(string, ...any), idle, loaded *serving.Footprint, rssIdle, rssLoaded int64) {
	if idle == nil || loaded == nil {
		return
	}
	products := float64(max(1, loaded.Products))
	per := func(v int64) string { return thousands(float64(v) / products) }
	p("#### Where the bytes are (`/debug/footprint`), bytes per product\n\n")
	p("| part | size | of it mapped | resident after start | resident after the load runs |\n|---|---|---|---|---|\n")
	var heapIdle, heapLoaded, resIdle, resLoaded int64
	for i, lp := range loaded.Parts {
		var ip serving.FootprintPart
		if i < len(idle.Parts) && idle.Parts[i].Name == lp.Name {
			ip = idle.Parts[i]
		}
		heapIdle += ip.Bytes - ip.Mapped
		heapLoaded += lp.Bytes - lp.Mapped
		resIdle += max(ip.Resident, 0)
		resLoaded += max(lp.Resident, 0)
		p("| %s | %s | %s | %s | %s |\n", lp.Name, per(lp.Bytes), per(lp.Mapped),
			per(max(ip.Resident, 0)+ip.Bytes-ip.Mapped), per(max(lp.Resident, 0)+lp.Bytes-lp.Mapped))
	}
	row := func(name string, a, b int64) { p("| %s | | | %s | %s |\n", name, per(a), per(b)) }
	row("**VmRSS**", rssIdle, rssLoaded)
	row("of it: the artifact's resident pages of the parts above", resIdle, resLoaded)
	row("of it: the artifact's other resident pages (the paid answers' sections, the snapshot's small tables)",
		max(idle.Artifact.Resident, 0)-resIdle, max(loaded.Artifact.Resident, 0)-resLoaded)
	row("of it: file pages of anything else (the binary)", idle.Process.RssFile-max(idle.Artifact.Resident, 0),
		loaded.Process.RssFile-max(loaded.Artifact.Resident, 0))
	row("of it: anonymous (RssAnon)", idle.Process.RssAnon, loaded.Process.RssAnon)
	row("of RssAnon: the compressed answers kept (an arena outside the heap)", idle.Compressed, loaded.Compressed)
	row("of RssAnon: the heap parts above", heapIdle, heapLoaded)
	row("of RssAnon: the rest of the heap in use (compressed pages, prices-by-set bodies, accounts, buffers, garbage)",
		idle.Process.HeapInuse-heapIdle, loaded.Process.HeapInuse-heapLoaded)
	row("of RssAnon: heap kept free, not yet returned", idle.Process.HeapFree, loaded.Process.HeapFree)
	row("of RssAnon: the runtime's (stacks, spans, GC metadata)", idle.Process.RuntimeOther, loaded.Process.RuntimeOther)
	p("\n")
}
