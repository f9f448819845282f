// Package prefetch asks the processor for a cache line ahead of its read,
// without waiting for it: a request that will copy a card's body out of a
// large catalogue (cache misses) starts the misses when it finds the card,
// then makes its headers while the lines arrive (bench/README.md,
// "Prefetching a card's lines"). Where this package has no instruction for
// the architecture, At does nothing.
package prefetch
