package infergate_test

import (
	"context"
	"fmt"
	"log"

	"github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Dish is the value the examples ask the model for.
type Dish struct {
	Name    string   `json:"name" jsonschema:"the dish"`
	Steps   []string `json:"steps"`
	Serves  int      `json:"serves,omitempty"`
	Cuisine string   `json:"cuisine" enum:"italian,french,other"`
}

func ExampleGenerateObject() {
	// The fake model answers the forced call; through the real gateway a model does.
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{
		Object: Dish{Name: "Risotto", Steps: []string{"toast the rice", "add stock"}, Serves: 2, Cuisine: "italian"}}))
	defer srv.Close()
	client := srv.Client()

	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("A risotto for two.")}}
	obj, err := infergate.GenerateObject[Dish](context.Background(), client.Chat, req, infergate.ObjectSpec{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s (%s, serves %d): %q\n", obj.Value.Name, obj.Value.Cuisine, obj.Value.Serves, obj.Value.Steps)
	fmt.Println("mode:", obj.Mode, "attempts:", obj.Attempts)
	// Output:
	// Risotto (italian, serves 2): ["toast the rice" "add stock"]
	// mode: tool attempts: 1
}

func ExampleGenerateObject_repair() {
	// The first answer breaks the schema (no cuisine): it goes back to the model with what is
	// wrong, and the second is right.
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Dish", Arguments: `{"name":"Soup","steps":[]}`}}},
		gatewaytest.Reply{ToolCalls: []gatewaytest.ToolCall{{Name: "Dish", Arguments: `{"name":"Soup","steps":["boil"],"cuisine":"french"}`}}}))
	defer srv.Close()

	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("A soup.")}}
	obj, err := infergate.GenerateObject[Dish](context.Background(), srv.Client().Chat, req, infergate.ObjectSpec{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(obj.Value.Name, obj.Value.Cuisine, "after", obj.Attempts, "attempts")
	// Output:
	// Soup french after 2 attempts
}

func ExampleStreamObject() {
	srv := gatewaytest.NewServer(gatewaytest.WithReplies(gatewaytest.Reply{
		Quirks:    gatewaytest.Quirks{ArgChunkSize: 16},
		ToolCalls: []gatewaytest.ToolCall{{Name: "Dish", Arguments: `{"name":"Tarte Tatin","steps":["caramelise","bake"],"cuisine":"french"}`}}}))
	defer srv.Close()

	req := infergate.ChatRequest{Messages: []infergate.Message{infergate.UserMessage("An apple dessert.")}}
	st := infergate.StreamObject[Dish](context.Background(), srv.Client().Chat, req, infergate.ObjectSpec{})
	for partial, err := range st.Partials() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%q %q %q\n", partial.Name, partial.Steps, partial.Cuisine)
	}
	obj, err := st.Wait()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("done:", obj.Value.Name)
	// Output:
	// "Tarte T" [] ""
	// "Tarte Tatin" [] ""
	// "Tarte Tatin" ["caramelise"] ""
	// "Tarte Tatin" ["caramelise" "bake"] ""
	// "Tarte Tatin" ["caramelise" "bake"] "french"
	// done: Tarte Tatin
}

func ExampleSchemaFor() {
	schema, err := infergate.SchemaFor[Dish]()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(schema))
	// Output:
	// {"type":"object","properties":{"name":{"type":"string","description":"the dish"},"steps":{"type":["null","array"],"items":{"type":"string"}},"serves":{"type":"integer"},"cuisine":{"type":"string","enum":["italian","french","other"]}},"required":["name","steps","cuisine"],"additionalProperties":false}
}
