package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cardcat/cardcat/internal/bulk"
	"github.com/cardcat/cardcat/internal/catalog"
	"github.com/cardcat/cardcat/internal/serving"
)

// mustBulk builds the bulk files of v in a temporary directory.
func mustBulk(tb testing.TB, v *serving.View) *bulk.Builder {
	tb.Helper()
	b := bulk.New(tb.TempDir(), nil)
	tb.Cleanup(b.Close)
	b.Publish(v.Snapshot)
	b.Wait()
	return b
}

// bulkHandler is the API on the fixture catalogue with its bulk files built.
func bulkHandler(tb testing.TB) (http.Handler, *serving.View, *bulk.Builder) {
	tb.Helper()
	v := mustView(tb, mustFixture(tb))
	b := mustBulk(tb, v)
	deps := testDeps(v)
	deps.Bulk = b
	return mustServer(tb, Config{}, deps), v, b
}

// halfBuilt has the cards file of every game built and not yet the prices.
type halfBuilt struct{ *bulk.Builder }

func (h halfBuilt) Ready(game string, version int64) []bulk.File {
	return h.Builder.Ready(game, version)[:1]
}

func (h halfBuilt) Open(game string, version int64, name string) (*os.File, bulk.File, error) {
	if name == bulk.PricesFile {
		return nil, bulk.File{}, bulk.ErrNotBuilt
	}
	return h.Builder.Open(game, version, name)
}

func TestBulkGolden(t *testing.T) {
	h, v, b := bulkHandler(t)
	runGolden(t, h, []goldenCase{
		{"bulk_dbs", "/dbs/bulk", 200, nil},
		{"bulk_unknown_file", "/dbs/bulk/cards.json", 404, nil},
		{"bulk_range_not_satisfiable", "/dbs/bulk/cards.jsonl.gz", 416, []string{"Range", "bytes=99999999-"}},
	})

	building := testDeps(v)
	building.Bulk = halfBuilt{b}
	runGolden(t, mustServer(t, Config{}, building), []goldenCase{
		{"bulk_building", "/dbs/bulk", 200, nil},
		{"bulk_file_building", "/dbs/bulk/prices.csv.gz", 503, nil},
	})
	none := testDeps(v)
	runGolden(t, mustServer(t, Config{}, none), []goldenCase{
		{"bulk_none", "/mtg/bulk", 200, nil},
	})
	loading := testDeps(nil)
	loading.View = func() *serving.View { return nil }
	loading.Bulk = b
	runGolden(t, mustServer(t, Config{}, loading), []goldenCase{
		{"bulk_loading", "/dbs/bulk/cards.jsonl.gz", 503, nil},
	})
}

