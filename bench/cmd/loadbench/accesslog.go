package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"time"
)

// accessDurations reads the durations of the access log lines that cardcat
// serve wrote to the log file at path from offset on (text format:
// "... msg=request ... duration=1.234ms ..."): each request's time inside
// the server, from its first middleware to its answer written, without the
// kernel's queues and the load generator's own time. Lines of other kinds
// are skipped.
func accessDurations(path string, offset int64) ([]time.Duration, error) {
	var out []time.Duration
	err := eachLine(path, offset, func(line []byte) {
		if d, ok := accessDuration(line); ok {
			out = append(out, d)
		}
	})
	return out, err
}

// keepServerLines appends to dst the lines of the log at path that are not
// access log lines: serve's own (start, snapshots, jobs, warnings).
func keepServerLines(path, dst string) error {
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(out)
	err = eachLine(path, 0, func(line []byte) {
		if !bytes.Contains(line, accessMarker) {
			w.Write(line)
			w.WriteByte('\n')
		}
	})
	err = errors.Join(err, w.Flush())
	return errors.Join(err, out.Close())
}

// eachLine calls fn with each line of the file at path from offset on.
func eachLine(path string, offset int64, fn func(line []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return err
	}
	sc := bufio.NewScanner(bufio.NewReaderSize(f, 1<<20))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		fn(sc.Bytes())
	}
	return sc.Err()
}

var (
	accessMarker   = []byte(" msg=request ")
	durationMarker = []byte(" duration=")
)

// accessDuration is the duration of one access log line.
func accessDuration(line []byte) (time.Duration, bool) {
	if !bytes.Contains(line, accessMarker) {
		return 0, false
	}
	i := bytes.Index(line, durationMarker)
	if i < 0 {
		return 0, false
	}
	v := line[i+len(durationMarker):]
	if j := bytes.IndexByte(v, ' '); j >= 0 {
		v = v[:j]
	}
	d, err := time.ParseDuration(string(v))
	return d, err == nil
}
