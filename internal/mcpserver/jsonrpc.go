package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
)

// The JSON-RPC checks of POST /mcp. Each message is checked here before the
// MCP SDK reads it, so that a message the server will not take is refused
// in the protocol's own words: a JSON-RPC 2.0 error (-32700 Parse error,
// -32600 Invalid Request, -32601 Method not found, -32602 Invalid params)
// whose message says what is wrong and names the field. The SDK's own
// refusals pass its JSON decoder's text through (Go type names, "json:
// cannot unmarshal"), which tells a caller nothing and shows the server's
// innards.

// JSON-RPC 2.0's error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
)

// rpcPhrase is the name JSON-RPC 2.0 gives an error code, which starts the
// message of each of its errors here.
func rpcPhrase(code int) string {
	switch code {
	case rpcParseError:
		return "Parse error"
	case rpcInvalidRequest:
		return "Invalid Request"
	case rpcMethodNotFound:
		return "Method not found"
	case rpcInvalidParams:
		return "Invalid params"
	}
	return "Error"
}

// mcpMaxDepth bounds the nesting of objects and arrays in a message: MCP's
// messages nest a few levels; the SDK refuses past 1,000 levels, in its
// decoder's words.
const mcpMaxDepth = 100

// rpcRefusal is a message refused: the JSON-RPC error answered, with the
// request's id when it has a valid one, and the HTTP status it is sent with.
type rpcRefusal struct {
	status  int
	id      json.RawMessage // nil: null
	code    int
	message string
}

func refuse(status, code int, id json.RawMessage, detail string) *rpcRefusal {
	return &rpcRefusal{status: status, id: id, code: code, message: rpcPhrase(code) + ": " + detail}
}

// rpcErrorBody is a JSON-RPC error response.
type rpcErrorBody struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Error   rpcErrorObject  `json:"error"`
}

