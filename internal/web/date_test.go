package web

import (
	"net/http"
	"testing"
	"time"
)

// TestDateLine: the line is net/http's Date for the time, the same memory
// for every answer of one second, and a new one the next second.
func TestDateLine(t *testing.T) {
	now := time.Date(2026, 11, 30, 17, 4, 5, 300, time.FixedZone("CET", 3600))
	a := dateLine(now)
	if want := "Date: " + now.UTC().Format(http.TimeFormat) + "\r\n"; string(a) != want {
		t.Fatalf("dateLine = %q, want %q", a, want)
	}
	if b := dateLine(now.Add(600 * time.Millisecond)); &b[0] != &a[0] {
		t.Error("a second's answers do not share its line")
	}
	next := dateLine(now.Add(time.Second))
	if want := "Date: Mon, 30 Nov 2026 16:04:06 GMT\r\n"; string(next) != want {
		t.Errorf("the next second's line = %q, want %q", next, want)
	}
	if string(a) != "Date: Mon, 30 Nov 2026 16:04:05 GMT\r\n" {
		t.Errorf("the first second's line changed to %q once the next was made", a)
	}
}
