package infergate

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jarcoal/httpmock"
)

func TestBillingBalanceIsExact(t *testing.T) {
	t.Parallel()
	body := `{"paid":{"posted_balance":"25.10","pending_holds":"-0.000000000000000001","available":"25.099999999999999999"},
		"staking":{"daily_amount":"10","refresh_date":"2025-10-15","available":"7.5"},
		"total_available":"32.599999999999999999","is_staker":true,"allow_overage":false,"currency":"USD"}`
	mock, _ := recordAll(t, 200, body, "application/json")
	got, err := mockClient(t, mock).Billing.Balance(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := &Balance{
		Paid: PaidBalance{PostedBalance: usd(t, "25.1"), PendingHolds: usd(t, "-0.000000000000000001"),
			Available: usd(t, "25.099999999999999999")},
		Staking: StakingBalance{DailyAmount: usd(t, "10"), RefreshDate: time.Date(2025, 10, 15, 0, 0, 0, 0, time.UTC),
			Available: usd(t, "7.5")},
		TotalAvailable: usd(t, "32.599999999999999999"), IsStaker: true, Currency: "USD",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("balance (-want +got):\n%s", diff)
	}
	if sum, err := got.Paid.Available.Add(got.Staking.Available); err != nil || !sum.Equal(got.TotalAvailable) {
		t.Errorf("paid + staking = %s, %v; total %s", sum, err, got.TotalAvailable)
	}
}

func TestBillingBalanceRefreshDateForms(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]time.Time{
		`null`:                        {},
		`"2025-10-15T06:00:00"`:       time.Date(2025, 10, 15, 6, 0, 0, 0, time.UTC),
		`"2025-10-15T08:00:00+02:00"`: time.Date(2025, 10, 15, 6, 0, 0, 0, time.UTC),
	} {
		var b Balance
		if err := json.Unmarshal([]byte(`{"staking":{"refresh_date":`+raw+`}}`), &b); err != nil || !b.Staking.RefreshDate.Equal(want) {
			t.Errorf("%s: got %v, %v; want %v", raw, b.Staking.RefreshDate, err, want)
		}
	}
	var b Balance
	if err := json.Unmarshal([]byte(`{"staking":{"refresh_date":"yesterday"}}`), &b); err == nil {
		t.Error("an unreadable date was accepted")
	}
}

// usageServer pages through records the way the gateway does, with hooks to misbehave.
type usageServer struct {
	mu       sync.Mutex
	records  []string // ids, newest first
	requests []string // the offsets asked for
	// before runs before each page is cut, e.g. to insert records as a live account would.
	before func(u *usageServer, offset int)
	// ignoreOffset answers every request with the first page.
	ignoreOffset bool
	// alwaysMore claims has_more whatever the page holds.
	alwaysMore bool
}

func (u *usageServer) responder(req *http.Request) (*http.Response, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	q := req.URL.Query()
	limit, _ := strconv.Atoi(q.Get("limit"))
	offset, _ := strconv.Atoi(q.Get("offset"))
	u.requests = append(u.requests, q.Get("offset"))
	if u.before != nil {
		u.before(u, offset)
	}
	if u.ignoreOffset {
		offset = 0
	}
	page := u.records[min(offset, len(u.records)):min(offset+limit, len(u.records))]
	items := make([]string, len(page))
	for i, id := range page {
		items[i] = fmt.Sprintf(`{"id":%q,"created_at":"2025-10-15T12:00:00.000001","amount_total":"0.001","tokens_total":null}`, id)
	}
	more := u.alwaysMore || offset+len(page) < len(u.records)
	body := fmt.Sprintf(`{"items":[%s],"total":%d,"limit":%d,"offset":%d,"has_more":%v}`,
		strings.Join(items, ","), len(u.records), limit, offset, more)
	return httpmock.NewStringResponse(200, body), nil
}

func ids(n int, prefix string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%03d", prefix, i)
	}
	return out
}

