package apiref

import "strconv"

// The error values of the API's error bodies ({error, message, ...}): the
// spec's, which callers test on, and the few the API adds. The handlers
// answer with them; the document lists each answer's.
const (
	ErrEndpointNotFound   = "Endpoint not found"
	ErrMethodNotAllowed   = "Method not allowed"
	ErrInvalidParameter   = "Invalid parameter"
	ErrInvalidCardID      = "Invalid or corrupted card ID"
	ErrCardNotFound       = "Card not found"
	ErrSetNotFound        = "Set not found"
	ErrQueryRequired      = "Query parameter required"
	ErrQueryRejected      = "Search query rejected"
	ErrSearchUnavailable  = "Search temporarily unavailable"
	ErrInternal           = "Internal server error"
	ErrServiceUnavailable = "Service unavailable"
	ErrKeyRequired        = "API key required"
	ErrKeyInvalid         = "Invalid API key"
	ErrPlanRequired       = "Plan upgrade required"
	ErrRateLimited        = "Rate limit exceeded"
	ErrImageNotFound      = "Image not found"
	ErrImageUnavailable   = "Image not available"
	ErrAmbiguousSetCode   = "Ambiguous set code" // the base game's set image only
	// Of POST /mcp, whose protocol the SDK checks before any tool runs.
	ErrInvalidMCPRequest = "Invalid MCP request"
	ErrRequestTooLarge   = "Request too large"
	ErrUnsupportedMedia  = "Unsupported media type"
)

// The rate-limit headers of the answers, in canonical form (Go's
// http.Header keys; header names are case-insensitive on the wire, and the
// document writes them X-RateLimit-...).
const (
	HeaderLimitHour     = "X-Ratelimit-Limit-Hour"
	HeaderRemainingHour = "X-Ratelimit-Remaining-Hour"
	HeaderLimitDay      = "X-Ratelimit-Limit-Day"
	HeaderRemainingDay  = "X-Ratelimit-Remaining-Day"
	HeaderRetryAfter    = "Retry-After"
)

// Problem is the error answer of a route served by a package of its own
// (internal/alertsapi's GET /alerts) rather than by httpapi's handlers:
// {error: Code, message: Message} with Status and Header as they are.
// Cause, when set, is what went wrong inside: logged with the request,
// never sent.
type Problem struct {
	Status  int
	Code    string // one of the error values above
	Message string
	Header  map[string]string // Retry-After
	Cause   error
}

func (p *Problem) Error() string {
	s := strconv.Itoa(p.Status) + " " + p.Code + ": " + p.Message
	if p.Cause != nil {
		s += " (" + p.Cause.Error() + ")"
	}
	return s
}

func (p *Problem) Unwrap() error { return p.Cause }
