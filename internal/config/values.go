package config

import (
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/cardcat/cardcat/internal/schedule"
)

// A value is a setting's parser and type: how its text (a default, a
// variable, a flag) becomes its field of a Config, and how that field is
// written back (`cardcat config`).
type value interface {
	// set parses s into c's field; again: a flag given once more, which
	// adds to a list instead of replacing it.
	set(c *Config, s string, again bool) error
	get(c *Config) string
	isBool() bool
	// typeName names the flag's argument in --help ("duration"); empty
	// for a bool.
	typeName() string
}

// field is a value of type T held at a field of Config.
type field[T any] struct {
	at     func(*Config) *T
	parse  func(string) (T, error)
	format func(T) string
	add    func(T, T) T // nil: a flag given again replaces
	// flagBool: the flag takes no value (--admin-allow-public means true).
	flagBool bool
	typ      string // the argument's name in --help
}

func (f field[T]) set(c *Config, s string, again bool) error {
	v, err := f.parse(s)
	if err != nil {
		return err
	}
	p := f.at(c)
	if again && f.add != nil {
		v = f.add(*p, v)
	}
	*p = v
	return nil
}

func (f field[T]) get(c *Config) string { return f.format(*f.at(c)) }

func (f field[T]) isBool() bool { return f.flagBool }

func (f field[T]) typeName() string { return f.typ }

func text(at func(*Config) *string) value {
	return field[string]{at: at, typ: "string", parse: func(s string) (string, error) { return s, nil }, format: func(s string) string { return s }}
}

// baseURL is a URL written without its trailing slashes.
func baseURL(at func(*Config) *string) value {
	return field[string]{at: at, typ: "url", parse: func(s string) (string, error) { return strings.TrimRight(s, "/"), nil }, format: func(s string) string { return s }}
}

// textOf is text whose flag argument --help names typ ("email-or-url"),
// checked by the part it configures (in cmd/cardcat, with Config.Invalid).
func textOf(typ string, at func(*Config) *string) value {
	return field[string]{at: at, typ: typ, parse: func(s string) (string, error) { return s, nil }, format: func(s string) string { return s }}
}

func boolean(at func(*Config) *bool) value {
	return field[bool]{at: at, parse: parseBool, format: strconv.FormatBool, flagBool: true}
}

func parseBool(s string) (bool, error) {
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("want true or false, got %q", s)
	}
	return b, nil
}

// optionalBool is a bool that may be unset (nil).
func optionalBool(at func(*Config) **bool) value {
	return field[*bool]{at: at, typ: "bool",
		parse: func(s string) (*bool, error) {
			b, err := parseBool(s)
			return &b, err
		},
		format: func(b *bool) string {
			if b == nil {
				return ""
			}
			return strconv.FormatBool(*b)
		}}
}

func duration(at func(*Config) *time.Duration) value {
	return field[time.Duration]{at: at, typ: "duration", format: time.Duration.String, parse: func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil {
			return 0, fmt.Errorf("want a duration like 30s, got %q", s)
		}
		return d, nil
	}}
}

func positiveDuration(at func(*Config) *time.Duration) value {
	return field[time.Duration]{at: at, typ: "duration", format: time.Duration.String, parse: func(s string) (time.Duration, error) {
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("want a positive duration like 30s, got %q", s)
		}
		return d, nil
	}}
}

// integer is an integer that check accepts; want says which ones.
func integer[T int | int64](at func(*Config) *T, check func(T) bool, want string) value {
	return field[T]{at: at, typ: "int", format: func(n T) string { return strconv.FormatInt(int64(n), 10) }, parse: func(s string) (T, error) {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || !check(T(n)) || int64(T(n)) != n {
			return 0, fmt.Errorf("want %s, got %q", want, s)
		}
		return T(n), nil
	}}
}

func positive[T int | int64](n T) bool { return n > 0 }

func unsigned(at func(*Config) *uint64) value {
	return field[uint64]{at: at, typ: "uint", format: func(n uint64) string { return strconv.FormatUint(n, 10) }, parse: func(s string) (uint64, error) {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("want a non-negative integer, got %q", s)
		}
		return n, nil
	}}
}

// times is a list of UTC times of day; a flag given again adds its times.
func times(at func(*Config) *schedule.Times) value {
	return field[schedule.Times]{at: at, typ: "HH:MM", parse: schedule.ParseTimes, format: schedule.Times.String, add: schedule.Times.Add}
}

// logLevel is lenient, as logging is set up before anything can be
// refused: an unknown level is info.
func logLevel(at func(*Config) *slog.Level) value {
	return field[slog.Level]{at: at, typ: "level",
		parse: func(s string) (slog.Level, error) {
			switch strings.ToLower(s) {
			case "debug":
				return slog.LevelDebug, nil
			case "warn":
				return slog.LevelWarn, nil
			case "error":
				return slog.LevelError, nil
			}
			return slog.LevelInfo, nil
		},
		format: func(l slog.Level) string { return strings.ToLower(l.String()) }}
}

// logFormat is json, or else text (lenient, as logLevel).
func logFormat(at func(*Config) *bool) value {
	return field[bool]{at: at, typ: "format",
		parse: func(s string) (bool, error) { return strings.EqualFold(s, "json"), nil },
		format: func(json bool) string {
			if json {
				return "json"
			}
			return "text"
		}}
}
