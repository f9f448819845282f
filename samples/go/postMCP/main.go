// POST /mcp: The MCP endpoint for AI agents: the API's routes as tools (operationId postMCP).
// MCP is spoken with an MCP SDK's client, not the REST client (clients/go/cardcat leaves this operation out):
// here the official Go SDK, github.com/modelcontextprotocol/go-sdk. The key is read from CARDCAT_API_KEY.
package main

import (
	"cmp"
	"context"
	"fmt"
	"log"
	"net/http"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// withKey sends the key on every request of the MCP session.
type withKey struct{ key string }

func (t withKey) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("X-API-Key", t.key)
	return http.DefaultTransport.RoundTrip(req)
}

func main() {
	ctx := context.Background()
	transport := &mcp.StreamableClientTransport{
		Endpoint:   cmp.Or(os.Getenv("CARDCAT_URL"), "http://localhost:8080") + "/mcp",
		HTTPClient: &http.Client{Transport: withKey{os.Getenv("CARDCAT_API_KEY")}},
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "cardcat-sample", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, tool := range tools.Tools {
		fmt.Println(tool.Name)
	}
}
