package infergate

// BidsService reads providers' rated bids for a model. Get it as Client.Bids.
type BidsService struct{ client *Client }
