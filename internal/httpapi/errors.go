package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"

	"github.com/cardcat/cardcat/internal/apiref"
	"github.com/cardcat/cardcat/internal/jsonw"
	"github.com/cardcat/cardcat/internal/web"
)

// apiHandler is a handler that returns its failure; adapt turns the failure
// into the answer. An *apiError is sent as it is; any other error is logged
// and answered with a 500 that tells nothing of its cause.
type apiHandler func(w http.ResponseWriter, r *http.Request) error

// apiError is an answer with an error status: {error, message, ...}.
type apiError struct {
	Status int
	Body   errorBody
	// Header is the answer's extra headers (Retry-After, Allow,
	// WWW-Authenticate) by their canonical names: set as they are, never
	// changed (a constant one is shared by every answer that has it).
	Header http.Header
}

// headerOf is the canonical http.Header of extra headers given by name.
func headerOf(fields map[string]string) http.Header {
	if len(fields) == 0 {
		return nil
	}
	h := make(http.Header, len(fields))
	for k, v := range fields {
		h.Set(k, v)
	}
	return h
}

// retryAfter is the header of an answer to retry after secs seconds.
func retryAfter(secs string) http.Header { return http.Header{"Retry-After": {secs}} }

func (e *apiError) Error() string {
	return fmt.Sprintf("%d %s: %s", e.Status, e.Body.Error, e.Body.Message)
}

// errorBody is the JSON of every error answer; fields other than error and
// message appear when the error has them.
type errorBody struct {
	Error       string      `json:"error"`
	Message     string      `json:"message"`
	DidYouMean  any         `json:"did_you_mean,omitempty"` // a path, or null where the key is always sent
	Docs        string      `json:"docs,omitempty"`
	Suggestions any         `json:"suggestions,omitempty"`
	Example     string      `json:"example,omitempty"`
	RedeemURL   string      `json:"redeem_url,omitempty"`
	UpgradeURL  string      `json:"upgrade_url,omitempty"`
	Limits      *limitsBody `json:"limits,omitempty"`  // of a 429
	Matches     any         `json:"matches,omitempty"` // of the set image's 409
}

func newError(status int, code, message string) *apiError {
	return &apiError{Status: status, Body: errorBody{Error: code, Message: message}}
}

// Error values of the spec (apiref's: the document lists them too).
const (
	errEndpointNotFound   = apiref.ErrEndpointNotFound
	errMethodNotAllowed   = apiref.ErrMethodNotAllowed
	errInvalidParameter   = apiref.ErrInvalidParameter
	errInvalidCardID      = apiref.ErrInvalidCardID
	errCardNotFound       = apiref.ErrCardNotFound
	errSetNotFound        = apiref.ErrSetNotFound
	errQueryRequired      = apiref.ErrQueryRequired
	errQueryRejected      = apiref.ErrQueryRejected
	errSearchUnavailable  = apiref.ErrSearchUnavailable
	errInternal           = apiref.ErrInternal
	errServiceUnavailable = apiref.ErrServiceUnavailable
	errKeyRequired        = apiref.ErrKeyRequired
	errKeyInvalid         = apiref.ErrKeyInvalid
	errPlanRequired       = apiref.ErrPlanRequired
	errImageNotFound      = apiref.ErrImageNotFound
	errImageUnavailable   = apiref.ErrImageUnavailable
	errAmbiguousSetCode   = apiref.ErrAmbiguousSetCode
	errInvalidMCPRequest  = apiref.ErrInvalidMCPRequest
	errRequestTooLarge    = apiref.ErrRequestTooLarge
	errUnsupportedMedia   = apiref.ErrUnsupportedMedia
)

