//go:build unix

package serving

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cardcat/cardcat/internal/game"
)

// cpuTime is the process's CPU time so far, user and system: on a shared
// machine wall time says more about the neighbours than about the code.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkReadArtifact reads an artifact in place (mapped, where the
// system maps files) and copied (read through the file), the fixture's or
// CARDCAT_BENCH_ARTIFACT=path:version's (e.g. one of a loadbench -keep work
// directory's data/snapshots).
func BenchmarkReadArtifact(b *testing.B) {
	path, version := filepath.Join(b.TempDir(), "1.snap"), int64(1)
	if env := os.Getenv("CARDCAT_BENCH_ARTIFACT"); env != "" {
		p, v, ok := strings.Cut(env, ":")
		n, err := strconv.ParseInt(v, 10, 64)
		if !ok || err != nil {
			b.Fatalf("CARDCAT_BENCH_ARTIFACT=%q: want path:version", env)
		}
		path, version = p, n
	} else if err := os.WriteFile(path, fixtureArtifact(b), 0o644); err != nil {
		b.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	reg := game.Default()
	b.Run("mapped", func(b *testing.B) {
		b.SetBytes(fi.Size())
		cpu := cpuTime()
		for b.Loop() {
			if _, err := ReadArtifact(path, reg, version); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
	b.Run("copied", func(b *testing.B) {
		b.SetBytes(fi.Size())
		cpu := cpuTime()
		for b.Loop() {
			f, err := os.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			_, err = readArtifact(f, fi.Size(), reg, version, nil)
			f.Close()
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	})
}
