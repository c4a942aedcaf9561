package checkout

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/paygate/gateway/schema"
)

// status serves GET /payment/{id}/status, which every open page polls: the
// status and, once paid, where to send the payer. It reads two fields of
// the order and tells nothing else (no customer, no merchant, no amount),
// because the order id in a page's address is all a caller has to show.
func (p *Pages) status(c *fiber.Ctx) error {
	if lang := c.Params("lang"); lang != "" && !p.knownLang(lang) {
		return fiber.ErrNotFound
	}
	id := c.Params("paymentId")
	st, ret, err := p.orders.Reads.PollStatus(c.UserContext(), id)
	if err != nil {
		return err
	}
	next := ""
	if st == schema.StatusPaid && ret != "" {
		next = strings.ReplaceAll(ret, "{paymentId}", id)
		if p.returns != nil {
			o, err := p.orders.Reads.Order(c.UserContext(), id)
			if err != nil {
				return err
			}
			if l := p.returnLink(c.UserContext(), o); l != "" {
				next = l
			}
		}
	}
	b := make([]byte, 0, 96+len(next))
	b = append(b, `{"status":`...)
	b = strconv.AppendInt(b, int64(st), 10)
	b = append(b, `,"status_str":"`...)
	b = append(b, st.String()...)
	b = append(b, `","next":`...)
	n, _ := json.Marshal(next) // a string always marshals
	b = append(b, n...)
	b = append(b, '}')
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	return c.Send(b)
}

func (p *screen) knownLang(lang string) bool { _, ok := p.catalogs[lang]; return ok }
