package client_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"

	"github.com/paygate/gateway/sdk/go/client"
)

// The README's quick start: create an order and send the payer to pay it.
// (The lines between the markers are the README's, word for word.)
func Example() {
	// quick start {
	c, err := client.New(client.Config{
		BaseURL:  "https://pay.example.com",
		AppID:    os.Getenv("PAYGATE_APPID"),
		APIKey:   os.Getenv("PAYGATE_API_KEY"),
		QueryKey: os.Getenv("PAYGATE_QUERY_KEY"),
		ClientIP: "203.0.113.7", // this server's address as the gateway sees it
	})
	if err != nil {
		log.Fatal(err)
	}
	order, err := c.Create(context.Background(), client.CreateRequest{
		Amount: "100.50", Currency: "CNY", PaymentMethod: "wallet_a",
		ClientOrderID: "SHOP-42", NotifyURL: "https://shop.example.com/paygate/webhook",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("send the payer to", c.PayerURL(order))
	// }
}

// The README's webhook receiver in net/http: verify both forms, act on the
// order, then acknowledge with success.
func ExampleVerifier_Callback() {
	// webhook {
	v := client.Verifier{APIKey: os.Getenv("PAYGATE_API_KEY"), Secret: os.Getenv("PAYGATE_WEBHOOK_SECRET")}
	http.HandleFunc("POST /paygate/webhook", func(w http.ResponseWriter, r *http.Request) {
		cb, err := v.Callback(r) // the raw body, before anything parses it
		if err != nil {
			http.Error(w, "refused", http.StatusBadRequest)
			return
		}
		// webhook-id is the same on every retry: deduplicate on it.
		if err := fulfil(r.Header.Get(client.HeaderWebhookID), cb); err != nil {
			http.Error(w, "try again", http.StatusInternalServerError)
			return
		}
		io.WriteString(w, "success") // anything else is sent again
	})
	// }
}

// fulfil stands for the merchant's own bookkeeping.
func fulfil(eventID string, cb *client.Callback) error {
	if cb.Paid() {
		log.Printf("%s: order %s paid %s %s", eventID, cb.ClientOrderID, cb.Amount, cb.Currency)
	}
	return nil
}