func (s *Server) adapt(h apiHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// writeError answers with err: an *apiError as it says, anything else as a
// logged 500.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	// Most errors are an *apiError as it is (every 401 and 404): no
	// unwrapping for them, which was 1% of a 401's CPU at saturation.
	ae, ok := err.(*apiError)
	if !ok {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			// The client went away: nobody reads an answer, nothing failed here.
			s.log.LogAttrs(r.Context(), slog.LevelDebug, "request canceled by the client",
				slog.String("request_id", requestID(r.Context())))
			return
		}
		if !errors.As(err, &ae) {
			id := requestID(r.Context())
			s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
				slog.String("request_id", id), slog.String("path", web.RedactTarget(r.URL.Path)), slog.Any("error", err))
			ae = internalError(id)
		}
	}
	web.SetField(w, web.FieldCacheControl, noStore)
	for k, v := range ae.Header {
		if f, ok := web.FieldOf(k); ok {
			web.SetField(w, f, v)
		} else {
			w.Header()[k] = v
		}
	}
	bp := getBuffer()
	*bp = ae.Body.appendJSON(*bp)
	writeBody(w, ae.Status, *bp)
	putBuffer(bp)
}

// appendJSON appends the body as json.Marshal writes it (TestErrorBodyJSON),
// without its reflection: the 401s and 404s of a saturated server are many.
func (e *errorBody) appendJSON(b []byte) []byte {
	b = append(b, `{"error":`...)
	b = jsonw.AppendString(b, e.Error)
	b = append(b, `,"message":`...)
	b = jsonw.AppendString(b, e.Message)
	b = appendOptional(b, `,"did_you_mean":`, e.DidYouMean)
	b = appendOptionalString(b, `,"docs":`, e.Docs)
	b = appendOptional(b, `,"suggestions":`, e.Suggestions)
	b = appendOptionalString(b, `,"example":`, e.Example)
	b = appendOptionalString(b, `,"redeem_url":`, e.RedeemURL)
	b = appendOptionalString(b, `,"upgrade_url":`, e.UpgradeURL)
	if e.Limits != nil {
		b = append(b, `,"limits":`...)
		b = e.Limits.appendJSON(b)
	}
	b = appendOptional(b, `,"matches":`, e.Matches)
	return append(b, '}')
}

// appendOptionalString appends key and s unless s is empty (omitempty).
func appendOptionalString(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	return jsonw.AppendString(append(b, key...), s)
}

// appendOptional appends key and v unless v is nil (omitempty): a string
// and a null by hand, anything else (suggestions, matches) by
// json.Marshal.
func appendOptional(b []byte, key string, v any) []byte {
	switch v := v.(type) {
	case nil:
		return b
	case string:
		return jsonw.AppendString(append(b, key...), v)
	case json.RawMessage:
		if string(v) == "null" {
			return append(append(b, key...), "null"...)
		}
	}
	m, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("httpapi: marshal %T: %v", v, err))
	}
	return append(append(b, key...), m...)
}

func internalError(requestID string) *apiError {
	return newError(http.StatusInternalServerError, errInternal,
		"The server failed to answer this request; it has been logged (request id "+requestID+"). Please try again later.")
}

var jsonContentType = []string{"application/json; charset=utf-8"}

// writeJSON marshals v as the answer. The values marshalled here are the
// API's own types, so a marshalling failure is a programming error.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("httpapi: marshal %T: %v", v, err))
	}
	writeBody(w, status, b)
}

// writeBody sends a ready JSON body: a 200 compressed when the request asks
// for it (web.WriteAnswer), any other status as it is. A keyed route
// replies instead (reply.go), which gives its 200 an ETag.
func writeBody(w http.ResponseWriter, status int, body []byte) {
	if status == http.StatusOK {
		if body == nil {
			body = []byte{} // nil means "held in a string" to writeOK
		}
		writeOK(w, body, "")
		return
	}
	web.SetField(w, web.FieldContentType, jsonContentType)
	web.SetContentLength(w, len(body))
	w.WriteHeader(status)
	w.Write(body)
}

// The public routes' answers (keyed routes reply instead: reply.go), written
// with web.WriteAnswer: compressed, without an ETag.

// writeOK sends a JSON 200 body that is the same for the whole process,
// held in body or (when body is nil) in str.
func writeOK(w http.ResponseWriter, body []byte, str string) {
	web.WriteAnswer(w, web.Kept, jsonContentType, body, str)
}

// writeText sends a public text body made once per process (/llms.txt,
// /docs/api.md), compressed like the JSON answers.
func writeText(w http.ResponseWriter, contentType string, body []byte) {
	web.WriteAnswer(w, web.Kept, []string{contentType}, body, "")
}
