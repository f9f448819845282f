// Package password hashes and checks the portal's account passwords: argon2id in the PHC string
// form, verification that honours each hash's own parameters, a dummy verification for unknown
// accounts, and the sign-up policy (length, common passwords, the email itself).
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"

	"golang.org/x/crypto/argon2"
)

// The argon2id parameters of new hashes. OWASP's password storage cheat sheet sets the floor at
// m=19 MiB, t=2, p=1; these spend 64 MiB (RFC 9106's second recommended memory size) and three
// passes, five times the floor's memory-time cost to an attacker, and still hash well under the
// 300 ms a login can spend on a 2-core machine. One lane: a login keeps the other core for the API.
const (
	MemoryKiB   = 64 * 1024
	Iterations  = 3
	Parallelism = 1
	SaltLength  = 16
	KeyLength   = 32
)

// ErrMalformedHash is returned by Verify for an encoding that is not an argon2id PHC string this
// package can check. It never carries the encoding itself, which must stay out of logs.
var ErrMalformedHash = errors.New("password: malformed argon2id hash")

// Limits on a stored encoding's parameters, so that a corrupted or planted row cannot make one
// login allocate gigabytes or run for minutes; each is well above the current parameters.
const (
	maxMemoryKiB   = 256 * 1024
	maxIterations  = 10
	maxParallelism = 16
	minSaltLength  = 8
	maxSaltLength  = 64
	minKeyLength   = 16
	maxKeyLength   = 64
)

type params struct {
	memoryKiB   uint32
	iterations  uint32
	parallelism uint8
}

var current = params{memoryKiB: MemoryKiB, iterations: Iterations, parallelism: Parallelism}

// hashSlots bounds the hashes running at once to the cores: each holds MemoryKiB of memory, and a
// burst of sign-ups or logins should queue, not exhaust the machine's memory.
var hashSlots = make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))

func derive(password string, salt []byte, p params, keyLen uint32) []byte {
	hashSlots <- struct{}{}
	defer func() { <-hashSlots }()
	return argon2.IDKey([]byte(password), salt, p.iterations, p.memoryKiB, p.parallelism, keyLen)
}

var b64 = base64.RawStdEncoding.Strict()

// Hash returns the argon2id hash of password with the current parameters and a random salt, as
// `$argon2id$v=19$m=65536,t=3,p=1$<salt>$<key>` (unpadded standard base64). It refuses a
// password longer than MaxBytes with ErrTooLong.
func Hash(password string) (string, error) {
	return hashWith(password, current)
}

func hashWith(password string, p params) (string, error) {
	if len(password) > MaxBytes {
		return "", ErrTooLong
	}
	salt := make([]byte, SaltLength)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password: salt: %w", err)
	}
	key := derive(password, salt, p, KeyLength)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.memoryKiB, p.iterations, p.parallelism, b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// Verify reports whether password matches encoded, hashing with the parameters, salt and key
// length written in encoded, so hashes made before a change of the constants keep working. A
// password longer than MaxBytes never matches (Hash refuses those) and is not hashed.
func Verify(password, encoded string) (ok bool, err error) {
	p, salt, key, err := decode(encoded)
	if err != nil {
		return false, err
	}
	if len(password) > MaxBytes {
		return false, nil
	}
	got := derive(password, salt, p, uint32(len(key)))
	return subtle.ConstantTimeCompare(got, key) == 1, nil
}

// dummyEncoded stands in for an account's hash in VerifyDummy: the current parameters, with a
// salt and key of zeros; what it holds does not matter, only that checking it is Verify's work.
var dummyEncoded = fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, MemoryKiB, Iterations, Parallelism,
	b64.EncodeToString(make([]byte, SaltLength)), b64.EncodeToString(make([]byte, KeyLength)))

// VerifyDummy does the work of Verify against a hash with the current parameters and discards
// the result. A login for an unknown email calls it so that its answer takes as long as one for
// a known email with a wrong password.
func VerifyDummy(password string) {
	_, _ = Verify(password, dummyEncoded)
}

// NeedsRehash reports whether encoded was made with other parameters than the current ones (or
// cannot be read), so that the portal can store a fresh Hash after a successful login.
func NeedsRehash(encoded string) bool {
	p, salt, key, err := decode(encoded)
	return err != nil || p != current || len(salt) != SaltLength || len(key) != KeyLength
}

func decode(encoded string) (p params, salt, key []byte, err error) {
	fields := strings.Split(encoded, "$")
	// encoding/base64 skips line breaks even in Strict mode; a stored hash has none.
	if strings.ContainsAny(encoded, "\r\n") || len(fields) != 6 || fields[0] != "" || fields[1] != "argon2id" {
		return p, nil, nil, ErrMalformedHash
	}
	version, ok := strings.CutPrefix(fields[2], "v=")
	if !ok || version != strconv.Itoa(argon2.Version) {
		return p, nil, nil, fmt.Errorf("%w: not version %d", ErrMalformedHash, argon2.Version)
	}
	costs := strings.Split(fields[3], ",")
	if len(costs) != 3 {
		return p, nil, nil, fmt.Errorf("%w: parameters are not m,t,p", ErrMalformedHash)
	}
	m, err := parseCost(costs[0], "m=", 8, maxMemoryKiB)
	if err != nil {
		return p, nil, nil, err
	}
	t, err := parseCost(costs[1], "t=", 1, maxIterations)
	if err != nil {
		return p, nil, nil, err
	}
	par, err := parseCost(costs[2], "p=", 1, maxParallelism)
	if err != nil {
		return p, nil, nil, err
	}
	// argon2 needs 8 KiB a lane; x/crypto would quietly round up instead of refusing.
	if m < 8*par {
		return p, nil, nil, fmt.Errorf("%w: memory below 8 KiB a lane", ErrMalformedHash)
	}
	p = params{memoryKiB: m, iterations: t, parallelism: uint8(par)}
	if salt, err = b64.DecodeString(fields[4]); err != nil || len(salt) < minSaltLength || len(salt) > maxSaltLength {
		return p, nil, nil, fmt.Errorf("%w: salt", ErrMalformedHash)
	}
	if key, err = b64.DecodeString(fields[5]); err != nil || len(key) < minKeyLength || len(key) > maxKeyLength {
		return p, nil, nil, fmt.Errorf("%w: key", ErrMalformedHash)
	}
	return p, salt, key, nil
}

func parseCost(field, prefix string, least, most uint32) (uint32, error) {
	digits, ok := strings.CutPrefix(field, prefix)
	if !ok {
		return 0, fmt.Errorf("%w: want %s", ErrMalformedHash, prefix)
	}
	n, err := strconv.ParseUint(digits, 10, 32)
	if err != nil || uint32(n) < least || uint32(n) > most {
		return 0, fmt.Errorf("%w: %s out of range [%d, %d]", ErrMalformedHash, prefix, least, most)
	}
	return uint32(n), nil
}
