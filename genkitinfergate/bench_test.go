package genkitinfergate_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/infergate/infergate-go/gatewaytest"
	"github.com/infergate/infergate-go/genkitinfergate"
)

// BenchmarkListActions lists a catalogue of 100 text models, as genkit's developer UI asks for.
func BenchmarkListActions(b *testing.B) {
	var ms []gatewaytest.CatalogModel
	for i := range 100 {
		ms = append(ms, gatewaytest.CatalogModel{ID: fmt.Sprint("m", i)})
	}
	srv := gatewaytest.New(b, gatewaytest.WithModels(ms...))
	p := genkitinfergate.New(srv.Client())
	for b.Loop() {
		if len(p.ListActions(context.Background())) != 100 {
			b.Fatal("not every model was listed")
		}
	}
}
