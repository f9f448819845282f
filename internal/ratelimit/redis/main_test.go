package redis

import (
	"log/slog"
	"os"
	"testing"
)

func TestMain(m *testing.M) {
	// Dial failures are the point of several tests; the limiter logs them itself.
	SetDriverLogger(slog.Default())
	os.Exit(m.Run())
}
