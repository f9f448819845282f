package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Issue 26's targets ("close to the machine"): each scenario's share of its
// ceiling, the Redis limiter's, card detail's p99 paced at 75% of its
// ceiling against the ceiling's at the same rate, and resident memory per
// product after the load runs. The report says which are met and, for each
// missed scenario, the top entries of cardcat's CPU profile of it (with
// -profile), as the "Done means" asks.
var target26Ratios = []struct {
	key    string
	target float64
}{
	{"card", 0.95}, {"set", 0.90}, {"setgz", 0.90}, {"setbr", 0.90}, {"search", 0.60},
	{"paid", 0.95}, {"401", 0.95}, {"404", 0.95}, {"304", 0.95},
}

const (
	target26Redis           = 0.85
	target26PacedP99        = 1.2 // times the ceiling's p99 at the same rate
	target26BytesPerProduct = 2048
	// profileTopEntries is how many of a profile's top entries a missed
	// target names.
	profileTopEntries = 6
)

func (rep *report) targets26(b *strings.Builder, sr *sizeReport) {
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	verdict := func(ok bool) string {
		if ok {
			return "met"
		}
		return "**missed**"
	}
	p("### Targets (issue 26)\n\n")
	p("| target | measured | | cardcat's CPU profile of the scenario's last round, top entries by own time |\n|---|---|---|---|\n")
	for _, t := range target26Ratios {
		sc := sr.scenario(t.key)
		if sc == nil {
			continue
		}
		rt := sr.ratios("", t.key, "cardcat")
		ct := sr.coreRatios("", t.key, "cardcat")
		met := rt.Median >= t.target
		top := ""
		if !met {
			top = rep.profileTop(sr, "cardcat", t.key)
		}
		p("| %s: ≥ %.2f of the ceiling | %.2f [%.2f–%.2f] (per core %.2f) | %s | %s |\n",
			sc.Name, t.target, rt.Median, rt.Min, rt.Max, ct.Median, verdict(met), top)
		if hot := sr.scenario("cardhot"); t.key == "card" && hot != nil { // card detail's gap, told apart from the catalogue's memory
			rt, ct := sr.ratios("", hot.Key, "cardcat"), sr.coreRatios("", hot.Key, "cardcat")
			p("| (no target) %s: what cardcat's code reaches when the catalogue's memory is not in the way | %.2f [%.2f–%.2f] (per core %.2f) | | |\n",
				hot.Name, rt.Median, rt.Min, rt.Max, ct.Median)
		}
	}
	if sr.Redis == "" {
		rt := sr.ratios("redis", "card", "cardcat, Redis limiter")
		met := rt.Median >= target26Redis
		top := ""
		if !met {
			top = rep.profileTop(sr, "cardcat, Redis limiter", "card")
		}
		p("| card detail, Redis limiter: ≥ %.2f | %.2f [%.2f–%.2f] | %s | %s |\n", target26Redis, rt.Median, rt.Min, rt.Max, verdict(met), top)
	}
	if lv, ok := sr.pacedAt(0.75); ok {
		at := sr.series(lv.phase(), "card", "cardcat").stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
		ceil := sr.series(lv.phase(), "card", ceilingName).stat(func(r runResult) float64 { return ms(r.Wrk.Latency.P99) })
		if ceil.Median > 0 {
			x := at.Median / ceil.Median
			p("| card detail paced at 75%%: p99 within %.1f× the ceiling's | %.2f ms against %.2f ms (%.2f×) | %s | %s |\n",
				target26PacedP99, at.Median, ceil.Median, x, verdict(x <= target26PacedP99), pacedAtLimit(sr, lv))
		}
	}
	if products := sr.Cat.Total(); products > 0 && sr.MemLoaded.RSS > 0 {
		per := float64(sr.MemLoaded.RSS) / float64(products)
		p("| under %s B resident per product after the load runs, compression cache included | %s B | %s | |\n",
			thousands(target26BytesPerProduct), thousands(per), verdict(per < target26BytesPerProduct))
	}
	p("\n")
}

// pacedAtLimit says when the paced rate is over nine tenths of what
// cardcat answered at saturation in the main card-detail runs: there it
// runs at or near its limit, and its p99 is mostly the wait in a queue that
// the ceiling, with room to spare at the same rate, does not have.
func pacedAtLimit(sr *sizeReport, lv pacedLevel) string {
	rt := sr.ratios("", "card", "cardcat")
	if rt.N == 0 || rt.Median <= 0 || lv.Share < 0.9*rt.Median {
		return ""
	}
	return fmt.Sprintf("this rate is %.0f%% of what cardcat answered at saturation (card detail at %.2f of the ceiling): it runs at or near its limit, and its p99 is mostly a queue's; the target needs card detail well above %.2f first",
		100*lv.Share/rt.Median, rt.Median, lv.Share)
}

// profileTop returns the top entries by own CPU time of the profile the
// harness took of target in the scenario's last round (-profile), as
// "function 12.3%" separated by "; ", or "" when there is none.
func (rep *report) profileTop(sr *sizeReport, target, key string) string {
	if rep.cfg.profileDir == "" {
		return "(no profile: run with -profile DIR)"
	}
	file := filepath.Join(rep.cfg.profileDir, fmt.Sprintf("%d-%s-%s.pprof", sr.Cat.Cards, sanitize(target), key))
	if _, err := os.Stat(file); err != nil {
		return "(no profile of this scenario)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, "go", "tool", "pprof", "-top", fmt.Sprintf("-nodecount=%d", profileTopEntries), file).Output()
	if err != nil {
		return fmt.Sprintf("(go tool pprof: %v)", err)
	}
	return topEntries(string(out), profileTopEntries)
}

// topEntries reads `go tool pprof -top`'s table: "flat flat% sum% cum cum%
// name" lines after its header, and returns "name flat%" of the first n.
func topEntries(out string, n int) string {
	var entries []string
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if !inTable {
			inTable = len(f) >= 5 && f[0] == "flat" && f[1] == "flat%"
			continue
		}
		if len(f) < 6 || !strings.HasSuffix(f[1], "%") {
			continue
		}
		name := strings.Join(f[5:], " ")
		if i := strings.LastIndex(name, "/"); i >= 0 {
			name = name[i+1:] // the package's last element: short enough for a table cell
		}
		entries = append(entries, fmt.Sprintf("%s %s", strings.ReplaceAll(name, "|", `\|`), f[1]))
		if len(entries) == n {
			break
		}
	}
	return strings.Join(entries, "; ")
}
