package infergate

// HistoryService manages stored chats. Get it as Client.History.
type HistoryService struct{ client *Client }
