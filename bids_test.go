package infergate

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
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
