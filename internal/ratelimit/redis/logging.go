package redis

import (
	"context"
	"fmt"
	"log/slog"

	goredis "github.com/redis/go-redis/v9"
)

// SetDriverLogger sends go-redis's own log lines to l at Debug level. Left
// alone, go-redis prints a dial failure to stderr on every probe during an
// outage, which the Limiter already reports once. go-redis has a single
// process-wide logger, so main calls this once, not the Limiter.
func SetDriverLogger(l *slog.Logger) {
	goredis.SetLogger(driverLogger{l})
}

type driverLogger struct{ l *slog.Logger }

func (d driverLogger) Printf(ctx context.Context, format string, v ...any) {
	if d.l.Enabled(ctx, slog.LevelDebug) {
		d.l.DebugContext(ctx, fmt.Sprintf(format, v...), "component", "go-redis")
	}
}
