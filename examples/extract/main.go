// Extract pulls a typed Go value out of free text: the sender, company, topics and urgency of an
// email, as a Ticket struct, decoded and checked against the struct's JSON Schema, with the fields
// printed as they stream in.
//
//	go run ./examples/extract
//
// It talks to the gateway at INFERGATE_BASE_URL (else the real one) when INFERGATE_API_KEY or
// INFERGATE_BASE_URL is set (gatewaytest.Connect), and otherwise to an in-process fake whose model
// answers the way some providers do: it ignores the forced tool call and writes the JSON in a
// Markdown fence after its thinking, which ObjectModeAuto reads all the same.
package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	infergate "github.com/infergate/infergate-go"
	"github.com/infergate/infergate-go/gatewaytest"
)

// Ticket is what the model extracts. Tags make the schema: descriptions, allowed values, and
// optional fields (omitempty, pointers).
type Ticket struct {
	Sender  string   `json:"sender" jsonschema:"the person who wrote the email"`
	Email   string   `json:"email"`
	Company string   `json:"company,omitempty"`
	Phone   *string  `json:"phone,omitempty" jsonschema:"only when the email gives one"`
	Topics  []string `json:"topics" jsonschema:"what the email asks about, a few words each"`
	Urgency string   `json:"urgency" enum:"low,normal,high"`
}

const email = `Hi there,
this is Ana Sousa from Lisbon Bakeries (ana.sousa@lisbon-bakeries.pt). Since this morning our
invoices show twice the usual amount, and the API keys page will not load. Our payroll run is
tomorrow, so please look at it today! You can call me at +351 21 000 0000.`

// fake is the fake gateway's model.
var fake = []gatewaytest.ServerOption{gatewaytest.WithReplies(gatewaytest.Reply{
	Chunks: []string{"<think>The sender is Ana Sousa; payroll is tomorrow, so ", "high urgency.</think>Here it is:\n```json\n",
		`{"sender":"Ana So`, `usa","email":"ana.sousa@lisbon-bakeries.pt",`, `"company":"Lisbon Bakeries",`,
		`"phone":"+351 21 000 0000","topics":["invoices charged twice",`, `"API keys page does not load"],`,
		`"urgency":"high"}`, "\n```"},
})}

func main() {
	client, stop, err := gatewaytest.Connect(os.Stdout, os.Getenv, fake...)
	if err != nil {
		log.Fatal(err)
	}
	err = run(context.Background(), os.Stdout, client)
	stop()
	if err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, out io.Writer, client *infergate.Client) error {
	req := infergate.ChatRequest{
		Model: "llama-3.3-70b",
		Messages: []infergate.Message{
			infergate.SystemMessage("You file support tickets from customer emails."),
			infergate.UserMessage(email),
		},
		Temperature: infergate.Ptr(0.0),
	}
	st := infergate.StreamObject[Ticket](ctx, client.Chat, req, infergate.ObjectSpec{
		Name: "file_ticket", Description: "the ticket for this email"})
	shown := 0
	for partial, err := range st.Partials() {
		if err != nil {
			return err
		}
		// Each partial holds what has arrived: print the topics as each one completes.
		for ; shown < len(partial.Topics); shown++ {
			fmt.Fprintf(out, "topic: %s\n", partial.Topics[shown])
		}
	}
	obj, err := st.Wait()
	if err != nil {
		return err
	}
	t := obj.Value
	fmt.Fprintf(out, "from:    %s <%s>, %s\n", t.Sender, t.Email, cmp.Or(t.Company, "no company"))
	if t.Phone != nil {
		fmt.Fprintf(out, "phone:   %s\n", *t.Phone)
	}
	fmt.Fprintf(out, "urgency: %s\n", t.Urgency)
	fmt.Fprintf(out, "topics:  %s\n", strings.Join(t.Topics, "; "))
	fmt.Fprintf(out, "(read in %s mode, %d attempt(s), %d tokens)\n", obj.Mode, obj.Attempts, obj.Usage.TotalTokens)
	return nil
}
