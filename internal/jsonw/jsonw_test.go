package jsonw

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"
)

var samples = []string{
	"", "plain", `quote " and \ backslash`, "<strong>Awaken</strong> & more",
	"line\nbreak\r\n\ttab", "\b\f\x00\x1f", "Éowyn, Lórien ’curly’ “quotes”", "\u2028\u2029",
	"bad utf-8 \xff\xfe here", "emoji 🐉", "[When Attacking] Draw 1 card.<br>\r\n",
}

func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range samples {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		want = bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
		if got := AppendStringNoHTML(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendStringNoHTML(%q) = %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range samples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Errorf("AppendString(%q) = %s, want %s", s, got, want)
		}
		if got, want := AppendStringSlog(nil, s), slogString(t, s); !bytes.Equal(got, want) {
			t.Errorf("AppendStringSlog(%q) = %s, want %s", s, got, want)
		}
	})
}

// slogString is s as slog's JSONHandler writes the value of an attribute.
func slogString(t *testing.T, s string) []byte {
	t.Helper()
	var buf bytes.Buffer
	r := slog.NewRecord(time.Time{}, slog.LevelInfo, "", 0)
	r.AddAttrs(slog.String("v", s))
	if err := slog.NewJSONHandler(&buf, nil).Handle(context.Background(), r); err != nil {
		t.Fatal(err)
	}
	const prefix, suffix = `{"level":"INFO","msg":"","v":`, "}\n"
	out := buf.Bytes()
	if !bytes.HasPrefix(out, []byte(prefix)) || !bytes.HasSuffix(out, []byte(suffix)) {
		t.Fatalf("slog wrote %q", out)
	}
	return out[len(prefix) : len(out)-len(suffix)]
}

func TestAppendStringSlogMatchesSlog(t *testing.T) {
	for _, s := range samples {
		if got, want := AppendStringSlog(nil, s), slogString(t, s); !bytes.Equal(got, want) {
			t.Errorf("AppendStringSlog(%q) = %s, want %s", s, got, want)
		}
	}
}
