package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestIngestHistoryDays: --history-days and CARDCAT_HISTORY_DAYS take 0
// (keep every point) or at least 400 days; anything else is a usage error
// before anything is read or written.
func TestIngestHistoryDays(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		env     string
		wantErr string
	}{
		{[]string{"--history-days", "400"}, "", ""},
		{[]string{"--history-days", "0"}, "", ""},
		{nil, "730", ""},
		{[]string{"--history-days", "500"}, "x", "CARDCAT_HISTORY_DAYS"}, // a bad variable is refused even when the flag is set
		{[]string{"--history-days", "399"}, "", "at least 400"},
		{[]string{"--history-days", "-1"}, "", "at least 400"},
		{[]string{"--history-days", "1y"}, "", "at least 400"},
		{nil, "30", "CARDCAT_HISTORY_DAYS"},
	} {
		dir := t.TempDir()
		var out, errb bytes.Buffer
		args := append([]string{"ingest", "--from", "../../sample", "--data-dir", dir}, tt.args...)
		err := run(context.Background(), args, testEnv(map[string]string{"CARDCAT_HISTORY_DAYS": tt.env}), &out, &errb)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ingest %v, CARDCAT_HISTORY_DAYS=%q: %v", tt.args, tt.env, err)
		case tt.wantErr != "" && (err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ingest %v, CARDCAT_HISTORY_DAYS=%q: %v; want a usage error naming %q", tt.args, tt.env, err, tt.wantErr)
		case tt.wantErr == "" && !strings.Contains(out.String(), "catalogue version 1 written"):
			t.Errorf("ingest %v: summary %q", tt.args, out.String())
		}
	}
}
