package memory

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/cardcat/cardcat/internal/blob"
	"github.com/cardcat/cardcat/internal/ratelimit"
)

// stateVersion is written into the state file so that a later format can tell
// an old file from a corrupt one.
const stateVersion = 1

// stateFile is the state file's JSON. Windows are numbered as in
// ratelimit.Period (hours and days since the Unix epoch), which is exact and
// needs no time parsing on load.
type stateFile struct {
	Version int         `json:"version"`
	Pools   []poolState `json:"pools"`
}

type poolState struct {
	Key      string `json:"key"`
	Hour     int64  `json:"hour"`
	HourUsed int64  `json:"hour_used"`
	Day      int64  `json:"day"`
	DayUsed  int64  `json:"day_used"`
}

// load fills the shards from the state file, leaving out the days that ended.
func (l *Limiter) load() error {
	data, err := os.ReadFile(l.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("memory: load rate-limit state: %w", err)
	}
	var st stateFile
	decodeErr := json.Unmarshal(data, &st)
	if decodeErr == nil && st.Version != stateVersion {
		decodeErr = fmt.Errorf("unknown state version %d", st.Version)
	}
	if decodeErr != nil {
		l.setAside(decodeErr)
		return nil
	}

	today := ratelimit.PeriodAt(l.now()).Day
	for _, ps := range st.Pools {
		if ps.Day < today || ps.HourUsed < 0 || ps.DayUsed < 0 {
			continue
		}
		s := &l.shards[l.shardIndex(ps.Key)]
		s.pools[ps.Key] = &counter{hour: ps.Hour, hourUsed: ps.HourUsed, day: ps.Day, dayUsed: ps.DayUsed}
	}
	return nil
}

// setAside keeps an undecodable state file for inspection instead of letting
// the next save overwrite the evidence.
func (l *Limiter) setAside(cause error) {
	aside := l.path + ".corrupt"
	if err := os.Rename(l.path, aside); err != nil {
		l.logger.Warn("rate-limit state file is corrupt; starting with empty counters", "path", l.path, "err", cause, "rename_err", err)
		return
	}
	l.logger.Warn("rate-limit state file is corrupt; starting with empty counters", "path", l.path, "err", cause, "moved_to", aside)
}

// save writes every pool to the state file when any shard changed since the
// last save. The caller holds saveMu.
func (l *Limiter) save() error {
	changed := l.mustSave
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		changed = changed || s.dirty
		s.mu.Unlock()
	}
	if !changed {
		return nil
	}

	st := stateFile{Version: stateVersion}
	for i := range l.shards {
		s := &l.shards[i]
		s.mu.Lock()
		for key, c := range s.pools {
			st.Pools = append(st.Pools, poolState{Key: key, Hour: c.hour, HourUsed: c.hourUsed, Day: c.day, DayUsed: c.dayUsed})
		}
		s.dirty = false
		s.mu.Unlock()
	}
	if err := writeFileAtomic(l.path, &st); err != nil {
		l.mustSave = true // the shards are clean now, but the file is not
		return fmt.Errorf("memory: save rate-limit state: %w", err)
	}
	l.mustSave = false
	return nil
}

// writeFileAtomic replaces path with the encoding of v so that a crash at any
// moment leaves either the old file or the new one, never a torn one
// (blob.WriteFile).
func writeFileAtomic(path string, v any) error {
	return blob.WriteFile(path, 0o600, func(f *os.File) error {
		w := bufio.NewWriterSize(f, 64<<10)
		if err := json.NewEncoder(w).Encode(v); err != nil {
			return err
		}
		return w.Flush()
	})
}
