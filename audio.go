package infergate

// AudioService transcribes audio. Get it as Client.Audio.
type AudioService struct{ client *Client }
