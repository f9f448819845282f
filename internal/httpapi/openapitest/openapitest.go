// Package openapitest checks the API's answers against its OpenAPI document
// (GET /openapi.json), for the tests of httpapi (every golden file) and of
// cmd/cardcat (every answer of a real server). It is imported by tests only.
//
// The document is loaded and validated by kin-openapi, and each answer by
// its openapi3filter, which validates OpenAPI 3.1 schemas as JSON Schema
// 2020-12: status (an undocumented status fails), headers (a required header
// that is missing fails) and body. The operation of an answer is found from
// its request: the path matched against the document's paths (a literal
// segment before a template, {game} only for a game of its enum); an answer
// of no operation (an unknown path, a method other than GET) is checked
// against the document's shared responses for them.
package openapitest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// The text answers (the docs page, the guide as Markdown) are strings to
// their schema; kin-openapi decodes only text/plain so by itself.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/markdown", openapi3filter.PlainBodyDecoder)
	openapi3filter.RegisterBodyDecoder("text/csv", openapi3filter.PlainBodyDecoder)
}

// Load parses and validates an OpenAPI document.
func Load(data []byte) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("openapitest: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapitest: validate: %w", err)
	}
	return doc, nil
}

// rateLimitHeaders are the headers a server without a rate limiter does not send.
var rateLimitHeaders = []string{"X-RateLimit-Limit-Hour", "X-RateLimit-Remaining-Hour",
	"X-RateLimit-Limit-Day", "X-RateLimit-Remaining-Day"}

// Checker checks answers against one document.
type Checker struct {
	doc *openapi3.T
	// noLimiter is the same document with the X-RateLimit-* headers not
	// required, for the answers of a test server that has no rate limiter
	// (httpapi.Deps.Limiter nil turns them off); nil when not allowed.
	noLimiter *openapi3.T
}

// Option changes a Checker.
type Option func(*Checker, []byte) error

// AllowNoLimiter accepts an answer that carries none of the four
// X-RateLimit-* headers, as a server without a limiter sends them; an
// answer that has one of them must have all four. cardcat serve always has
// a limiter, so its answers are checked without this option.
func AllowNoLimiter() Option {
	return func(c *Checker, data []byte) error {
		doc, err := Load(data)
		if err != nil {
			return err
		}
		for _, name := range rateLimitHeaders {
			h := doc.Components.Headers[name]
			if h == nil || h.Value == nil {
				return fmt.Errorf("openapitest: the document has no header %s", name)
			}
			h.Value.Required = false
		}
		c.noLimiter = doc
		return nil
	}
}

