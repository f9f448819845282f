package etag_test

import (
	"regexp"
	"strconv"
	"testing"

	"github.com/cardcat/cardcat/internal/etag"
)

// The tag is a function of the bytes alone: fixed values, so that a change of
// hash (which would make every client's cache miss once) is a deliberate one.
func TestOf(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{"", `"2d06800538d394c2"`},
		{`{"success":true}`, ""},
	}
	shape := regexp.MustCompile(`^"[0-9a-f]{16}"$`)
	for _, tt := range tests {
		got := etag.Of([]byte(tt.body))
		if !shape.MatchString(got) {
			t.Errorf("Of(%q) = %s, not a quoted 16-hex tag", tt.body, got)
		}
		if tt.want != "" && got != tt.want {
			t.Errorf("Of(%q) = %s, want %s", tt.body, got, tt.want)
		}
		if s := etag.OfString(tt.body); s != got {
			t.Errorf("OfString(%q) = %s, Of gives %s", tt.body, s, got)
		}
	}
	if etag.Of([]byte("a")) == etag.Of([]byte("b")) {
		t.Error("two bodies, one tag")
	}
}

func TestNoneMatch(t *testing.T) {
	const tag = `"0123456789abcdef"`
	tests := []struct {
		name   string
		fields []string
		want   bool
	}{
		{"absent", nil, false},
		{"same tag", []string{tag}, true},
		{"weak form of the tag", []string{"W/" + tag}, true},
		{"in a list", []string{`"aaa", W/"bbb",` + tag + `, "ccc"`}, true},
		{"list without spaces", []string{`"aaa",` + tag}, true},
		{"in a second field line", []string{`"aaa"`, tag}, true},
		{"star", []string{"*"}, true},
		{"other tag", []string{`"0123"`}, false},
		{"unquoted tag", []string{tag[1 : len(tag)-1]}, false},
		{"tag as a prefix", []string{tag[:len(tag)-2] + `"`}, false},
		{"malformed before the tag", []string{`"aaa" junk, ` + tag}, false},
		{"unterminated", []string{`"` + tag}, false},
		{"empty", []string{""}, false},
		{"upper-case hex is another tag", []string{`"0123456789ABCDEF"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := etag.NoneMatch(tt.fields, tag); got != tt.want {
				t.Errorf("NoneMatch(%q) = %v, want %v", tt.fields, got, tt.want)
			}
			if got := etag.NoneMatch(tt.fields, "W/"+tag); got != tt.want {
				t.Errorf("NoneMatch(%q) of the weak tag = %v, want %v", tt.fields, got, tt.want)
			}
		})
	}
}

// BenchmarkOf: the cost of tagging a body, by size (a card detail is 1 to 3
// KB, a set page of 50 about 100 KB, prices by set up to a few hundred KB).
func BenchmarkOf(b *testing.B) {
	for _, n := range []int{2 << 10, 100 << 10} {
		body := make([]byte, n)
		for i := range body {
			body[i] = byte('a' + i%26)
		}
		b.Run(strconv.Itoa(n>>10)+"KB", func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				etag.Of(body)
			}
		})
	}
}
