package infergate

// ModelsService lists the models the gateway serves. Get it as Client.Models.
type ModelsService struct{ client *Client }
