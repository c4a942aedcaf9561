package epay

import (
	"encoding/json"
	"net/url"
	"os"
	"testing"

	"github.com/paygate/gateway/schema"
)

// vectors is testdata/vectors.json: written by testdata/vectors.php with
// the protocol's plugin algorithm, so each sign here was computed outside
// this package.
type vectors struct {
	Base     string `json:"base"`
	Requests []struct {
		Name, Key, Base, Sign string
		Params                Params
	} `json:"requests"`
	Notifications []struct {
		Name, Key, Base, Sign string
		Params                Params
		Order                 struct {
			AppID         string `json:"appid"`
			ID            string `json:"id"`
			ClientOrderID string `json:"clientOrderId"`
			Description   string `json:"description"`
			Amount        int64  `json:"amount"`
			DoorType      string `json:"doorType"`
			DoorParam     string `json:"doorParam"`
		}
	} `json:"notifications"`
	Answers []struct {
		Name, Device string
		Order        struct {
			ID          string `json:"id"`
			Method      string `json:"method"`
			QRPayload   string `json:"qrPayload"`
			ProviderURL string `json:"providerUrl"`
		}
		Answer PayAnswer
	} `json:"answers"`
}

func readVectors(t *testing.T) vectors {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectors
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Requests) == 0 || len(v.Notifications) == 0 || len(v.Answers) == 0 {
		t.Fatal("vectors.json lacks a section")
	}
	return v
}

func TestVectorRequests(t *testing.T) {
	for _, tt := range readVectors(t).Requests {
		t.Run(tt.Name, func(t *testing.T) {
			if got := SignBase(tt.Params); got != tt.Base {
				t.Fatalf("base %q, want %q", got, tt.Base)
			}
			p := Params{"sign": tt.Sign}
			for k, v := range tt.Params {
				p[k] = v
			}
			if !Verify(p, tt.Key) {
				t.Fatalf("the sign PHP computed does not verify")
			}
			if err := checkForm(p); err != nil {
				t.Fatalf("a sound request refused: %v", err)
			}
		})
	}
}

func TestVectorNotifications(t *testing.T) {
	for _, tt := range readVectors(t).Notifications {
		t.Run(tt.Name, func(t *testing.T) {
			v := tt.Order
			o := &schema.Order{AppID: v.AppID, ID: v.ID, ClientOrderID: v.ClientOrderID, Description: v.Description,
				Amount: schema.Amount(v.Amount), DoorType: v.DoorType, DoorParam: v.DoorParam, Door: schema.DoorEpay}
			got := NotifyParams(o, TypeWord(t.Context(), o, nil))
			if len(got) != len(tt.Params) {
				t.Fatalf("params %v, want %v", got, tt.Params)
			}
			for k, want := range tt.Params {
				if got[k] != want {
					t.Fatalf("%s=%q, want %q", k, got[k], want)
				}
			}
			q, err := url.ParseQuery(SignedQuery(got, tt.Key))
			if err != nil {
				t.Fatal(err)
			}
			if q.Get("sign") != tt.Sign || q.Get("sign_type") != "MD5" {
				t.Fatalf("sign %s, PHP computed %s", q.Get("sign"), tt.Sign)
			}
		})
	}
}

func TestVectorAnswers(t *testing.T) {
	v := readVectors(t)
	for _, tt := range v.Answers {
		t.Run(tt.Name, func(t *testing.T) {
			o := &schema.Order{ID: tt.Order.ID, Method: schema.Method(tt.Order.Method), QRPayload: tt.Order.QRPayload,
				ProviderURL: tt.Order.ProviderURL}
			if got := Answer(o, v.Base, tt.Device); got != tt.Answer {
				t.Fatalf("answer %+v, want %+v", got, tt.Answer)
			}
		})
	}
}
