package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/cardcat/cardcat"
	"github.com/cardcat/cardcat/internal/alerts"
	"github.com/cardcat/cardcat/internal/alertsapi"
)

// TestParamExamples: the reference's "Test Request" starts with the
// examples the document gives the path and required query parameters
// (apiref's paramExamples): on the bundled sample, every operation asked
// with them answers 200 (images aside: their source is not reachable here;
// the bulk file: built in the background).
func TestParamExamples(t *testing.T) {
	c := mustMirror(t, sampleDir)
	snap := mustView(t, c)
	deps := paidDeps(snap)
	deps.Changes, _, _ = changeStore(t, c)
	deps.History = sampleHistory(t, c)
	deps.Docs = cardcat.Docs()
	deps.Alerts = &alertsapi.Handler{Store: noAlerts{}}
	h := mustServer(t, Config{}, deps)
	var doc struct {
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Parameters  []json.RawMessage
		}
		Components struct {
			Parameters map[string]struct {
				Name    string
				In      string
				Example any
			}
		}
	}
	if err := json.Unmarshal(get(h, "/openapi.json").Body.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	asked := 0
	for path, ops := range doc.Paths {
		op, ok := ops["get"]
		if !ok || strings.Contains(path, "/images/") || strings.HasSuffix(path, "/image") || strings.HasSuffix(path, "/bulk/{name}") {
			continue
		}
		target, query := path, url.Values{}
		for _, raw := range op.Parameters {
			var p struct {
				Ref      string `json:"$ref"`
				Name, In string
				Required bool
				Example  any
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				t.Fatal(err)
			}
			if p.Ref != "" {
				shared := doc.Components.Parameters[strings.TrimPrefix(p.Ref, "#/components/parameters/")]
				p.Name, p.In, p.Example, p.Required = shared.Name, shared.In, shared.Example, shared.In == "path"
			}
			if p.In == "header" || !p.Required && p.In != "path" {
				continue
			}
			if p.Example == nil {
				t.Errorf("%s: parameter %s has no example", op.OperationID, p.Name)
				continue
			}
			v := fmt.Sprint(p.Example)
			if p.In == "path" {
				target = strings.Replace(target, "{"+p.Name+"}", url.PathEscape(v), 1)
			} else {
				query.Set(p.Name, v)
			}
		}
		if len(query) > 0 {
			target += "?" + query.Encode()
		}
		w := get(h, target, "X-API-Key", keyUltra)
		if w.Code != http.StatusOK {
			t.Errorf("%s %s: %d %s", op.OperationID, target, w.Code, w.Body)
		}
		asked++
	}
	if asked < 20 {
		t.Errorf("%d operations asked", asked)
	}
}

// noAlerts is an alerts store of accounts without alerts (GET /alerts'
// own tests are internal/alertsapi's).
type noAlerts struct{}

func (noAlerts) Alerts(context.Context, int64) ([]alerts.Alert, error) { return nil, nil }
