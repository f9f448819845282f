package web

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestFieldNames(t *testing.T) {
	for f, name := range fieldNames {
		if name != http.CanonicalHeaderKey(name) {
			t.Errorf("field %d: %q is not canonical (%q)", f, name, http.CanonicalHeaderKey(name))
		}
		if f > 0 && strings.Compare(fieldNames[f-1], name) >= 0 {
			t.Errorf("fields %q and %q are not in net/http's order", fieldNames[f-1], name)
		}
		if got, ok := FieldOf(name); !ok || got != Field(f) {
			t.Errorf("FieldOf(%q) = %v, %v", name, got, ok)
		}
	}
	if _, ok := FieldOf("Content-Disposition"); ok {
		t.Error("FieldOf knows a field it has no slot for")
	}
}

// TestFieldsInMap: once the header is asked for as a map, the fields set
// so far are in it and every later SetField and DelField goes through it.
func TestFieldsInMap(t *testing.T) {
	for _, via := range []string{"Header", "Unwrap"} {
		t.Run(via, func(t *testing.T) {
			w := newRecorder()
			rec := &Response{}
			rec.Reset(w, nil, nil)
			SetField(rec, FieldCacheControl, []string{"no-store"})
			SetField(rec, FieldEtag, []string{`"a"`})
			if got := rec.fields.vals[FieldEtag]; len(got) != 1 || got[0] != `"a"` {
				t.Fatalf("the slot before the map = %q", got)
			}
			if len(w.header) != 0 {
				t.Fatalf("fields reached the map before it was asked for: %v", w.header)
			}
			if via == "Header" {
				rec.Header()
			} else {
				rec.Unwrap()
			}
			if w.header.Get("Cache-Control") != "no-store" || w.header.Get("Etag") != `"a"` {
				t.Fatalf("map after %s: %v", via, w.header)
			}
			SetField(rec, FieldVary, []string{"Accept-Encoding"})
			DelField(rec, FieldEtag)
			if w.header.Get("Vary") != "Accept-Encoding" || w.header["Etag"] != nil || rec.fields.vals[FieldVary] != nil {
				t.Fatalf("map after SetField and DelField: %v", w.header)
			}
		})
	}
}

// TestFieldsWithoutSplice: answers on a writer that is not a
// OneWriteListener's connection (tests' recorders, the portal) carry their
// fields in the map, suppressed ones included, as net/http has them.
func TestFieldsWithoutSplice(t *testing.T) {
	w := newRecorder()
	rec := &Response{}
	rec.Reset(w, nil, nil)
	SetField(rec, FieldXRequestID, []string{"id-1"})
	SendBody(rec, jsonType, []byte(`{}`))
	if w.header.Get("X-Request-Id") != "id-1" || w.header.Get("Content-Type") != jsonType[0] || w.status != http.StatusOK {
		t.Fatalf("status %d, header %v", w.status, w.header)
	}
}

var jsonType = []string{"application/json; charset=utf-8"}