func collectUsage(t *testing.T, u *usageServer, limit int) ([]string, error) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	mock.RegisterNoResponder(u.responder)
	var got []string
	var err error
	for rec, e := range mockClient(t, mock).Billing.Usage(t.Context(), UsageFilter{}) {
		if e != nil {
			err = e
			break
		}
		got = append(got, rec.ID)
		if len(got) == limit {
			break
		}
	}
	return got, err
}

func TestBillingUsagePagination(t *testing.T) {
	t.Parallel()
	all := ids(250, "r")
	tests := []struct {
		name      string
		server    *usageServer
		limit     int
		want      []string
		wantPages []string
		wantErr   bool
	}{
		{name: "three pages", server: &usageServer{records: all}, want: all, wantPages: []string{"0", "100", "200"}},
		{name: "exact multiple of the page size", server: &usageServer{records: all[:200]}, want: all[:200], wantPages: []string{"0", "100"}},
		{name: "empty", server: &usageServer{}, want: nil, wantPages: []string{"0"}},
		{name: "new records billed while paging are not yielded twice", server: &usageServer{records: all,
			before: func(u *usageServer, offset int) {
				if offset > 0 {
					u.records = append(ids(3, fmt.Sprintf("new%d-", offset)), u.records...)
				}
			}}, want: all, wantPages: []string{"0", "100", "200"}},
		{name: "a server that ignores offset ends after one page with a PaginationError", server: &usageServer{records: all, ignoreOffset: true},
			want: all[:100], wantPages: []string{"0", "100"}, wantErr: true},
		{name: "has_more forever on empty pages still ends", server: &usageServer{records: all[:5], alwaysMore: true},
			want: all[:5], wantPages: []string{"0"}},
		{name: "stopping early fetches no more", server: &usageServer{records: all}, limit: 3, want: all[:3], wantPages: []string{"0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := collectUsage(t, tt.server, tt.limit)
			var pageErr *PaginationError
			if tt.wantErr != errors.As(err, &pageErr) || (err != nil && !tt.wantErr) {
				t.Fatalf("err = %v, want a PaginationError: %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantPages, tt.server.requests); diff != "" {
				t.Errorf("offsets asked (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBillingUsageRecordDecodes(t *testing.T) {
	t.Parallel()
	var rec UsageRecord
	err := json.Unmarshal([]byte(`{"id":"3f1c","created_at":"2025-10-15T12:34:56.789012","model_name":"llama-3.3-70b",
		"model_id":"0xab","endpoint":"/v1/chat/completions","tokens_input":10,"tokens_output":null,"tokens_total":10,
		"amount_paid":"0","amount_staking":"0.0000125","amount_total":"0.0000125","request_id":"0a1b2c3d","api_key_id":null}`), &rec)
	if err != nil {
		t.Fatal(err)
	}
	want := UsageRecord{ID: "3f1c", CreatedAt: time.Date(2025, 10, 15, 12, 34, 56, 789012000, time.UTC), ModelName: "llama-3.3-70b",
		ModelBlockchainID: "0xab", Endpoint: "/v1/chat/completions", InputTokens: 10, TotalTokens: 10,
		AmountPaid: usd(t, "0"), AmountStaking: usd(t, "0.0000125"), AmountTotal: usd(t, "0.0000125"), RequestID: "0a1b2c3d"}
	if diff := cmp.Diff(want, rec); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
}

func TestBillingUsageErrorEndsTheSequence(t *testing.T) {
	t.Parallel()
	mock := httpmock.NewMockTransport()
	calls := 0
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		calls++
		if calls == 2 {
			return httpmock.NewStringResponse(500, `{"detail":"Error fetching usage data"}`), nil
		}
		return httpmock.NewStringResponse(200, `{"items":[{"id":"a"}],"total":5,"has_more":true}`), nil
	})
	var got []string
	var errs []error
	for rec, err := range mockClient(t, mock).Billing.Usage(t.Context(), UsageFilter{}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		got = append(got, rec.ID)
	}
	if len(got) != 1 || len(errs) != 1 || !errors.Is(errs[0], ErrServer) || calls != 2 {
		t.Errorf("records %v, errors %v, calls %d", got, errs, calls)
	}
}
