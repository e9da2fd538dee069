package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const bidHex = "0xb1d0000000000000000000000000000000000000000000000000000000000001"

const contractBids = `{"bids":[
	{"bid_id":"` + bidHex + `","provider":"0xaaa","model_id":"` + llamaHex + `","price_per_second":"0.000125",
	 "rating":4.8,"total_sessions":1520,"availability":"available","min_duration":60,"max_duration":86400},
	{"bid_id":"0xb2","provider":"0xbbb","model_id":"` + llamaHex + `","price_per_second":0.0002,
	 "rating":"4.1","total_sessions":"12","availability":"maintenance","min_duration":"300","max_duration":3600}]}`

const deployedBids = `{"bids":[
	{"ID":"` + bidHex + `","Bid":{"Id":"` + bidHex + `","Provider":"0xaaa","ModelAgentId":"` + llamaHex + `",
	 "PricePerSecond":"125000000000000","Nonce":"3","CreatedAt":"1736000000","DeletedAt":"0"},"Score":0.73},
	{"ID":"0xb2","Bid":{"Id":"0xb2","Provider":"0xbbb","ModelAgentId":"` + llamaHex + `",
	 "PricePerSecond":200000000000000,"Nonce":"0","CreatedAt":1737000000,"DeletedAt":"0"},"Score":0.41}]}`

func TestBidsRated(t *testing.T) {
	t.Parallel()
	ratedbids := "/models/ratedbids?model_id=" + llamaHex
	tests := []struct {
		name      string
		model     string
		body      string
		want      []RatedBid
		wantCalls []catalogCall
	}{
		{
			name: "contract shape, hex id", model: llamaHex, body: contractBids,
			want: []RatedBid{
				{ID: bidHex, Provider: "0xaaa", ModelBlockchainID: llamaHex, PricePerSecond: mor(t, "0.000125"),
					Rating: 4.8, TotalSessions: 1520, Availability: AvailabilityAvailable,
					MinDuration: time.Minute, MaxDuration: 24 * time.Hour},
				{ID: "0xb2", Provider: "0xbbb", ModelBlockchainID: llamaHex, PricePerSecond: mor(t, "0.0002"),
					Rating: 4.1, TotalSessions: 12, Availability: "maintenance",
					MinDuration: 5 * time.Minute, MaxDuration: time.Hour},
			},
			wantCalls: []catalogCall{get(ratedbids)},
		},
		{
			name: "deployed pass-through shape, name resolved through the catalogue", model: "LLAMA-3.3-70B", body: deployedBids,
			want: []RatedBid{
				{ID: bidHex, Provider: "0xaaa", ModelBlockchainID: llamaHex, PricePerSecond: mor(t, "0.000125"),
					Score: 0.73, CreatedAt: time.Unix(1736000000, 0).UTC()},
				{ID: "0xb2", Provider: "0xbbb", ModelBlockchainID: llamaHex, PricePerSecond: mor(t, "0.0002"),
					Score: 0.41, CreatedAt: time.Unix(1737000000, 0).UTC()},
			},
			wantCalls: []catalogCall{modelsGet("/chat/models"), get(ratedbids)},
		},
		{
			name: "bare array, no bids", model: llamaHex, body: `[]`,
			want: []RatedBid{}, wantCalls: []catalogCall{get(ratedbids)},
		},
		{
			name: "null bids", model: llamaHex, body: `{"bids":null}`,
			want: nil, wantCalls: []catalogCall{get(ratedbids)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodGet, "/chat/models", 200, deployedCatalogue)
			m.on(http.MethodGet, ratedbids, 200, tt.body)
			got, err := m.client().Bids.Rated(t.Context(), tt.model)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("bids (-want +got):\n%s", diff)
			}
			m.expect(tt.wantCalls...)
		})
	}
}