// TestSpliceSameBytes: an answer whose fields are spliced into net/http's
// header (SetField, on a OneWriteListener's connection) is the same bytes
// on the wire as the answer with the same fields in net/http's map, for
// every kind of answer the API sends: small and large bodies, bodies sent
// whole or written in parts, HEAD, 304, 204, errors, values net/http
// cleans, bodies net/http sniffs a type for, HTTP/1.0 and closing
// connections, requests with a body (not spliced).
func TestSpliceSameBytes(t *testing.T) {
	large := bytes.Repeat([]byte("0123456789abcdef"), 700) // 11.2 kB: past net/http's buffers
	answers := map[string]func(w http.ResponseWriter){
		"small": func(w http.ResponseWriter) { SendBody(w, jsonType, []byte(`{"a":1}`)) },
		"large": func(w http.ResponseWriter) { SendBody(w, jsonType, large) },
		"parts": func(w http.ResponseWriter) { SendParts(w, jsonType, large[:300], large[300:9000], large[9000:]) },
		"not-modified": func(w http.ResponseWriter) {
			DelField(w, FieldContentType)
			w.WriteHeader(http.StatusNotModified)
		},
		"not-modified-typed": func(w http.ResponseWriter) { // net/http drops both
			SetField(w, FieldContentType, jsonType)
			SetContentLength(w, 5000)
			w.WriteHeader(http.StatusNotModified)
		},
		"no-content": func(w http.ResponseWriter) {
			SetField(w, FieldContentLength, []string{"0"})
			w.WriteHeader(http.StatusNoContent)
		},
		"unauthorized": func(w http.ResponseWriter) {
			SetField(w, FieldWWWAuthenticate, []string{`Bearer realm="cardcat"`})
			SetField(w, FieldContentType, jsonType)
			w.WriteHeader(http.StatusUnauthorized)
			w.Write([]byte(`{"error":"unauthorized"}`))
		},
		"unclean": func(w http.ResponseWriter) {
			SetField(w, FieldRetryAfter, []string{" 30\r\n", "\t", "a\rb\nc", ""})
			SetField(w, FieldVary, []string{"Accept-Encoding", "Origin"})
			SendBody(w, jsonType, []byte("{}"))
		},
		"sniffed": func(w http.ResponseWriter) { w.Write([]byte("<html><body>hi</body></html>")) },
		"after": func(w http.ResponseWriter) {
			SendBody(w, jsonType, []byte("{}"))
			SetField(w, FieldEtag, []string{`"late"`}) // after the header: on neither
		},
	}
	var mu sync.Mutex
	var mapLens []int // net/http's map size after each spliced answer to a request without a body
	server := func(splice bool) string {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return serveResponses(t, OneWriteListener(ln), func(rec *Response, r *http.Request) {
			if !splice {
				rec.Header() // every field in the map, as before splicing
			}
			SetField(rec, FieldXRequestID, []string{"id-7"})
			SetField(rec, FieldCacheControl, []string{"private, max-age=30"})
			SetField(rec, FieldXRatelimitRemainingHour, []string{"99"})
			SetField(rec, FieldAccessControlAllowOrigin, []string{"*"})
			answers[strings.TrimPrefix(r.URL.Path, "/")](rec)
			if splice && r.ContentLength == 0 {
				mu.Lock()
				mapLens = append(mapLens, len(rec.ResponseWriter.Header()))
				mu.Unlock()
			}
		})
	}
	spliced, mapped := server(true), server(false)
	date := regexp.MustCompile(`(?m)^Date: [^\r]*\r$`)
	for name := range answers {
		for _, how := range []struct {
			name, method, proto, extra string
			body                       string
		}{
			{"GET", "GET", "HTTP/1.1", "", ""},
			{"HEAD", "HEAD", "HTTP/1.1", "", ""},
			{"HTTP/1.0", "GET", "HTTP/1.0", "", ""},
			{"HTTP/1.0 keep-alive", "GET", "HTTP/1.0", "Connection: keep-alive\r\n", ""},
			{"close", "GET", "HTTP/1.1", "Connection: close\r\n", ""},
			{"with a body", "POST", "HTTP/1.1", "", "x=1"},
		} {
			t.Run(name+"/"+how.name, func(t *testing.T) {
				req := how.method + " /" + name + " " + how.proto + "\r\nHost: x\r\n" + how.extra
				if how.body != "" {
					req += "Content-Length: " + strconv.Itoa(len(how.body)) + "\r\n"
				}
				req += "\r\n" + how.body
				// Twice on one connection (where it stays open): the second
				// answer's splice must not see the first's.
				a, b := exchange(t, spliced, req), exchange(t, mapped, req)
				for _, d := range date.FindAll(a, -1) { // the second's line (dateLine), not net/http's
					at, err := http.ParseTime(strings.TrimSpace(strings.TrimPrefix(string(d), "Date:")))
					if err != nil || time.Since(at) > 5*time.Second || time.Until(at) > time.Second {
						t.Errorf("spliced answer's %q: %v, %v from now", d, err, time.Since(at))
					}
				}
				a, b = date.ReplaceAll(a, []byte("Date: -\r")), date.ReplaceAll(b, []byte("Date: -\r"))
				if !bytes.Equal(a, b) {
					t.Errorf("spliced answer differs from the map's:\n%s\n---\n%s", clip(a), clip(b))
				}
				if !bytes.Contains(a, []byte("X-Request-Id: id-7\r\n")) {
					t.Errorf("answer without its fields:\n%s", clip(a))
				}
			})
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, n := range mapLens {
		if n > 3 { // Content-Type, Content-Length and Date (no values) at most: the rest was spliced
			t.Fatalf("net/http's map held %d fields after a spliced answer: %v", n, mapLens)
		}
	}
	if len(mapLens) == 0 {
		t.Fatal("no answer was spliced")
	}
}

// exchange sends req twice on one connection (once if the first answer
// closes it) and returns the bytes that came back, as they came.
func exchange(t *testing.T, addr, req string) []byte {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var raw bytes.Buffer // the next request is sent once an answer is read whole: nothing read ahead
	br := bufio.NewReader(io.TeeReader(conn, &raw))
	for range 2 {
		if _, err := io.WriteString(conn, req); err != nil {
			break
		}
		resp, err := http.ReadResponse(br, &http.Request{Method: strings.Fields(req)[0]})
		if err != nil {
			break // closed after the first answer
		}
		io.Copy(io.Discard, resp.Body)
		if resp.Close {
			break
		}
	}
	return raw.Bytes()
}

func clip(b []byte) []byte { return b[:min(len(b), 1500)] }

// TestSpliceNeedsWholeHeader: a first write that is not a whole header
// (which net/http never makes) fails and closes the connection rather than
// send an answer without its fields.
func TestSpliceNeedsWholeHeader(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err == nil {
			io.Copy(io.Discard, c)
			c.Close()
		}
	}()
	c, err := OneWriteListener(ln).Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	oc := c.(*oneWriteConn)
	oc.spliceHeader([]byte("X-Request-Id: 1\r\n"), nil, false)
	if _, err := oc.Write([]byte("HTTP/1.1 200 OK\r\nContent-Len")); !errors.Is(err, errHeaderNotWhole) {
		t.Fatalf("cut header: %v", err)
	}
	if _, err := oc.Write([]byte("more")); err == nil {
		t.Fatal("the connection is still open")
	}
}

// recorder is the smallest ResponseWriter, for tests that look at the map.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder { return &recorder{header: http.Header{}} }

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(b)
}