// TestBulkDownload: each listed file downloads as its bytes, whose sha256
// and size are listed, and cards.jsonl.gz holds every card detail body as
// GET /{game}/cards/{id} answers it.
func TestBulkDownload(t *testing.T) {
	h, v, _ := bulkHandler(t)
	for _, gs := range v.Games() {
		code := gs.Game().Code
		w := get(h, prefix(code)+"/bulk")
		checkAnswer(t, requestOfRecorder(t, w), w)
		var raw struct {
			UpdatedAt string           `json:"updated_at"`
			Files     []map[string]any `json:"files"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		if len(raw.Files) != 2 {
			t.Fatalf("%s: %d files listed, want 2", code, len(raw.Files))
		}
		for _, f := range raw.Files {
			url := f["url"].(string)
			path := strings.TrimPrefix(url, "https://api.cardcat.test")
			d := get(h, path)
			checkAnswer(t, requestOfRecorder(t, d), d)
			if d.Code != http.StatusOK {
				t.Fatalf("GET %s: %d %s", path, d.Code, d.Body)
			}
			hdr := map[string]string{}
			for _, k := range []string{"Content-Type", "Content-Encoding", "ETag", "Content-Length", "Accept-Ranges"} {
				hdr[k] = d.Header().Get(k)
			}
			want := map[string]string{"Content-Type": "application/gzip", "Content-Encoding": "", "ETag": `"` + f["sha256"].(string) + `"`,
				"Content-Length": strconv.Itoa(int(f["size"].(float64))), "Accept-Ranges": "bytes"}
			if diff := cmp.Diff(want, hdr); diff != "" {
				t.Errorf("GET %s headers (-want +got):\n%s", path, diff)
			}
			if f["name"] != bulk.CardsFile {
				continue
			}
			zr, err := gzip.NewReader(bytes.NewReader(d.Body.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			data, _ := io.ReadAll(zr)
			lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			if len(data) == 0 {
				lines = nil // a game without cards in the fixture
			}
			if len(lines) != gs.Len() {
				t.Fatalf("%s: %d lines, %d cards", code, len(lines), gs.Len())
			}
			for r, line := range lines {
				var card struct{ ID string }
				json.Unmarshal([]byte(line), &card)
				if detail := get(h, prefix(code)+"/cards/"+card.ID); detail.Body.String() != line {
					t.Errorf("%s line %d (%s) is not the card detail body", code, r, card.ID)
				}
				if line != gs.CardJSON(catalog.CardRef(r)) {
					t.Errorf("%s line %d is not card %d", code, r, r)
				}
			}
		}
	}
}

// TestBulkConditional: If-None-Match, Range and If-Range on a download.
func TestBulkConditional(t *testing.T) {
	h, v, b := bulkHandler(t)
	f, meta, err := b.Open("dbs", v.Version, bulk.PricesFile)
	if err != nil {
		t.Fatal(err)
	}
	whole, _ := io.ReadAll(f)
	f.Close()
	etag := `"` + meta.SHA256 + `"`
	size := strconv.Itoa(len(whole))
	path := "/dbs/bulk/" + bulk.PricesFile
	tests := []struct {
		name         string
		headers      []string
		status       int
		body         []byte
		contentRange string
	}{
		{"whole", nil, 200, whole, ""},
		{"If-None-Match matches", []string{"If-None-Match", etag}, 304, nil, ""},
		{"If-None-Match of another file", []string{"If-None-Match", `"0000"`}, 200, whole, ""},
		{"range", []string{"Range", "bytes=10-19"}, 206, whole[10:20], "bytes 10-19/" + size},
		{"resume to the end", []string{"Range", "bytes=100-"}, 206, whole[100:], "bytes 100-" + strconv.Itoa(len(whole)-1) + "/" + size},
		{"If-Range of this file", []string{"Range", "bytes=100-", "If-Range", etag}, 206, whole[100:], "bytes 100-" + strconv.Itoa(len(whole)-1) + "/" + size},
		{"If-Range of an older file: the whole file", []string{"Range", "bytes=100-", "If-Range", `"0000"`}, 200, whole, ""},
		{"range past the end", []string{"Range", "bytes=" + size + "-"}, 416, nil, "bytes */" + size},
		// One range only: several are answered the whole file, once, so that
		// overlapping ranges cannot make one request answer many copies of it.
		{"two ranges: the whole file", []string{"Range", "bytes=0-9,20-29"}, 200, whole, ""},
		// As many one-byte ranges as the file has bytes less one: net/http's
		// own check (the ranges sum over the file's size) lets them through,
		// and a multipart answer would be many times the file.
		{"overlapping ranges: the whole file", []string{"Range", "bytes=" + strings.Repeat("0-0,", len(whole)-2) + "0-0"}, 200, whole, ""},
		{"several ranges past the end: the whole file", []string{"Range", "bytes=" + size + "-," + size + "-"}, 200, whole, ""},
		{"one range and an empty one", []string{"Range", "bytes=10-19, "}, 206, whole[10:20], "bytes 10-19/" + size},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			w := get(h, path, tc.headers...)
			checkAnswer(t, requestOfRecorder(t, w), w)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if tc.status == 416 {
				if ct := w.Header().Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
					t.Errorf("416 Content-Type %q, want JSON", ct)
				}
			} else if !bytes.Equal(w.Body.Bytes(), tc.body) {
				t.Errorf("body: %d bytes, want %d", w.Body.Len(), len(tc.body))
			}
			if got := w.Header().Get("Content-Range"); got != tc.contentRange {
				t.Errorf("Content-Range %q, want %q", got, tc.contentRange)
			}
			if got := w.Header().Get("ETag"); tc.status != 416 && got != etag {
				t.Errorf("ETag %q, want %q", got, etag)
			}
		})
	}
}

// TestBulkNewVersion: after a new version is served and built, the listing
// and the downloads are the new version's.
func TestBulkNewVersion(t *testing.T) {
	c := mustFixture(t)
	v1 := mustView(t, c)
	b := mustBulk(t, v1)
	c2 := mustFixture(t)
	c2.Version = v1.Version + 1
	c2.CreatedAt = v1.CreatedAt.Add(24 * time.Hour)
	c2.Games[0].Cards = c2.Games[0].Cards[1:] // a card fewer
	v2 := mustView(t, c2)
	current := v1
	deps := testDeps(v1)
	deps.View = func() *serving.View { return current }
	deps.Bulk = b
	h := mustServer(t, Config{}, deps)
	before := get(h, "/"+c.Games[0].Game+"/bulk").Body.String()

	current = v2
	b.Publish(v2.Snapshot)
	b.Wait()
	after := get(h, "/"+c.Games[0].Game+"/bulk").Body.String()
	if before == after {
		t.Fatalf("the listing did not change with the version: %s", after)
	}
	if !strings.Contains(after, c2.CreatedAt.UTC().Format("2006-01-02T15:04:05Z")) {
		t.Errorf("updated_at is not the new version's time: %s", after)
	}
	if got := b.Ready(c.Games[0].Game, v1.Version); len(got) != 0 {
		t.Errorf("version 1's files still listed: %v", got)
	}
}

// TestBulkCounted: a download is one request, counted once however large
// the file; a resumed download (a Range request) is a request of its own
// and counts once more; the listing counts like any keyed answer.
func TestBulkCounted(t *testing.T) {
	var b *bulk.Builder
	l := newLimited(t, Config{}, func(d *Deps) {
		v := d.View()
		b = mustBulk(t, v)
		d.Bulk = b
	})
	steps := []struct {
		target  string
		headers []string
		status  int
		used    int64
	}{
		{"/dbs/bulk", nil, 200, 1},
		{"/dbs/bulk/cards.jsonl.gz", nil, 200, 2},
		{"/dbs/bulk/cards.jsonl.gz", []string{"Range", "bytes=100-"}, 206, 3},
		{"/dbs/bulk/prices.csv.gz", nil, 200, 4},
	}
	for _, st := range steps {
		w := l.req(http.MethodGet, st.target, append([]string{"X-API-Key", keyA1}, st.headers...)...)
		if w.Code != st.status {
			t.Fatalf("GET %s %v: %d, want %d", st.target, st.headers, w.Code, st.status)
		}
		if h, _ := l.usedBy(t, "acct:1"); h != st.used {
			t.Errorf("after GET %s %v: %d counted, want %d", st.target, st.headers, h, st.used)
		}
	}
}

// TestBulkRevalidation: a download's 304 is not counted and is answered on
// an exhausted pool; a download with a stale If-None-Match on an exhausted
// pool is the 429, with no byte of the file.
func TestBulkRevalidation(t *testing.T) {
	var b *bulk.Builder
	var version int64
	l := newLimited(t, Config{}, func(d *Deps) {
		v := d.View()
		version = v.Version
		b = mustBulk(t, v)
		d.Bulk = b
	})
	_, meta, err := b.Open("dbs", version, bulk.CardsFile)
	if err != nil {
		t.Fatal(err)
	}
	etag := `"` + meta.SHA256 + `"`
	path := "/dbs/bulk/" + bulk.CardsFile
	for range 3 { // keySmall's pool: 3 an hour
		if w := l.req(http.MethodGet, path, "X-API-Key", keySmall); w.Code != http.StatusOK {
			t.Fatalf("download: %d", w.Code)
		}
	}
	if w := l.req(http.MethodGet, path, "X-API-Key", keySmall, "If-None-Match", etag); w.Code != http.StatusNotModified || w.Body.Len() != 0 {
		t.Errorf("revalidation on an exhausted pool: %d, %d bytes", w.Code, w.Body.Len())
	}
	w := l.req(http.MethodGet, path, "X-API-Key", keySmall, "If-None-Match", `"stale"`)
	if w.Code != http.StatusTooManyRequests || bytes.Contains(w.Body.Bytes(), []byte{0x1f, 0x8b}) {
		t.Errorf("stale If-None-Match on an exhausted pool: %d %q", w.Code, w.Body.Bytes())
	}
	if h, _ := l.usedBy(t, "acct:3"); h != 3 {
		t.Errorf("%d counted, want 3", h)
	}
}

// bigBulk serves one cards file of random bytes, larger than what the
// socket buffers of a test connection hold, so that a client that stops
// reading blocks the server's writes.
type bigBulk struct {
	path string
	file bulk.File
}

func newBigBulk(tb testing.TB, size int) *bigBulk {
	tb.Helper()
	data := make([]byte, size)
	rand.Read(data)
	path := filepath.Join(tb.TempDir(), bulk.CardsFile)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return &bigBulk{path: path, file: bulk.File{Name: bulk.CardsFile, Size: int64(size), SHA256: hex.EncodeToString(sum[:])}}
}

func (b *bigBulk) Ready(string, int64) []bulk.File { return []bulk.File{b.file} }

func (b *bigBulk) Open(_ string, _ int64, name string) (*os.File, bulk.File, error) {
	if name != b.file.Name {
		return nil, bulk.File{}, bulk.ErrNotBuilt
	}
	f, err := os.Open(b.path)
	return f, b.file, err
}

// smallBuffers is a listener whose connections have a small send buffer.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetWriteBuffer(64 << 10)
	}
	return c, err
}

// TestBulkWriteDeadline: a download is not bounded as a whole but by its
// progress: a client that reads slowly but steadily gets the whole file
// however long it takes; one that stops reading is cut once the server has
// waited Config.BulkStallTimeout for it to take more. Over a real server
// with small socket buffers, so that the server's writes wait for the
// client's reads.
func TestBulkWriteDeadline(t *testing.T) {
	const stall = 300 * time.Millisecond
	big := newBigBulk(t, 2<<20)
	deps := testDeps(mustView(t, mustFixture(t)))
	deps.Bulk = big
	srv := httptest.NewUnstartedServer(mustServer(t, Config{BulkStallTimeout: stall}, deps))
	srv.Listener = smallBuffers{srv.Listener}
	srv.Start()
	t.Cleanup(srv.Close)
	client := &http.Client{Transport: &http.Transport{
		DisableCompression: true,
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetReadBuffer(64 << 10)
			}
			return c, err
		},
	}}
	t.Cleanup(client.CloseIdleConnections)
	download := func(t *testing.T) *http.Response {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/dbs/bulk/"+bulk.CardsFile, nil)
		req.Header.Set("X-API-Key", testKey)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return resp
	}

	t.Run("slow but steady: the whole file", func(t *testing.T) {
		resp := download(t)
		start := time.Now()
		h := sha256.New()
		buf := make([]byte, 16<<10)
		var n int64
		for {
			m, err := resp.Body.Read(buf)
			h.Write(buf[:m])
			n += int64(m)
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("after %d of %d bytes in %v: %v", n, big.file.Size, time.Since(start), err)
			}
			time.Sleep(10 * time.Millisecond)
		}
		took := time.Since(start)
		if n != big.file.Size || hex.EncodeToString(h.Sum(nil)) != big.file.SHA256 {
			t.Errorf("%d bytes of sha256 %x, want the file's %d bytes", n, h.Sum(nil), big.file.Size)
		}
		if took < 3*stall {
			t.Errorf("the download took %v, under 3 stall timeouts (%v): read slower, or the test proves nothing", took, 3*stall)
		}
	})
	t.Run("stalled: cut", func(t *testing.T) {
		resp := download(t)
		if _, err := io.ReadFull(resp.Body, make([]byte, 64<<10)); err != nil {
			t.Fatal(err)
		}
		time.Sleep(4 * stall)
		rest, err := io.Copy(io.Discard, resp.Body)
		if err == nil || 64<<10+rest >= big.file.Size {
			t.Errorf("after a pause of 4 stall timeouts the client read %d more bytes (%v), want the download cut before the file's %d",
				rest, err, big.file.Size)
		}
	})
}
