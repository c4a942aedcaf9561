package provider

import (
	"context"
	"fmt"

	"github.com/paygate/gateway/schema"
)

// Own serves the flows that are the gateway's own pages rather than a
// provider's: the payer's method choice (select). It is what a live merchant
// uses for select; the provider behind the chosen method is asked later.
type Own struct{}

// Local: our own pages need no call.
func (Own) Local() bool { return true }

// Initialise sends the payer to the selection page.
func (Own) Initialise(_ context.Context, o *schema.Order) (Init, error) {
	if o.Method != schema.MethodSelect {
		return Init{}, fmt.Errorf("own flow does not serve %s", o.Method)
	}
	return Init{NextAction: schema.NextMethodSelect}, nil
}