// BenchmarkHeaderFields: the header of a card detail (its fourteen fields
// besides Date and Content-Length) as net/http makes it from its map (the
// map filled, cloned at WriteHeader, written sorted) against the same
// fields in a Response's slots made into lines, with the one field
// net/http's map still gets (Content-Type, no values) and its clone.
func BenchmarkHeaderFields(b *testing.B) {
	set := []struct {
		f Field
		v []string
	}{
		{FieldXRequestID, []string{"76e70204-68"}},
		{FieldXContentTypeOptions, []string{"nosniff"}},
		{FieldAccessControlAllowOrigin, []string{"*"}},
		{FieldAccessControlExposeHeaders, []string{"X-RateLimit-Limit-Hour, X-RateLimit-Remaining-Hour, X-RateLimit-Limit-Day, X-RateLimit-Remaining-Day, Retry-After, ETag, X-Request-Id, Content-Encoding, Vary, Content-Disposition, Last-Modified, Accept-Ranges, Content-Range, X-Image-Size, WWW-Authenticate, Allow, Deprecation, Sunset, Link"}},
		{FieldXRatelimitLimitHour, []string{"1000"}},
		{FieldXRatelimitRemainingHour, []string{"998"}},
		{FieldXRatelimitLimitDay, []string{"10000"}},
		{FieldXRatelimitRemainingDay, []string{"9998"}},
		{FieldCacheControl, []string{"private, max-age=30"}},
		{FieldVary, []string{"Accept-Encoding"}},
		{FieldEtag, []string{`"a5f548db9ca008e4"`}},
		{FieldContentType, jsonType},
	}
	bw := bufio.NewWriterSize(io.Discard, 4096)
	var sink http.Header
	b.Run("map", func(b *testing.B) {
		for b.Loop() {
			h := make(http.Header)
			for _, s := range set {
				h[fieldNames[s.f]] = s.v
			}
			sink = h.Clone()
			sink.Write(bw)
			bw.Flush()
		}
	})
	b.Run("spliced", func(b *testing.B) {
		var fs fields
		var lines []byte
		for b.Loop() {
			for _, s := range set {
				fs.vals[s.f] = s.v
			}
			lines = fs.appendLines(lines[:0], http.StatusOK)
			fs.vals = [numFields][]string{}
			h := make(http.Header)
			h["Content-Type"] = nil
			sink = h.Clone()
			sink.Write(bw)
			bw.Write(lines)
			bw.Flush()
		}
	})
}
