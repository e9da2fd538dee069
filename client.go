package infergate

import (
	"fmt"
	"io"

	"github.com/infergate/infergate-go/internal/transport"
)

// DefaultBaseURL is the public gateway, used when neither WithBaseURL nor INFERGATE_BASE_URL is set.
const DefaultBaseURL = "https://api.mor.org/api/v1"

// Version is this SDK's version, sent in the User-Agent header.
const Version = "0.2.0"

// Client talks to the gateway. Its services hold one method per endpoint. The zero value is not
// usable: create clients with NewClient.
type Client struct {
	Chat     *ChatService     // chat completions, plain and streamed
	Audio    *AudioService    // audio transcription
	Models   *ModelsService   // the model catalogue
	Bids     *BidsService     // providers' rated bids for a model
	History  *HistoryService  // stored chats
	Sessions *SessionsService // provider sessions

	Embeddings *EmbeddingsService // vectors for texts
	Billing    *BillingService    // balance and usage
	Keys       *KeysService       // API keys of the account (access token only)
	Health     *HealthService     // the gateway's health check

	cfg     *config
	catalog *catalogCache // the model catalogues, for lookups
}

// NewClient returns a client configured by opts on top of the environment: INFERGATE_API_KEY,
// INFERGATE_BASE_URL and INFERGATE_ACCESS_TOKEN. An invalid base URL is an error here rather than a
// failure later.
func NewClient(opts ...Option) (*Client, error) {
	cfg := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(cfg)
		}
	}
	if err := cfg.finish(); err != nil {
		return nil, err
	}
	if len(cfg.responseInfos) > 0 {
		return nil, invalid("ResponseInfo", "WithResponseInfo is an option for one call: pass it to the method")
	}
	if l, ok := cfg.limiter.(interface{ quotaErr() error }); ok && l.quotaErr() != nil {
		return nil, l.quotaErr()
	}
	// The place first: a call waiting for one holds nothing of the limiter's quota, which may be a
	// fleet's, and what the limiter admits is sent at once, in the window it was counted in.
	if cfg.maxConcurrency > 0 {
		cfg.limiters = append(cfg.limiters, newPlaces(cfg.maxConcurrency))
	}
	if cfg.limiter != nil {
		cfg.limiters = append(cfg.limiters, cfg.limiter)
	}
	cfg.concurrencyGiven, cfg.limiterGiven = false, false
	cfg.retrier = transport.NewRetrier(cfg.transportClient(cfg.middleware))
	c := &Client{cfg: cfg, catalog: &catalogCache{}}
	c.Chat = &ChatService{client: c}
	c.Audio = &AudioService{client: c}
	c.Models = &ModelsService{client: c}
	c.Bids = &BidsService{client: c}
	c.History = &HistoryService{client: c}
	c.Sessions = &SessionsService{client: c}
	c.Embeddings = &EmbeddingsService{client: c}
	c.Billing = &BillingService{client: c}
	c.Keys = &KeysService{client: c}
	c.Health = &HealthService{client: c}
	return c, nil
}

// String describes the client without its credentials.
func (c *Client) String() string {
	return fmt.Sprintf("infergate.Client{BaseURL: %s, APIKey: %s, AccessToken: %s}", c.cfg.baseURL, c.cfg.apiKey, c.cfg.accessToken)
}

// configure returns the configuration a call runs with: the client's, or the client's with the
// call's options on top.
func (c *Client) configure(opts []Option) (*config, error) { return c.cfg.derive(opts) }

// Format prints the client the same way for every verb, so that no formatting of it, %#v and %+v
// included, can reveal a credential.
func (c *Client) Format(f fmt.State, _ rune) { _, _ = io.WriteString(f, c.String()) }