type rpcErrorObject struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// writeRPCRefusal answers a refused message.
func writeRPCRefusal(w http.ResponseWriter, e *rpcRefusal) {
	id := e.id
	if id == nil {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(rpcErrorBody{JSONRPC: "2.0", ID: id, Error: rpcErrorObject{Code: e.code, Message: e.message}})
	if err != nil {
		panic("mcpserver: marshal a JSON-RPC error: " + err.Error()) // an id is valid JSON, checked before
	}
	h := w.Header()
	h["Cache-Control"] = noStore
	h["Content-Type"] = jsonContentType
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(e.status)
	w.Write(b)
}

// rpcKind is the JSON type a field must have.
type rpcKind uint8

const (
	rpcAny rpcKind = iota
	rpcObject
	rpcArray
	rpcString
	rpcNumber
	rpcBool
	rpcID // a string or an integer: a request's id, a progress token
)

func (k rpcKind) String() string {
	switch k {
	case rpcObject:
		return "an object"
	case rpcArray:
		return "an array"
	case rpcString:
		return "a string"
	case rpcNumber:
		return "a number"
	case rpcBool:
		return "true or false"
	case rpcID:
		return "a string or an integer"
	}
	return "any value"
}

// rpcShape is what a value of a message must be: its kind and, of an
// object, the shapes of the fields the protocol gives a type (others pass);
// of an array, its items'. null passes for any field, as the SDK takes it.
type rpcShape struct {
	kind   rpcKind
	fields map[string]rpcShape
	items  *rpcShape
}

var (
	anyObject = rpcShape{kind: rpcObject}
	aString   = rpcShape{kind: rpcString}
)

// params is the shape of a method's params: _meta and the fields given.
func params(fields map[string]rpcShape) rpcShape {
	if fields == nil {
		fields = map[string]rpcShape{}
	}
	fields["_meta"] = anyObject
	return rpcShape{kind: rpcObject, fields: fields}
}

// mcpMethod is a method POST /mcp answers, with the shape of its params as
// the SDK's types have them (mcp.InitializeParams, mcp.CallToolParamsRaw,
// ...), field names in the protocol's case.
type mcpMethod struct {
	notification   bool // sent without an id, answered 202 without a body
	paramsRequired bool
	params         rpcShape
}

var (
	listParams = params(map[string]rpcShape{"cursor": aString})
	// mcpMethods are the methods POST /mcp answers: MCP's lifecycle, its
	// tools and the notifications a client sends, and the lists of the
	// features this server has none of (empty), which clients ask for
	// anyway. The SDK knows a few more (resources/read, prompts/get,
	// completion/complete, subscriptions): with nothing to serve, they are
	// "Method not found".
	mcpMethods = map[string]mcpMethod{
		"initialize": {paramsRequired: true, params: params(map[string]rpcShape{
			"protocolVersion": aString,
			"capabilities": {kind: rpcObject, fields: map[string]rpcShape{
				"experimental": anyObject,
				"extensions":   anyObject,
				"roots":        {kind: rpcObject, fields: map[string]rpcShape{"listChanged": {kind: rpcBool}}},
				"sampling":     {kind: rpcObject, fields: map[string]rpcShape{"context": anyObject, "tools": anyObject}},
				"elicitation":  {kind: rpcObject, fields: map[string]rpcShape{"form": anyObject, "url": anyObject}},
			}},
			"clientInfo": {kind: rpcObject, fields: map[string]rpcShape{
				"name": aString, "title": aString, "description": aString, "version": aString, "websiteUrl": aString,
				"icons": {kind: rpcArray, items: &rpcShape{kind: rpcObject, fields: map[string]rpcShape{
					"src": aString, "mimeType": aString, "theme": aString,
					"sizes": {kind: rpcArray, items: &aString},
				}}},
			}},
		})},
		"ping":       {params: params(nil)},
		"tools/list": {params: listParams},
		"tools/call": {paramsRequired: true, params: params(map[string]rpcShape{
			"name":      aString,
			"arguments": anyObject,
			// Of a call that answers a server's request for input, which
			// this server never makes.
			"inputResponses": {kind: rpcObject},
			"requestState":   aString,
		})},
		"resources/list":           {params: listParams},
		"resources/templates/list": {params: listParams},
		"prompts/list":             {params: listParams},
		"logging/setLevel":         {paramsRequired: true, params: params(map[string]rpcShape{"level": aString})},

		"notifications/initialized":        {notification: true, params: params(nil)},
		"notifications/roots/list_changed": {notification: true, params: params(nil)},
		"notifications/cancelled": {notification: true, paramsRequired: true, params: params(map[string]rpcShape{
			"requestId": {kind: rpcID}, "reason": aString})},
		"notifications/progress": {notification: true, paramsRequired: true, params: params(map[string]rpcShape{
			"progressToken": {kind: rpcID}, "progress": {kind: rpcNumber}, "total": {kind: rpcNumber}, "message": aString})},
	}
)

// mcpRequestMethods lists the requests of mcpMethods for a message, in the
// order a client sends them.
const mcpRequestMethods = "initialize, ping, tools/list, tools/call, resources/list, resources/templates/list, prompts/list, logging/setLevel"

// checkMCPMessage checks a POST's body: one JSON-RPC 2.0 message of a
// method this server answers, with params of the protocol's types. It
// returns the method ("" for a response, which the SDK takes) or the
// refusal to answer.
func checkMCPMessage(body []byte) (method string, _ *rpcRefusal) {
	bad := func(detail string) (string, *rpcRefusal) {
		return "", refuse(http.StatusBadRequest, rpcInvalidRequest, nil, detail)
	}
	trimmed := bytes.Trim(body, " \t\r\n")
	if len(trimmed) == 0 {
		return "", refuse(http.StatusBadRequest, rpcParseError, nil, "the body is empty; send one JSON-RPC 2.0 message, a JSON object.")
	}
	if !json.Valid(body) {
		detail := "the body is not JSON"
		var se *json.SyntaxError
		if err := json.Unmarshal(body, new(any)); errors.As(err, &se) {
			detail += " (at byte " + strconv.FormatInt(se.Offset, 10) + ")"
		}
		return "", refuse(http.StatusBadRequest, rpcParseError, nil, detail+"; send one JSON-RPC 2.0 message, a JSON object.")
	}
	if jsonDepth(trimmed) > mcpMaxDepth {
		return bad("the message nests objects and arrays more than " + strconv.Itoa(mcpMaxDepth) + " levels deep.")
	}
	switch trimmed[0] {
	case '[':
		return bad("batches (a JSON array of messages) are not accepted: send one JSON-RPC message per POST.")
	case '{':
	default:
		return bad("the body must be one JSON-RPC 2.0 message, a JSON object, not " + describe(trimmed) + ".")
	}
	var msg map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &msg); err != nil {
		return bad("the body must be one JSON-RPC 2.0 message, a JSON object.") // valid JSON starting with {: not reached
	}
	var id json.RawMessage
	rawID, hasID := msg["id"]
	if hasID {
		if !validRPCID(rawID) {
			return bad("the field id must be a string or an integer (of at most 2^53), not " + describe(rawID) + ".")
		}
		id = rawID
	}
	badWithID := func(detail string) (string, *rpcRefusal) {
		return "", refuse(http.StatusBadRequest, rpcInvalidRequest, id, detail)
	}
	if v, ok := msg["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return badWithID(`the field jsonrpc must be "2.0".`)
	}
	rawMethod, hasMethod := msg["method"]
	if !hasMethod {
		_, result := msg["result"]
		_, failure := msg["error"]
		if hasID && (result || failure) {
			return "", nil // a response: the SDK takes it (202)
		}
		return badWithID("the field method is missing.")
	}
	if jsonType(rawMethod) != "a string" || json.Unmarshal(rawMethod, &method) != nil {
		return badWithID("the field method must be a string, not " + describe(rawMethod) + ".")
	}
	// A refusal of a request carries its id and is a JSON-RPC answer (200);
	// a notification gets no answer, so its refusal is the HTTP request's
	// (400), without an id.
	status := http.StatusOK
	if !hasID {
		status = http.StatusBadRequest
	}
	m, known := mcpMethods[method]
	if !known {
		return "", refuse(status, rpcMethodNotFound, id, "this server has no method "+strconv.Quote(method)+"; it answers "+
			mcpRequestMethods+", and the client's notifications.")
	}
	switch {
	case m.notification && hasID:
		return badWithID(method + " is a notification: send it without an id.")
	case !m.notification && !hasID:
		return bad(method + " is a request: send it with an id (a string or an integer).")
	}
	p, hasParams := msg["params"]
	if !hasParams || string(p) == "null" {
		if m.paramsRequired {
			return "", refuse(status, rpcInvalidParams, id, "params is required for "+method+": an object.")
		}
		return method, nil
	}
	if detail := checkShape("params", p, m.params); detail != "" {
		return "", refuse(status, rpcInvalidParams, id, detail)
	}
	if method == "tools/call" {
		if detail := checkToolName(p); detail != "" {
			return "", refuse(status, rpcInvalidParams, id, detail)
		}
	}
	return method, nil
}

