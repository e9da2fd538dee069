package infergate

import (
	"crypto/sha256"
	"fmt"
	"io"
	"sync"
	"time"

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
	if err := cfg.finish(nil); err != nil {
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
	cfg.catalogue = c.Models.guardCatalogue
	cfg.cachedCatalogue = c.Models.cachedCatalogue
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

// defaultCatalogTTL is how long Models.Get and Bids.Rated reuse the catalogue, as long as the gateway
// caches it itself.
const defaultCatalogTTL = 5 * time.Minute

// WithCatalogTTL sets how long Models.Get and Bids.Rated reuse a downloaded model catalogue (default
// 5 minutes, as long as the gateway caches it itself); zero always downloads it, and a negative TTL is refused. Models.List always
// downloads it.
func WithCatalogTTL(d time.Duration) Option { return func(c *config) { c.catalogTTL = d } }

// catalogCache keeps the catalogues downloaded for lookups, one per API root and credential: a
// catalogue may list a tenant's private models, and a key that was revoked must fail, not be answered
// from what another key downloaded. It also remembers which API roots serve the deployed gateway's
// route.
type catalogCache struct {
	mu       sync.Mutex
	entries  map[catalogKey]catalogEntry
	deployed map[string]bool // API roots whose contract route answered 404
}

// catalogKey names a catalogue by API root and a hash of the credential that downloaded it, so that
// the cache holds no credential.
type catalogKey struct {
	root       string
	credential [sha256.Size]byte
}

type catalogEntry struct {
	models  []Model
	fetched time.Time
}

// maxCatalogs bounds the cache for a client shared by many tenants: past it, the oldest goes.
const maxCatalogs = 64

func (c *config) catalogKey() catalogKey {
	credential, _ := c.credential(authAPIKey)
	return catalogKey{root: c.baseURL.String(), credential: sha256.Sum256([]byte(credential))}
}

func (cc *catalogCache) get(key catalogKey, ttl time.Duration) ([]Model, bool) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e, ok := cc.entries[key]
	if !ok || ttl <= 0 || time.Since(e.fetched) >= ttl {
		return nil, false
	}
	return e.models, true
}

func (cc *catalogCache) put(key catalogKey, models []Model) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.entries == nil {
		cc.entries = map[catalogKey]catalogEntry{}
	}
	if _, ok := cc.entries[key]; !ok && len(cc.entries) >= maxCatalogs {
		oldest := key
		for k, e := range cc.entries {
			if oldest == key || e.fetched.Before(cc.entries[oldest].fetched) {
				oldest = k
			}
		}
		delete(cc.entries, oldest)
	}
	cc.entries[key] = catalogEntry{models: models, fetched: time.Now()}
}

func (cc *catalogCache) servesDeployedRoute(root string) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	return cc.deployed[root]
}

func (cc *catalogCache) setDeployedRoute(root string) {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	if cc.deployed == nil {
		cc.deployed = map[string]bool{}
	}
	cc.deployed[root] = true
}
