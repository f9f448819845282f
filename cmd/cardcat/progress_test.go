package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cardcat/cardcat/internal/config"
)

func TestProgressLogsEveryTenPercent(t *testing.T) {
	var logs bytes.Buffer
	env := &Env{Stderr: &logs, Log: newLogger(config.Log{}, &logs)}
	p := newProgress(env)
	for i := 1; i <= 200; i++ {
		p.update("mtg", i, 200)
	}
	lines := strings.Count(logs.String(), "msg=reading")
	// 0.5% (first), then one per 10% step, and the last.
	if lines < 10 || lines > 12 {
		t.Errorf("%d progress lines for 200 groups:\n%s", lines, logs.String())
	}
	if !strings.Contains(logs.String(), "groups=200 of=200 percent=100") {
		t.Errorf("no final line:\n%s", logs.String())
	}
}
