package client

// The gateway's objects as its API answers them. Amounts are decimal
// strings with two decimals ("100.50"), exactly as the gateway sends them,
// so that nothing is rounded on the way; times are RFC 3339 in UTC.
// Their JSON names are the OpenAPI document's (the tests hold them to it).

// Order statuses (SPEC.md, States and transitions).
const (
	StatusPending   = 0
	StatusReady     = 1
	StatusPaid      = 2
	StatusFailed    = 3
	StatusCancelled = 4
)

// Order is one order as GET /api/order answers it (and as a cancel and an
// order event's data carry it).
type Order struct {
	PaymentID       string      `json:"paymentId"`
	OrderID         string      `json:"orderId"`
	Status          int         `json:"status"`
	StatusStr       string      `json:"status_str"`
	Amount          string      `json:"amount"`
	Currency        string      `json:"currency"`
	PaymentMethod   string      `json:"paymentMethod"`
	Description     string      `json:"description,omitempty"`
	ClientOrderID   string      `json:"clientOrderId,omitempty"`
	NotifyURL       string      `json:"notify_url,omitempty"`
	ReturnURL       string      `json:"return_url,omitempty"`
	CreatedAt       string      `json:"createdAt"`
	CompletedTime   string      `json:"completedTime,omitempty"`
	RedirectURL     string      `json:"redirectUrl,omitempty"`
	SelectURL       string      `json:"selectUrl,omitempty"`
	NextAction      string      `json:"nextAction,omitempty"`
	PayableAmount   string      `json:"payableAmount,omitempty"`
	QRImageURL      *string     `json:"qrImageUrl"`
	PaidWithBalance bool        `json:"paidWithBalance"`
	Sandbox         bool        `json:"sandbox"`
	ChargeAmount    string      `json:"chargeAmount,omitempty"`
	ChargeCurrency  string      `json:"chargeCurrency,omitempty"`
	FXRate          string      `json:"fxRate,omitempty"`
	PayCurrency     string      `json:"payCurrency,omitempty"`
	RefundedAmount  string      `json:"refundedAmount,omitempty"`
	Refunds         []Refund    `json:"refunds,omitempty"`
	USDTReview      *USDTReview `json:"usdtReview,omitempty"`
}

// Paid says whether the order is paid.
func (o *Order) Paid() bool { return o.Status == StatusPaid }

// USDTReview is where the review of a usdt_direct payment stands.
type USDTReview struct {
	State                 string `json:"state"`
	Reason                string `json:"reason"`
	ByAdministrator       bool   `json:"byAdministrator,omitempty"`
	TxHash                string `json:"txHash,omitempty"`
	NextCheckAt           string `json:"nextCheckAt,omitempty"`
	CheckUntil            string `json:"checkUntil,omitempty"`
	Confirmations         int    `json:"confirmations,omitempty"`
	ConfirmationsRequired int    `json:"confirmationsRequired,omitempty"`
}

// Created is a create's answer: where to send the payer, and the order.
// Idempotent is true when a live order of the same clientOrderId was
// answered instead of a new one.
type Created struct {
	PaymentID       string  `json:"paymentId"`
	OrderID         string  `json:"orderId"`
	RedirectURL     *string `json:"redirectUrl"`
	SelectURL       string  `json:"selectUrl,omitempty"`
	NextAction      string  `json:"nextAction,omitempty"`
	PayableAmount   string  `json:"payableAmount,omitempty"`
	QRImageURL      *string `json:"qrImageUrl"`
	Status          int     `json:"status"`
	StatusString    string  `json:"statusString"`
	PaidWithBalance bool    `json:"paidWithBalance"`
	Idempotent      bool    `json:"idempotent"`
	Amount          string  `json:"amount"`
	Currency        string  `json:"currency"`
	PaymentMethod   string  `json:"paymentMethod"`
	ClientOrderID   string  `json:"clientOrderId,omitempty"`
	CreatedAt       string  `json:"createdAt"`
}

// OrderPage is one page of a listing, newest first.
type OrderPage struct {
	Page   int     `json:"page"`
	Limit  int     `json:"limit"`
	Total  int     `json:"total"`
	Orders []Order `json:"orders"`
}

// HasNext says whether a page follows this one.
func (p *OrderPage) HasNext() bool { return p.Page*p.Limit < p.Total && len(p.Orders) > 0 }

// Refund is one refund of an order.
type Refund struct {
	RefundID       string `json:"refundId"`
	PaymentID      string `json:"paymentId"`
	ClientRefundID string `json:"clientRefundId,omitempty"`
	Amount         string `json:"amount"`
	Currency       string `json:"currency"`
	Reason         string `json:"reason,omitempty"`
	Status         string `json:"status"`
	Error          string `json:"error,omitempty"`
	CreatedAt      string `json:"createdAt"`
	UpdatedAt      string `json:"updatedAt"`
}

// Refunded is a refund's answer: the refund as it stands, and what the
// order's succeeded refunds add up to now.
type Refunded struct {
	Refund
	RefundedAmount string `json:"refundedAmount"`
	Idempotent     bool   `json:"idempotent"`
}

// Refund statuses.
const (
	RefundPending   = "pending"
	RefundSucceeded = "succeeded"
	RefundFailed    = "failed"
)

// Balance is the merchant's money in one currency.
type Balance struct {
	Currency   string `json:"currency"`
	Pending    string `json:"pending"`
	Available  string `json:"available"`
	Reserve    string `json:"reserve"`
	PayoutHold string `json:"payoutHold"`
	Total      string `json:"total"`
}

// Transaction is one entry of the merchant's journal (GET /api/balance
// ?action=transactions): gross what it was worth, fee what the platform
// took, net what the merchant's balance changed by; a settlement's net is
// 0 and Settled what it made available. Amounts are signed ("-25.00").
type Transaction struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Ref      string `json:"ref"` // the order, refund or top-up
	Time     string `json:"time"`
	Currency string `json:"currency"`
	Gross    string `json:"gross"`
	Fee      string `json:"fee"`
	Net      string `json:"net"`
	Settled  string `json:"settled,omitempty"`
}

// TransactionPage is one page of transactions, newest first; NextCursor
// is empty on the last.
type TransactionPage struct {
	Transactions []Transaction `json:"transactions"`
	NextCursor   string        `json:"nextCursor,omitempty"`
}
