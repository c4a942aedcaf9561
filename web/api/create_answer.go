package api

import (
	"strconv"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
)

// The create answer is written by hand rather than by encoding/json through
// server.OK: every create pays for the answer, and reflection over
// createData with its pointer and omitempty fields cost allocations and CPU
// on the hot path, where CPU per create is what we cut. The bytes are those
// server.OK writes for the same createData (TestCreateAnswerMatchesPlatformOK
// holds the two together, escaping and every field included).

// sendCreateAnswer answers d as server.OK would: the success envelope,
// application/json. The body is copied into the response's pooled buffer,
// so a create's answer allocates nothing here once the pool is warm.
func sendCreateAnswer(c *fiber.Ctx, d *createData) error {
	var buf [640]byte
	c.Response().SetBody(appendCreateBody(buf[:0], d))
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
	return nil
}

// appendCreateBody appends {"code":0,"msg":"success","data":d} in
// createData's field order, with its json tags' names and omitempty rules.
func appendCreateBody(dst []byte, d *createData) []byte {
	dst = append(dst, `{"code":0,"msg":"success","data":{"paymentId":`...)
	dst = appendJSONString(dst, d.PaymentID)
	dst = append(dst, `,"orderId":`...)
	dst = appendJSONString(dst, d.OrderID)
	dst = append(dst, `,"redirectUrl":`...)
	dst = appendJSONNullable(dst, d.RedirectURL)
	dst = appendJSONOmitEmpty(dst, `,"selectUrl":`, d.SelectURL)
	dst = appendJSONOmitEmpty(dst, `,"nextAction":`, d.NextAction)
	dst = appendJSONOmitEmpty(dst, `,"payableAmount":`, d.PayableAmount)
	dst = append(dst, `,"qrImageUrl":`...)
	dst = appendJSONNullable(dst, d.QRImageURL)
	dst = append(dst, `,"status":`...)
	dst = strconv.AppendInt(dst, int64(d.Status), 10)
	dst = append(dst, `,"statusString":`...)
	dst = appendJSONString(dst, d.StatusString)
	dst = append(dst, `,"paidWithBalance":`...)
	dst = strconv.AppendBool(dst, d.PaidWithBalance)
	dst = append(dst, `,"idempotent":`...)
	dst = strconv.AppendBool(dst, d.Idempotent)
	dst = append(dst, `,"amount":`...)
	dst = appendJSONString(dst, d.Amount)
	dst = append(dst, `,"currency":`...)
	dst = appendJSONString(dst, d.Currency)
	dst = append(dst, `,"paymentMethod":`...)
	dst = appendJSONString(dst, d.PaymentMethod)
	dst = appendJSONOmitEmpty(dst, `,"clientOrderId":`, d.ClientOrderID)
	dst = append(dst, `,"createdAt":`...)
	dst = appendJSONString(dst, d.CreatedAt)
	return append(dst, "}}"...)
}

func appendJSONNullable(dst []byte, s *string) []byte {
	if s == nil {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, *s)
}

func appendJSONOmitEmpty(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, key...), s)
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does by default: ", \ and
// control characters escaped (\b \f \n \r \t short), <, > and & as \u00XX
// (HTML-safe), each invalid UTF-8 byte as the replacement character U+FFFD
// written out (encoding/json wrote the escape \ufffd before go1.27), U+2028
// and U+2029 escaped. A provider's redirect URL, with its & separators,
// goes through here.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != '<' && b != '>' && b != '&' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, string(utf8.RuneError)...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
