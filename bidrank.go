package infergate

import (
	"cmp"
	"slices"
	"strings"
	"time"
)

// CompareBids ranks two bids the same way whichever shape the gateway sent them in. It returns a
// negative number when a is the better bid, a positive one when b is, and 0 when neither is: use it
// with slices.SortStableFunc, or let RankBids do so. The criteria, in order:
//
//  1. availability: available, or not reported (the pass-through shape never reports it), before
//     busy, offline or anything else;
//  2. the higher Rating (the contract's shape), then the higher Score (the marketplace's
//     pass-through shape). A list from the gateway holds one shape, so only one of the two differs
//     between its bids; in a list mixing shapes, rated bids come first, as a Rating and a Score are
//     on different scales and never compared with each other;
//  3. the lower PricePerSecond (prices in different currencies, which no answer of the gateway
//     mixes, are ordered by currency name instead, as no exchange rate exists to compare them);
//  4. the older bid (CreatedAt); a bid that does not say when it was placed comes after one that does.
func CompareBids(a, b RatedBid) int {
	if c := cmp.Compare(availabilityRank(a), availabilityRank(b)); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Rating, a.Rating); c != 0 {
		return c
	}
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	if c := comparePrices(a.PricePerSecond, b.PricePerSecond); c != 0 {
		return c
	}
	return compareAge(a.CreatedAt, b.CreatedAt)
}

// RankBids returns the bids best first, as CompareBids ranks them; bids that rank the same keep
// their order. bids itself is left as it is.
func RankBids(bids []RatedBid) []RatedBid {
	ranked := slices.Clone(bids)
	slices.SortStableFunc(ranked, CompareBids)
	return ranked
}

// BestBid returns the best of the bids that can take a session, as CompareBids ranks them: those
// available or not reporting availability. ok is false when no bid qualifies. Of bids that rank
// the same, the first in the list is returned.
func BestBid(bids []RatedBid) (best RatedBid, ok bool) {
	return pickBid(bids, CompareBids)
}

// CheapestBid returns the bid with the lowest PricePerSecond of those that can take a session
// (available, or not reporting availability as bids in the pass-through shape do not). Of bids with
// the same price, the better one as CompareBids ranks them is returned. ok is false when no bid
// qualifies.
func CheapestBid(bids []RatedBid) (cheapest RatedBid, ok bool) {
	return pickBid(bids, func(a, b RatedBid) int {
		if c := comparePrices(a.PricePerSecond, b.PricePerSecond); c != 0 {
			return c
		}
		return CompareBids(a, b)
	})
}

// pickBid returns the first of the qualifying bids that no later one beats by compare.
func pickBid(bids []RatedBid, compare func(a, b RatedBid) int) (RatedBid, bool) {
	var best RatedBid
	ok := false
	for _, b := range bids {
		if availabilityRank(b) == 0 && (!ok || compare(b, best) < 0) {
			best, ok = b, true
		}
	}
	return best, ok
}

// availabilityRank is 0 for a bid that can take a session now, as far as the gateway says, else 1.
func availabilityRank(b RatedBid) int {
	if b.Availability == AvailabilityAvailable || b.Availability == "" {
		return 0
	}
	return 1
}

func comparePrices(a, b Money) int {
	if a.Currency != b.Currency {
		return strings.Compare(string(a.Currency), string(b.Currency))
	}
	return a.Amount.Cmp(b.Amount)
}

// compareAge puts the older time first, and an unknown (zero) time after any known one.
func compareAge(a, b time.Time) int {
	if a.IsZero() != b.IsZero() {
		if a.IsZero() {
			return 1
		}
		return -1
	}
	return a.Compare(b)
}
