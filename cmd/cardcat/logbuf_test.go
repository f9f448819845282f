package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestLogBuffer(t *testing.T) {
	var out syncBuffer
	buf := newLogBuffer(&out)
	log := newLogger(testEnv(nil), buf)

	log.Info("request", "path", "/dbs/sets")
	if out.String() != "" {
		t.Fatalf("an info line was written at once: %q", out.String())
	}
	log.Warn("trouble")
	if !strings.Contains(out.String(), "msg=request") || !strings.Contains(out.String(), "msg=trouble") {
		t.Fatalf("a warning did not flush the buffer: %q", out.String())
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { buf.run(ctx); close(done) }()
	log.Info("later")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(out.String(), "msg=later") {
		if time.Now().After(deadline) {
			t.Fatal("the periodic flush never wrote the line")
		}
		time.Sleep(10 * time.Millisecond)
	}
	log.Info("last")
	cancel()
	<-done
	if !strings.Contains(out.String(), "msg=last") {
		t.Errorf("the final flush lost a line: %q", out.String())
	}
}
