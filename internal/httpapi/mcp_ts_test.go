package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/catalog"
)

// tsOutput is what tools/mcp-ts-test/client.mjs prints.
type tsOutput struct {
	Error string `json:"error"`
	Tools []struct {
		Name        string         `json:"name"`
		InputSchema map[string]any `json:"inputSchema"`
	} `json:"tools"`
	Results []struct {
		IsError           bool            `json:"isError"`
		Text              string          `json:"text"`
		StructuredContent json.RawMessage `json:"structuredContent"`
		Meta              map[string]any  `json:"meta"`
	} `json:"results"`
}

type tsCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments"`
}

// TestMCPTypeScriptClient: the TypeScript SDK's client (npm
// @modelcontextprotocol/sdk, pinned by tools/mcp-ts-test/package-lock.json)
// against a live server: it lists the tools and gets the REST answers, the
// 403 of a paid tool, the 429 of an exhausted pool, and the 401 without a key.
func TestMCPTypeScriptClient(t *testing.T) {
	installed := os.Getenv("CARDCAT_TEST_MCP_TS")
	if installed == "" {
		t.Skip("CARDCAT_TEST_MCP_TS is not set: it names the directory where npm ci installed tools/mcp-ts-test " +
			"(cd tools/mcp-ts-test && npm ci, then CARDCAT_TEST_MCP_TS=$PWD); .ci/run sets it")
	}
	// The script runs from a copy beside the installed node_modules, so that
	// its imports resolve whichever directory npm ci ran in.
	dir := t.TempDir()
	for _, name := range []string{"client.mjs", "package.json"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "tools", "mcp-ts-test", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	modules, err := filepath.Abs(filepath.Join(installed, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(modules, "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("CARDCAT_TEST_MCP_TS=%s has no node_modules/@modelcontextprotocol/sdk: %v", installed, err)
	}
	if err := os.Symlink(modules, filepath.Join(dir, "node_modules")); err != nil {
		t.Fatal(err)
	}

	m := newMCPServer(t)
	run := func(headers map[string]string, calls ...tsCall) tsOutput {
		t.Helper()
		plan, _ := json.Marshal(map[string]any{"headers": headers, "calls": calls})
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "node", filepath.Join(dir, "client.mjs"), m.url+mcpPath, string(plan))
		var stderr strings.Builder
		cmd.Stderr = &stderr
		stdout, err := cmd.Output()
		if err != nil {
			t.Fatalf("node client.mjs: %v\n%s", err, stderr.String())
		}
		var out tsOutput
		if err := json.Unmarshal(stdout, &out); err != nil {
			t.Fatalf("node client.mjs printed %q: %v", stdout, err)
		}
		return out
	}

	goku := catalog.TCGCardID("dbs", 535600)
	resp, card := m.rest(t, "/dbs/cards/"+goku, keyB)
	before, _ := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining-Hour"))
	_, search := m.rest(t, "/dbs/search?limit=2&q=goku", keyB)
	out := run(map[string]string{"X-API-Key": keyB},
		tsCall{"get_card", map[string]any{"game": "dbs", "id": goku}},
		tsCall{"search_cards", map[string]any{"game": "dbs", "q": "goku", "limit": 2}})
	if out.Error != "" || len(out.Results) != 2 {
		t.Fatalf("Ultra key: %+v", out)
	}
	var names []string
	for _, tool := range out.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema["type"] != "object" {
			t.Errorf("%s: input schema %v", tool.Name, tool.InputSchema)
		}
	}
	slices.Sort(names)
	if want := []string{"completion_value", "get_card", "get_card_by_cardmarket_product", "get_card_by_tcgplayer_product", "get_cards",
		"get_set_cards", "list_sets", "price_history", "search_cards", "set_statistics", "top_cards", "trending_sets"}; !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	if r := out.Results[0]; r.IsError || r.Text != card || !jsonEqual(t, r.StructuredContent, []byte(card)) {
		t.Errorf("get_card: error %v\n%s\nwant GET /dbs/cards/%s's body\n%s", r.IsError, r.Text, goku, card)
	}
	if r := out.Results[1]; r.IsError || r.Text != search {
		t.Errorf("search_cards: error %v\n%.300s\nwant\n%.300s", r.IsError, r.Text, search)
	}
	resp, _ = m.rest(t, "/dbs/cards/"+goku, keyB)
	if after := resp.Header.Get("X-RateLimit-Remaining-Hour"); after != strconv.Itoa(before-4) {
		t.Errorf("remaining after a REST call, two tool calls and a REST call: %s, want %d (each tool call counted once, the protocol not)", after, before-4)
	}

	_, forbidden := m.rest(t, "/dbs/sets/trending", keyA1)
	out = run(map[string]string{"Authorization": "Bearer " + keyA1}, tsCall{"trending_sets", map[string]any{"game": "dbs"}})
	if out.Error != "" || len(out.Results) != 1 || !out.Results[0].IsError || out.Results[0].Text != forbidden {
		t.Errorf("trending_sets with a Free key (Bearer): %+v\nwant the route's 403\n%s", out, forbidden)
	}

	calls := slices.Repeat([]tsCall{{"list_sets", map[string]any{"game": "mtg"}}}, 4)
	out = run(map[string]string{"X-API-Key": keySmall}, calls...)
	resp, tooMany := m.rest(t, "/mtg/sets", keySmall)
	if out.Error != "" || len(out.Results) != 4 || out.Results[2].IsError || !out.Results[3].IsError || out.Results[3].Text != tooMany ||
		out.Results[3].Meta["cardcat/status"] != float64(429) {
		t.Errorf("four calls of 3 an hour: %+v\nwant the route's 429 (%d)\n%s", out, resp.StatusCode, tooMany)
	}

	out = run(nil)
	if !strings.Contains(out.Error, "401") && !strings.Contains(out.Error, "API key required") {
		t.Errorf("without a key: %+v, want the 401", out)
	}
	t.Logf("the TypeScript client without a key: %s", out.Error)
}