func TestBidsRatedRefusesBeforeAsking(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, model, catalogue string
		wantValidation         bool
		wantNotFound           bool
	}{
		{name: "empty model", model: "", wantValidation: true},
		{name: "unknown name", model: "no-such-model", catalogue: deployedCatalogue, wantNotFound: true},
		{name: "listed without blockchain id", model: "gpt-x", catalogue: `{"data":[{"id":"gpt-x","object":"model"}]}`, wantNotFound: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newCatalogMock(t)
			m.on(http.MethodGet, "/chat/models", 200, tt.catalogue)
			_, err := m.client().Bids.Rated(t.Context(), tt.model)
			var verr *ValidationError
			if got := errors.As(err, &verr); got != tt.wantValidation {
				t.Errorf("err = %v; is a ValidationError: %v, want %v", err, got, tt.wantValidation)
			}
			if got := errors.Is(err, ErrNotFound); got != tt.wantNotFound {
				t.Errorf("err = %v; matches ErrNotFound: %v, want %v", err, got, tt.wantNotFound)
			}
			if n := m.mock.GetCallCountInfo()["GET "+catalogAPIRoot+"/models/ratedbids"]; n != 0 {
				t.Errorf("ratedbids was called %d times", n)
			}
		})
	}
}

func TestBidsErrorEnvelopes(t *testing.T) {
	t.Parallel()
	checkEnvelopes(t, map[string]func(context.Context, *Client) error{
		"Rated by hex":  func(ctx context.Context, c *Client) error { _, err := c.Bids.Rated(ctx, llamaHex); return err },
		"Rated by name": func(ctx context.Context, c *Client) error { _, err := c.Bids.Rated(ctx, "llama"); return err },
	})
}

func TestRatedBidRejectsBadNumbers(t *testing.T) {
	t.Parallel()
	for _, body := range []string{
		`{"bid_id":"0x1","price_per_second":"cheap"}`,
		`{"bid_id":"0x1","price_per_second":"1","min_duration":"soon"}`,
		`{"bid_id":"0x1","price_per_second":"1","total_sessions":1.5}`,
		`{"ID":"0x1","Bid":{"Id":"0x1","PricePerSecond":"1e-x"}}`,
		`{"ID":"0x1","Bid":{"Id":"0x1","PricePerSecond":"1","CreatedAt":"yesterday"}}`,
	} {
		var b RatedBid
		if err := json.Unmarshal([]byte(body), &b); err == nil {
			t.Errorf("Unmarshal(%s) = %+v, want an error", body, b)
		}
	}
}

func TestRatedBidJSONRoundTrip(t *testing.T) {
	t.Parallel()
	var bids struct{ Bids []RatedBid }
	for _, body := range []string{contractBids, deployedBids} {
		if err := json.Unmarshal([]byte(body), &bids); err != nil {
			t.Fatal(err)
		}
		out, err := json.Marshal(bids.Bids)
		if err != nil {
			t.Fatal(err)
		}
		var back []RatedBid
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(bids.Bids, back); diff != "" {
			t.Errorf("round trip through %s (-want +got):\n%s", out, diff)
		}
	}
}

func TestRatedBidCost(t *testing.T) {
	t.Parallel()
	bid := RatedBid{PricePerSecond: mor(t, "0.000125")}
	tests := []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "0.45 MOR"}, {90*time.Second + 999*time.Millisecond, "0.01125 MOR"}, {time.Millisecond, "0 MOR"},
		{-time.Hour, "0 MOR"}, {365 * 24 * time.Hour, "3942 MOR"},
	}
	for _, tt := range tests {
		if got := bid.Cost(tt.d).String(); got != tt.want {
			t.Errorf("Cost(%v) = %s, want %s", tt.d, got, tt.want)
		}
	}
}

func BenchmarkDecodeDeployedBids(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		out := listOf[RatedBid]{field: "bids"}
		if err := json.Unmarshal([]byte(deployedBids), &out); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBidDurationsClamped reads durations too long for a Duration, or negative: never a negative or
// wrapped Duration.
func TestBidDurationsClamped(t *testing.T) {
	t.Parallel()
	var bid RatedBid
	body := `{"bid_id":"b","price_per_second":"1","min_duration":-5,"max_duration":9223372036854775807}`
	if err := json.Unmarshal([]byte(body), &bid); err != nil {
		t.Fatal(err)
	}
	if bid.MinDuration != 0 || bid.MaxDuration != math.MaxInt64 {
		t.Errorf("durations %v and %v, want 0 and the longest Duration", bid.MinDuration, bid.MaxDuration)
	}
	if err := json.Unmarshal([]byte(`{"min_duration":9999999999999,"max_duration":"9223372036"}`), &bid); err != nil {
		t.Fatal(err)
	}
	if bid.MinDuration != math.MaxInt64 || bid.MaxDuration != 9223372036*time.Second {
		t.Errorf("durations %v and %v", bid.MinDuration, bid.MaxDuration)
	}
}

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