// New loads the document data and returns its checker.
func New(data []byte, opts ...Option) (*Checker, error) {
	doc, err := Load(data)
	if err != nil {
		return nil, err
	}
	c := &Checker{doc: doc}
	for _, o := range opts {
		if err := o(c, data); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Doc is the loaded document.
func (c *Checker) Doc() *openapi3.T { return c.doc }

// Operation returns the operation that answers a GET of path, with its
// document path ("/{game}/sets/{set}"), or nil for a path no route serves.
func (c *Checker) Operation(path string) (*openapi3.Operation, string) {
	return findOperation(c.doc, path)
}

// Check validates the answer (status, header, body) to req.
func (c *Checker) Check(req *http.Request, status int, header http.Header, body []byte) error {
	doc := c.doc
	if c.noLimiter != nil && !slices.ContainsFunc(rateLimitHeaders, func(h string) bool { return header.Get(h) != "" }) {
		doc = c.noLimiter
	}
	if req.Method == http.MethodOptions && status == http.StatusNoContent {
		// A CORS preflight: no body, and no operation of the document.
		if len(body) != 0 {
			return fmt.Errorf("OPTIONS %s: a 204 with a body", req.URL)
		}
		return nil
	}
	op, path := findOperation(doc, req.URL.Path)
	switch {
	case req.Method != http.MethodGet:
		op, path = sharedOperation(doc, "MethodNotAllowed", http.StatusMethodNotAllowed), "(any path, any method but GET)"
	case op == nil:
		op, path = sharedOperation(doc, "EndpointNotFound", http.StatusNotFound), "(a path no route serves)"
	}
	what := req.Method + " " + req.URL.RequestURI() + " → " + path
	get := req.Clone(context.Background())
	get.Method = http.MethodGet // kin-openapi checks no answer of a HEAD
	route := &routers.Route{Spec: doc, Path: path, Method: http.MethodGet, Operation: op}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: get, Route: route},
		Status:                 status,
		Header:                 header,
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	input.SetBodyBytes(body)
	if status == http.StatusNotModified {
		// kin-openapi does not check a 304: its headers are checked here.
		return checkNotModified(what, op, header, body)
	}
	if err := openapi3filter.ValidateResponse(context.Background(), input); err != nil {
		return fmt.Errorf("%s: %d answer does not match the document: %w\nbody: %.600s", what, status, err, body)
	}
	return nil
}

func checkNotModified(what string, op *openapi3.Operation, header http.Header, body []byte) error {
	resp := op.Responses.Status(http.StatusNotModified)
	if resp == nil || resp.Value == nil {
		return fmt.Errorf("%s: a 304 the document does not give", what)
	}
	var errs []error
	for name, h := range resp.Value.Headers {
		if h.Value.Required && header.Get(name) == "" {
			errs = append(errs, fmt.Errorf("%s: 304 without its header %s", what, name))
		}
	}
	if len(body) != 0 {
		errs = append(errs, fmt.Errorf("%s: 304 with a body", what))
	}
	return errors.Join(errs...)
}

// sharedOperation is an operation whose answers are the document's shared
// response name (status), its 429 and its 500: the answers of a request that
// no operation serves.
func sharedOperation(doc *openapi3.T, name string, status int) *openapi3.Operation {
	responses := openapi3.NewResponses()
	for st, n := range map[int]string{status: name, http.StatusTooManyRequests: "TooManyRequests", http.StatusInternalServerError: "InternalError"} {
		responses.Set(fmt.Sprint(st), doc.Components.Responses[n])
	}
	return &openapi3.Operation{Responses: responses}
}

// findOperation matches a GET of path against the document's paths, as the
// server's mux does: one trailing slash ignored, a path with an empty, "."
// or ".." segment matching nothing, literal segments before templates.
func findOperation(doc *openapi3.T, path string) (*openapi3.Operation, string) {
	if len(path) > 1 && strings.HasSuffix(path, "/") {
		path = path[:len(path)-1]
	}
	segs := strings.Split(path, "/")[1:]
	if path == "/" {
		segs = nil
	}
	for _, seg := range segs {
		if seg == "" || seg == "." || seg == ".." {
			return nil, ""
		}
	}
	for _, p := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(p)
		if item.Get == nil || !matches(item.Get, p, segs) {
			continue
		}
		return item.Get, p
	}
	return nil, ""
}

func matches(op *openapi3.Operation, template string, segs []string) bool {
	tsegs := strings.Split(template, "/")[1:]
	if template == "/" {
		tsegs = nil
	}
	if len(tsegs) != len(segs) {
		return false
	}
	for i, t := range tsegs {
		name, isParam := strings.CutPrefix(t, "{")
		if !isParam {
			if t != segs[i] {
				return false
			}
			continue
		}
		name = strings.TrimSuffix(name, "}")
		if enum := pathEnum(op, name); enum != nil && !slices.Contains(enum, segs[i]) {
			return false
		}
	}
	return true
}

// pathEnum is the enum of the operation's path parameter name, if it has one.
func pathEnum(op *openapi3.Operation, name string) []string {
	for _, p := range op.Parameters {
		if p.Value == nil || p.Value.In != openapi3.ParameterInPath || p.Value.Name != name ||
			p.Value.Schema == nil || p.Value.Schema.Value == nil {
			continue
		}
		var enum []string
		for _, v := range p.Value.Schema.Value.Enum {
			if s, ok := v.(string); ok {
				enum = append(enum, s)
			}
		}
		return enum
	}
	return nil
}

// Transport is an http.RoundTripper that checks every answer it carries
// against a document, reporting a mismatch to report (t.Errorf in a test).
// The body is read whole and given back unread.
type Transport struct {
	Checker *Checker
	Base    http.RoundTripper // http.DefaultTransport when nil
	Report  func(error)
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	if err := t.Checker.Check(req, resp.StatusCode, resp.Header, body); err != nil {
		t.Report(err)
	}
	return resp, nil
}
