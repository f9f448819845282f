package synth

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// rng is a deterministic random stream: a PCG seeded from the run's seed and
// a key naming what the stream is for ("tcg price of product 123, Foil"). Every
// group, product and price draws from its own stream, so the output does not
// depend on the order (or the parallelism) in which things are generated, and
// adding a draw for one product never shifts another product's values.
type rng struct{ p rand.PCG }

// newRNG returns the stream of tag and ids under seed. It is a value so that
// the millions of short-lived streams of a large run stay on the stack.
func newRNG(seed uint64, tag string, ids ...int) rng {
	var r rng
	r.p.Seed(seed, streamKey(tag, ids...))
	return r
}

// streamKey hashes a tag and ids with FNV-1a (64 bit).
func streamKey(tag string, ids ...int) uint64 {
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

// float returns a value in [0, 1).
func (r *rng) float() float64 { return float64(r.p.Uint64()>>11) / (1 << 53) }

// intn returns a value in [0, n); n must be > 0.
func (r *rng) intn(n int) int {
	if n <= 0 {
		panic("synth: intn of non-positive bound")
	}
	hi, _ := bits.Mul64(r.p.Uint64(), uint64(n)) // Lemire's bounded draw, without the rejection step
	return int(hi)
}

// between returns an int in [lo, hi].
func (r *rng) between(lo, hi int) int { return lo + r.intn(hi-lo+1) }

// uniform returns a float in [lo, hi).
func (r *rng) uniform(lo, hi float64) float64 { return lo + (hi-lo)*r.float() }

// chance reports true with probability p.
func (r *rng) chance(p float64) bool { return r.float() < p }

// normal returns a standard normal value (Box-Muller).
func (r *rng) normal() float64 {
	u1 := 1 - r.float() // (0, 1]
	u2 := r.float()
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// logNormal returns a positive value whose median is median.
func (r *rng) logNormal(median, sigma float64) float64 {
	return median * math.Exp(sigma*r.normal())
}

// geometric returns the number of daily trials up to and including the first
// success of a trial with probability p (1, 2, ...).
func (r *rng) geometric(p float64) int {
	u := 1 - r.float() // (0, 1]
	n := int(math.Floor(math.Log(u)/math.Log1p(-p))) + 1
	if n < 1 {
		n = 1
	}
	return n
}

func pick[T any](r *rng, xs []T) T { return xs[r.intn(len(xs))] }

// perm returns a random permutation of 0..n-1.
func (r *rng) perm(n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i
	}
	for i := n - 1; i > 0; i-- {
		j := r.intn(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}
