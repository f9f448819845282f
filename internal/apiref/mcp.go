package apiref

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// tagAgents is the OpenAPI document's tag of POST /mcp.
const tagAgents = "AI agents"

// mcpOpenAPI is what the OpenAPI document says of POST /mcp, a path beside
// the route table's. The tools themselves are described by the protocol
// (tools/list), each from its route, which the document describes.
func (ref *Reference) mcpOperation() (*openapiOperation, error) {
	var tools []string
	for _, t := range ref.MCP.Tools {
		tools = append(tools, "`"+t.Name+"` ("+t.Path+")")
	}
	op := &openapiOperation{OperationID: "postMCP", Tags: []string{tagAgents},
		Summary: "The MCP endpoint for AI agents: the API's routes as tools",
		Description: "Model Context Protocol over streamable HTTP, stateless (no session; no GET stream, no DELETE: 405). " +
			"Needs a key like every keyed route. The protocol's own requests (initialize, tools/list, notifications) are not counted; " +
			"each tools/call is one request of the route it names, counted in the account's pool, and answers that route's JSON: " +
			"as text and structured content, an error result (isError) for any status but 200, with the status and the rate-limit headers in `_meta`. " +
			"Tools: " + strings.Join(tools, ", ") + ".",
		Parameters: []any{openapiParam{Name: "MCP-Protocol-Version", In: "header",
			Description: "The protocol version the client negotiated at initialize (clients send it by themselves).",
			Schema:      ParamSchema{Type: "string"}}},
		Responses: map[string]json.RawMessage{},
	}
	example := map[string]any{"tools/call": map[string]any{"summary": "Call get_card", "value": map[string]any{
		"jsonrpc": "2.0", "id": 1, "method": "tools/call",
		"params": map[string]any{"name": "get_card", "arguments": map[string]any{"game": "dbs", "id": "dbs_b8900e61064a48cb"}}}}}
	message := map[string]any{"type": "object", "required": []string{"jsonrpc"}, "properties": map[string]any{
		"jsonrpc": map[string]any{"type": "string", "const": "2.0"},
		"id":      map[string]any{"type": []string{"string", "integer"}},
		"method":  map[string]any{"type": "string"},
		"params":  map[string]any{"type": "object"},
		"result":  map[string]any{"type": "object"},
		"error": map[string]any{"type": "object", "required": []string{"code", "message"}, "properties": map[string]any{
			"code": map[string]any{"type": "integer"}, "message": map[string]any{"type": "string"}, "data": map[string]any{}}},
	}}
	parts := map[string]any{
		"requestBody": map[string]any{"required": true,
			"description": "One JSON-RPC 2.0 message of MCP: a request (initialize, tools/list, tools/call, ping) or a notification. Send `Content-Type: application/json` and `Accept: application/json, text/event-stream`.",
			"content":     map[string]any{"application/json": map[string]any{"schema": message, "examples": example}}},
		"200": openapiResponse{Description: "The JSON-RPC response: initialize's result, the tools, or a tool's result.",
			Headers: ref.answerHeaders(nil), Content: map[string]openapiMedia{"application/json": {Schema: message}}},
		"202": openapiResponse{Description: "A notification, accepted: no body.", Headers: ref.answerHeaders(nil)},
		"400": openapiResponse{Description: "Not a message of the protocol, an Accept without both media types, or an unsupported MCP-Protocol-Version: the API's error body, or a JSON-RPC error.",
			Headers: ref.answerHeaders(nil), Content: map[string]openapiMedia{"application/json": {Schema: map[string]any{"oneOf": []any{errorSchema([]string{ErrInvalidMCPRequest}, nil), message}}}}},
		"413": ref.errorResponse(Answer{Description: "A body over " + strconv.Itoa(ref.MCP.MaxBody>>10) + " KiB.", Errors: []string{ErrRequestTooLarge}}),
		"415": ref.errorResponse(Answer{Description: "A body that is not `application/json`.", Errors: []string{ErrUnsupportedMedia}}),
		"401": openapiRef{"#/components/responses/" + RespUnauthorized},
		"429": openapiRef{"#/components/responses/" + RespTooManyRequests},
		"500": openapiRef{"#/components/responses/" + RespInternalError},
	}
	for name, v := range parts {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("apiref: POST /mcp in the document: %w", err)
		}
		if name == "requestBody" {
			op.RequestBody = b
			continue
		}
		op.Responses[name] = b
	}
	return op, nil
}
