package infergate

// SessionsService opens and closes provider sessions. Get it as Client.Sessions.
type SessionsService struct{ client *Client }
