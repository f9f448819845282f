package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/game"
)

// Config is what the MCP endpoint is made of: the REST API's route table
// and the API itself, which answers every tool call.
type Config struct {
	Routes  []apiref.Route // the route table (httpapi.Reference)
	Games   *game.Registry
	Version string
	Log     *slog.Logger
	// API serves a tool call's GET through the whole API: key, count, plan,
	// handler.
	API http.Handler
	// WriteError answers an error in the API's form, {error, message}, with
	// the extra headers given.
	WriteError func(w http.ResponseWriter, r *http.Request, status int, code, message string, header map[string]string)
	// RequestID is the id of the request ctx is of ("" when none).
	RequestID func(ctx context.Context) string
}

// endpoint is POST /mcp.
type endpoint struct {
	cfg Config
}

// New returns the handler of POST /mcp (any other method is its 405). The
// caller admits the request first: a valid key, or the API's 401.
func New(cfg Config) (http.Handler, error) {
	if cfg.API == nil || cfg.WriteError == nil || cfg.Games == nil {
		return nil, errors.New("mcpserver: Config.API, WriteError and Games are required")
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.RequestID == nil {
		cfg.RequestID = func(context.Context) string { return "" }
	}
	s := &endpoint{cfg: cfg}
	for _, t := range Tools {
		if s.route(t.Label) == nil {
			return nil, errors.New("mcpserver: the tool " + t.Name + " calls the route " + t.Label + ", which the route table lacks")
		}
	}
	return s.handler(), nil
}

// route is the table's route of the label, nil when none.
func (s *endpoint) route(label string) *apiref.Route {
	for i := range s.cfg.Routes {
		if s.cfg.Routes[i].Label == label {
			return &s.cfg.Routes[i]
		}
	}
	return nil
}

// apiError is an answer in the API's error form, refused before any route
// is asked.
type apiError struct {
	status  int
	code    string
	message string
	header  map[string]string
}

func (e *apiError) Error() string { return e.code + ": " + e.message }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

// body is the error body, as the API writes it.
func (e *apiError) body() []byte {
	b, _ := json.Marshal(struct {
		Error   string `json:"error"`
		Message string `json:"message"`
	}{e.code, e.message})
	return b
}

func (s *endpoint) writeError(w http.ResponseWriter, r *http.Request, e *apiError) {
	s.cfg.WriteError(w, r, e.status, e.code, e.message, e.header)
}
