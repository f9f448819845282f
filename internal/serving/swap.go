package serving

import "time"

// Swap is what the last swap of a Holder cost: Load, the reading of the
// version from the store (its TCGplayer history included) or of its
// snapshot artifact; Build, the building of its View (0 from an artifact). The metrics report them (cardcat_catalogue_*_seconds).
type Swap struct {
	Version     int64
	Load, Build time.Duration
}

// LastSwap is the Holder's last swap, the zero Swap before the first.
func (h *Holder) LastSwap() Swap {
	if s := h.swap.Load(); s != nil {
		return *s
	}
	return Swap{}
}
