package infergate

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// contractBid is a bid in the API contract's shape.
func contractBid(t testing.TB, id string, rating float64, price string, availability Availability) RatedBid {
	return RatedBid{ID: id, Rating: rating, PricePerSecond: mor(t, price), Availability: availability}
}

// passThroughBid is a bid in the marketplace's pass-through shape; created is Unix seconds, 0 for none.
func passThroughBid(t testing.TB, id string, score float64, price string, created int64) RatedBid {
	b := RatedBid{ID: id, Score: score, PricePerSecond: mor(t, price)}
	if created != 0 {
		b.CreatedAt = time.Unix(created, 0).UTC()
	}
	return b
}

func bidIDs(bids []RatedBid) []string {
	ids := make([]string, len(bids))
	for i, b := range bids {
		ids[i] = b.ID
	}
	return ids
}

func TestRankBids(t *testing.T) {
	t.Parallel()
	c, p := contractBid, passThroughBid
	tests := []struct {
		name         string
		bids         []RatedBid
		wantRank     []string
		wantBest     string // "" when no bid qualifies
		wantCheapest string
	}{
		{
			name: "contract: available or unreported before busy and offline, whatever the rating",
			bids: []RatedBid{c(t, "busy", 5, "0.1", AvailabilityBusy), c(t, "off", 4.9, "0.1", AvailabilityOffline),
				c(t, "ok", 3, "0.1", AvailabilityAvailable), c(t, "unsaid", 2, "0.1", ""), c(t, "odd", 4, "0.1", "maintenance")},
			wantRank: []string{"ok", "unsaid", "busy", "off", "odd"}, wantBest: "ok", wantCheapest: "ok",
		},
		{
			name:     "contract: the higher rating wins over the lower price",
			bids:     []RatedBid{c(t, "cheap", 4.1, "0.0001", AvailabilityAvailable), c(t, "good", 4.8, "0.0009", AvailabilityAvailable)},
			wantRank: []string{"good", "cheap"}, wantBest: "good", wantCheapest: "cheap",
		},
		{
			name:     "contract: same rating, lower price first",
			bids:     []RatedBid{c(t, "dear", 4.5, "0.0002", AvailabilityAvailable), c(t, "cheap", 4.5, "0.00015", AvailabilityAvailable)},
			wantRank: []string{"cheap", "dear"}, wantBest: "cheap", wantCheapest: "cheap",
		},
		{
			name:     "contract: a full tie keeps the server's order",
			bids:     []RatedBid{c(t, "first", 4.5, "0.0002", AvailabilityAvailable), c(t, "second", 4.5, "0.00020", AvailabilityAvailable)},
			wantRank: []string{"first", "second"}, wantBest: "first", wantCheapest: "first",
		},
		{
			name:     "pass-through: sent unsorted, the higher score first",
			bids:     []RatedBid{p(t, "low", 0.41, "0.0001", 1737000000), p(t, "high", 0.73, "0.000125", 1736000000)},
			wantRank: []string{"high", "low"}, wantBest: "high", wantCheapest: "low",
		},
		{
			name: "pass-through: same score, lower price, then the older bid, then one with no date",
			bids: []RatedBid{p(t, "undated", 0.5, "0.0001", 0), p(t, "newer", 0.5, "0.0001", 1737000000),
				p(t, "dear", 0.5, "0.0003", 1000), p(t, "older", 0.5, "0.0001", 1736000000)},
			wantRank: []string{"older", "newer", "undated", "dear"}, wantBest: "older", wantCheapest: "older",
		},
		{
			name:     "pass-through: a full tie keeps the server's order",
			bids:     []RatedBid{p(t, "first", 0.5, "0.0001", 1736000000), p(t, "second", 0.5, "0.0001", 1736000000)},
			wantRank: []string{"first", "second"}, wantBest: "first", wantCheapest: "first",
		},
		{
			name:     "mixed shapes: a rating and a score are never compared; rated bids come first",
			bids:     []RatedBid{p(t, "score9", 9, "0.0001", 1), c(t, "rated1", 1, "0.0009", ""), c(t, "rated2", 2, "0.0009", "")},
			wantRank: []string{"rated2", "rated1", "score9"}, wantBest: "rated2", wantCheapest: "score9",
		},
		{
			name: "the cheapest of equal prices is the better ranked; busy bids are never picked",
			bids: []RatedBid{c(t, "busy-cheap", 5, "0.00001", AvailabilityBusy), c(t, "low", 3, "0.0001", AvailabilityAvailable),
				c(t, "high", 4, "0.0001", AvailabilityAvailable), c(t, "top", 5, "0.001", AvailabilityAvailable)},
			wantRank: []string{"top", "high", "low", "busy-cheap"}, wantBest: "top", wantCheapest: "high",
		},
		{
			name:     "none available",
			bids:     []RatedBid{c(t, "off", 5, "0.1", AvailabilityOffline), c(t, "busy", 4, "0.1", AvailabilityBusy)},
			wantRank: []string{"off", "busy"},
		},
		{
			name:     "an unreadable rating ranks last among its peers",
			bids:     []RatedBid{c(t, "nan", math.NaN(), "0.0001", ""), c(t, "zero", 0, "0.0002", "")},
			wantRank: []string{"zero", "nan"}, wantBest: "zero", wantCheapest: "nan",
		},
		{name: "no bids", bids: nil, wantRank: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := bidIDs(tt.bids)
			if diff := cmp.Diff(tt.wantRank, bidIDs(RankBids(tt.bids))); diff != "" {
				t.Errorf("RankBids (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, bidIDs(tt.bids)); diff != "" {
				t.Errorf("RankBids reordered its argument (-want +got):\n%s", diff)
			}
			best, ok := BestBid(tt.bids)
			if best.ID != tt.wantBest || ok != (tt.wantBest != "") {
				t.Errorf("BestBid = %q, %v; want %q", best.ID, ok, tt.wantBest)
			}
			cheapest, ok := CheapestBid(tt.bids)
			if cheapest.ID != tt.wantCheapest || ok != (tt.wantCheapest != "") {
				t.Errorf("CheapestBid = %q, %v; want %q", cheapest.ID, ok, tt.wantCheapest)
			}
		})
	}
}

