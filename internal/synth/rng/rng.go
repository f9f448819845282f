// Package rng holds synth's deterministic random streams. Every group,
// product and price of a generated mirror draws from a stream of its own,
// named by a tag and ids, so that the output depends only on the seed: not
// on the order (or the parallelism) in which things are generated, and
// adding a draw for one product never shifts another product's values.
package rng

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Stream is a deterministic random stream: a PCG seeded from the run's seed
// and a key naming what the stream is for ("tcg price of product 123, Foil").
type Stream struct{ p rand.PCG }

// New returns the stream of tag and ids under seed. It is a value so that
// the millions of short-lived streams of a large run stay on the stack.
func New(seed uint64, tag string, ids ...int) Stream {
	var r Stream
	r.p.Seed(seed, Key(tag, ids...))
	return r
}

// Key hashes a tag and ids with FNV-1a (64 bit).
func Key(tag string, ids ...int) uint64 {
	const offset, prime = 14695981039346656037, 1099511628211
	h := uint64(offset)
	for i := 0; i < len(tag); i++ {
		h ^= uint64(tag[i])
		h *= prime
	}
	for _, id := range ids {
		v := uint64(id)
		for b := 0; b < 8; b++ {
			h ^= v & 0xff
			h *= prime
			v >>= 8
		}
	}
	return h
}

// Float returns a value in [0, 1).
func (r *Stream) Float() float64 { return float64(r.p.Uint64()>>11) / (1 << 53) }

// Intn returns a value in [0, n); n must be > 0.
func (r *Stream) Intn(n int) int {
	if n <= 0 {
		panic("rng: Intn of non-positive bound")
	}
	hi, _ := bits.Mul64(r.p.Uint64(), uint64(n)) // Lemire's bounded draw, without the rejection step
	return int(hi)
}

// Between returns an int in [lo, hi].
func (r *Stream) Between(lo, hi int) int { return lo + r.Intn(hi-lo+1) }

// Uniform returns a float in [lo, hi).
func (r *Stream) Uniform(lo, hi float64) float64 { return lo + (hi-lo)*r.Float() }

// Chance reports true with probability p.
func (r *Stream) Chance(p float64) bool { return r.Float() < p }

// Normal returns a standard normal value (Box-Muller).
func (r *Stream) Normal() float64 {
	u1 := 1 - r.Float() // (0, 1]
	u2 := r.Float()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// LogNormal returns a positive value whose median is median.
func (r *Stream) LogNormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*r.Normal())
}

// Geometric returns the number of daily trials up to and including the first
// success of a trial with probability p (1, 2, ...).
func (r *Stream) Geometric(p float64) int {
	u := 1 - r.Float() // (0, 1]
	n := int(math.Floor(math.Log(u)/math.Log1p(-p))) + 1
	if n < 1 {
		n = 1
	}
	return n
}

// Pick returns one of xs.
func Pick[T any](r *Stream, xs []T) T { return xs[r.Intn(len(xs))] }

// Perm returns a random permutation of 0..n-1.
func (r *Stream) Perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
