// Command ceiling is the load harness's ceiling: the smallest Go net/http
// server that writes the same bytes as real cardcat answers, with no routing,
// authentication, limits or logging. loadbench captures a few real answers of
// a scenario (status, headers, body) from a running cardcat and starts one
// ceiling per scenario on them; whatever the path, each request gets the next
// captured answer. Its requests per second are the practical limit of any Go
// HTTP server on this machine for answers of that size, so cardcat's figures
// are reported as a ratio to it.
//
//	ceiling -addr 127.0.0.1:0 -answers answers.json
//
// It prints "ceiling listening on http://ADDR" once it accepts connections.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"sync/atomic"
	"time"
)

// answer is one captured HTTP answer; loadbench writes a JSON array of them.
type answer struct {
	Status int                 `json:"status"`
	Header map[string][]string `json:"header"` // without Date, which net/http adds
	Body   []byte              `json:"body"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "listen address")
	file := flag.String("answers", "", "JSON array of captured answers (required)")
	flag.Parse()
	if err := run(*addr, *file); err != nil {
		fmt.Fprintln(os.Stderr, "ceiling:", err)
		os.Exit(1)
	}
}

func run(addr, file string) error {
	raw, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	var answers []answer
	if err := json.Unmarshal(raw, &answers); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	if len(answers) == 0 {
		return fmt.Errorf("%s: no answers", file)
	}
	var next atomic.Uint64
	handler := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		a := &answers[next.Add(1)%uint64(len(answers))]
		h := w.Header()
		for k, v := range a.Header {
			h[k] = v
		}
		w.WriteHeader(a.Status)
		w.Write(a.Body)
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("ceiling listening on http://%s\n", ln.Addr())
	// The same server settings as cardcat serve, so that the ratio measures
	// cardcat's own work per request, not a difference of configuration.
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 5 * time.Second,
		ReadTimeout:       10 * time.Second,
		WriteTimeout:      30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    32 << 10,
	}
	return srv.Serve(ln)
}
