package mailtest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	raw := "From: a@example.com\r\nTo: b@example.com\r\nSubject: =?utf-8?q?Caf=C3=A9?=\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n" +
		"Open https://x.example/verify?t=3Dabc now=\r\n, or http://y.example.\r\n"
	_, subject, text, err := parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	got := []string{subject, text, linkPattern.FindString(text)}
	want := []string{"Café", "Open https://x.example/verify?t=abc now, or http://y.example.\n", "https://x.example/verify?t=abc"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("subject, text, link (-want +got):\n%s", diff)
	}
}

// fatalTB records Fatalf and stops the goroutine, as testing does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestWaitForFailsWhenNothingArrives(t *testing.T) {
	srv := Start(t)
	srv.record(Message{To: []string{"other@example.com"}})
	tb := &fatalTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.WaitFor(tb, "a@example.com", 50*time.Millisecond)
	}()
	<-done
	if !strings.Contains(tb.msg, "no new message to a@example.com") {
		t.Errorf("WaitFor failed with %q, want a timeout", tb.msg)
	}
}

func TestWaitForTakesEachMessageOnce(t *testing.T) {
	srv := Start(t)
	go func() {
		srv.record(Message{To: []string{"a@example.com"}, Subject: "one"})
		srv.record(Message{To: []string{"A@example.com"}, Subject: "two"})
	}()
	var got []string
	for range 2 {
		got = append(got, srv.WaitFor(t, "a@EXAMPLE.com", 5*time.Second).Subject)
	}
	if diff := cmp.Diff([]string{"one", "two"}, got); diff != "" {
		t.Errorf("subjects (-want +got):\n%s", diff)
	}
}