// checkShape returns what is wrong with the value at path, "" when it has
// the shape.
func checkShape(path string, v json.RawMessage, sh rpcShape) string {
	if string(v) == "null" || sh.kind == rpcAny {
		return ""
	}
	ok := false
	switch sh.kind {
	case rpcObject:
		ok = v[0] == '{'
	case rpcArray:
		ok = v[0] == '['
	case rpcString:
		ok = v[0] == '"'
	case rpcBool:
		ok = v[0] == 't' || v[0] == 'f'
	case rpcNumber:
		ok = jsonType(v) == "a number"
		if _, err := strconv.ParseFloat(string(v), 64); ok && err != nil {
			return path + " must be a number that a 64-bit float holds (at most 1.8e308)." // 1e999 is JSON
		}
	case rpcID:
		ok = validRPCID(v)
	}
	if !ok {
		return path + " must be " + sh.kind.String() + ", not " + describe(v) + "."
	}
	switch {
	case sh.kind == rpcObject && sh.fields != nil:
		var fields map[string]json.RawMessage
		json.Unmarshal(v, &fields) // an object of a valid document
		for name, fsh := range sh.fields {
			if fv, ok := fields[name]; ok {
				if detail := checkShape(path+"."+name, fv, fsh); detail != "" {
					return detail
				}
			}
		}
	case sh.kind == rpcArray && sh.items != nil:
		var items []json.RawMessage
		json.Unmarshal(v, &items)
		for i, iv := range items {
			if detail := checkShape(path+"["+strconv.Itoa(i)+"]", iv, *sh.items); detail != "" {
				return detail
			}
		}
	}
	return ""
}

// checkToolName returns what is wrong with the name of a tools/call's
// params (an object), "" when it names a tool.
func checkToolName(p json.RawMessage) string {
	var call struct {
		Name *string `json:"name"`
	}
	var fields map[string]json.RawMessage
	json.Unmarshal(p, &fields)
	if raw, ok := fields["name"]; ok {
		json.Unmarshal(raw, &call.Name)
	}
	if call.Name == nil || *call.Name == "" {
		return "params.name is required: the name of the tool to call (tools/list lists them)."
	}
	for _, t := range Tools {
		if t.Name == *call.Name {
			return ""
		}
	}
	return "params.name: no tool is named " + strconv.Quote(*call.Name) + "; tools/list lists them."
}

// validRPCID reports whether v, a JSON value, is a string or an integer
// that a float64 holds exactly (the SDK reads a number id as one).
func validRPCID(v json.RawMessage) bool {
	switch jsonType(v) {
	case "a string":
		return true
	case "a number":
		n, err := strconv.ParseInt(string(v), 10, 64)
		return err == nil && -1<<53 <= n && n <= 1<<53
	}
	return false
}

// jsonType names the type of v, a JSON value, as a message says it.
func jsonType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// describe names v, a JSON value, as a message says what it got: its type,
// and a number as it is written when it is short.
func describe(v []byte) string {
	t := jsonType(v)
	if t == "a number" && len(v) <= 24 {
		return "the number " + string(v)
	}
	return t
}

// jsonDepth is how deep objects and arrays nest in b, a JSON document.
func jsonDepth(b []byte) int {
	depth, deepest := 0, 0
	inString, escaped := false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			depth++
			deepest = max(deepest, depth)
		case c == '}' || c == ']':
			depth--
		}
	}
	return deepest
}

// mediaType is the media type of a Content-Type, without its parameters,
// in lower case.
func mediaType(contentType string) string {
	t, _, _ := strings.Cut(contentType, ";")
	return strings.ToLower(strings.TrimSpace(t))
}

var (
	// noStore is every error answer's, as the API's: a refusal kept by a
	// cache would outlive its cause.
	noStore         = []string{"no-store"}
	jsonContentType = []string{"application/json; charset=utf-8"}
)
