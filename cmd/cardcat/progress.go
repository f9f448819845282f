package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// progress shows how far long work has come: a bar redrawn in place when w is
// a terminal, else a log line every 10%.
type progress struct {
	env      *Env
	terminal bool
	mu       sync.Mutex
	lastPct  map[string]int
	lastDraw time.Time
}

func newProgress(env *Env) *progress {
	return &progress{env: env, terminal: isTerminal(env.Stderr), lastPct: map[string]int{}}
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// update reports done of total for what.
func (p *progress) update(what string, done, total int) {
	if total <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	pct := done * 100 / total
	if p.terminal {
		if done < total && time.Since(p.lastDraw) < 100*time.Millisecond {
			return
		}
		p.lastDraw = time.Now()
		const width = 30
		fill := width * done / total
		fmt.Fprintf(p.env.Stderr, "\r%-4s [%s%s] %3d%% %d/%d groups", what,
			strings.Repeat("#", fill), strings.Repeat(" ", width-fill), pct, done, total)
		if done == total {
			fmt.Fprintln(p.env.Stderr)
		}
		return
	}
	if last, seen := p.lastPct[what]; seen && pct/10 == last/10 && done < total {
		return
	}
	p.lastPct[what] = pct
	p.env.Log.Info("reading", "game", what, "groups", done, "of", total, "percent", pct)
}