// randomBid draws a bid of either shape, with values that collide often so that ties are tested.
func randomBid(t testing.TB, rng *rand.Rand, i int) RatedBid {
	availabilities := []Availability{"", AvailabilityAvailable, AvailabilityBusy, AvailabilityOffline, "maintenance"}
	price := strconv.Itoa(rng.IntN(4)) + "e-5"
	if rng.IntN(2) == 0 {
		return contractBid(t, strconv.Itoa(i), []float64{0, 3.5, 4.8, math.NaN()}[rng.IntN(4)], price,
			availabilities[rng.IntN(len(availabilities))])
	}
	return passThroughBid(t, strconv.Itoa(i), float64(rng.IntN(3))/4, price, int64(rng.IntN(3))*1e9)
}

// TestCompareBidsIsAnOrder checks, over random bids of both shapes, what sorting relies on: the
// comparison is antisymmetric and transitive, RankBids sorts by it keeping ties in order, and
// BestBid and CheapestBid agree with the ranking.
func TestCompareBidsIsAnOrder(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(7, 21))
	for round := range 300 {
		bids := make([]RatedBid, 1+rng.IntN(8))
		for i := range bids {
			bids[i] = randomBid(t, rng, i)
		}
		for _, a := range bids {
			for _, b := range bids {
				if sign(CompareBids(a, b)) != -sign(CompareBids(b, a)) {
					t.Fatalf("round %d: CompareBids(%+v, %+v) is not antisymmetric", round, a, b)
				}
				for _, c := range bids {
					if CompareBids(a, b) <= 0 && CompareBids(b, c) <= 0 && CompareBids(a, c) > 0 {
						t.Fatalf("round %d: not transitive over %+v, %+v, %+v", round, a, b, c)
					}
				}
			}
		}
		ranked := RankBids(bids)
		for i := 1; i < len(ranked); i++ {
			c := CompareBids(ranked[i-1], ranked[i])
			if c > 0 || (c == 0 && mustAtoi(t, ranked[i-1].ID) > mustAtoi(t, ranked[i].ID)) {
				t.Fatalf("round %d: ranked out of order at %d: %v", round, i, bidIDs(ranked))
			}
		}
		best, ok := BestBid(bids)
		first := slices.IndexFunc(ranked, func(b RatedBid) bool { return availabilityRank(b) == 0 })
		if ok != (first >= 0) || (ok && best.ID != ranked[first].ID) {
			t.Fatalf("round %d: BestBid = %q, %v; ranking %v", round, best.ID, ok, bidIDs(ranked))
		}
		if cheapest, ok := CheapestBid(bids); ok {
			for _, b := range bids {
				if availabilityRank(b) == 0 && b.PricePerSecond.Amount.Cmp(cheapest.PricePerSecond.Amount) < 0 {
					t.Fatalf("round %d: CheapestBid = %s at %s, but %s is at %s", round, cheapest.ID,
						cheapest.PricePerSecond, b.ID, b.PricePerSecond)
				}
			}
		}
	}
}

func sign(n int) int { return min(max(n, -1), 1) }

func mustAtoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
