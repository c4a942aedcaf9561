package schema

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// FPacked holds an order's create-time fields that never change, packed in
// one value: each field a Redis hash and a stream entry hold costs Redis
// its own argument to parse, hash entry and AOF bytes on every create and
// on every event after it, and one value for a dozen of them cut the
// create script's pipelined floor from 24 to 17 µs (BENCHMARKS.md). The
// fields a script reads as it moves an order (status, method, version)
// stay apart, and so does the return URL, which the payer pages' status
// poll reads with the status and nothing else.
const FPacked = "k"

// packedNames are the fields FPacked holds, in its order. A field is
// appended at the end, never inserted or removed: a packed value written
// before must read back the same.
var packedNames = [...]string{
	FAppID, FSandbox, FClientOrder, FAmount, FCurrency, FDescription,
	FCustName, FCustEmail, FCustPhone, FNotifyURL, FLang, FAllowed,
	FClientIP, FDoor, FDoorType, FDoorParam,
}

// packValues renders the packed fields' values (in packedNames' order) as
// FPacked's value: each "<byte length>:<value>", trailing empty ones left
// out; "" when all are empty. Lengths, not separators, so a value may hold
// any byte.
func packValues(vals *[len(packedNames)]string) string {
	last := -1
	size := 0
	for i, v := range vals {
		if v != "" {
			last = i
		}
		size += len(v) + 4
	}
	if last < 0 {
		return ""
	}
	b := make([]byte, 0, size)
	for _, v := range vals[:last+1] {
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, ':')
		b = append(b, v...)
	}
	return string(b)
}

// unpackValues reads FPacked's value back; a field past its end is empty.
// T is a string, or a []byte when the reader walks a raw reply and keeps
// slices of it.
func unpackValues[T string | []byte](k T, emit func(i int, v T)) error {
	pos := 0
	for i := 0; i < len(packedNames) && pos < len(k); i++ {
		n, j := 0, pos
		for ; j < len(k) && k[j] != ':'; j++ {
			if k[j] < '0' || k[j] > '9' || n > len(k) {
				return fmt.Errorf("packed fields: bad length at byte %d", j)
			}
			n = n*10 + int(k[j]-'0')
		}
		if j == pos || j == len(k) || j+1+n > len(k) {
			return fmt.Errorf("packed fields: field %s runs past the end", packedNames[i])
		}
		emit(i, k[j+1:j+1+n])
		pos = j + 1 + n
	}
	if pos != len(k) {
		return fmt.Errorf("packed fields: %d bytes left over", len(k)-pos)
	}
	return nil
}

// unpack fills o's create-time fields from FPacked's value k, each one the
// record did not hold apart (records written before the packing hold them
// all apart, and a field apart wins). Straight into the order, with no
// lookup table in between: every consumer decodes every event.
func (o *Order) unpack(k string) error {
	var bad error
	err := unpackValues(k, func(i int, v string) {
		if v == "" {
			return
		}
		switch i {
		case 0:
			setEmpty(&o.AppID, v)
		case 1:
			o.Sandbox = o.Sandbox || v == "1"
		case 2:
			setEmpty(&o.ClientOrderID, v)
		case 3:
			if o.Amount == 0 {
				n, err := strconv.ParseInt(v, 10, 64)
				if err != nil {
					bad = fmt.Errorf("packed field %s=%q: %w", FAmount, v, err)
				}
				o.Amount = Amount(n)
			}
		case 4:
			setEmpty(&o.Currency, v)
		case 5:
			setEmpty(&o.Description, v)
		case 6:
			setEmpty(&o.CustomerName, v)
		case 7:
			setEmpty(&o.CustomerEmail, v)
		case 8:
			setEmpty(&o.CustomerPhone, v)
		case 9:
			setEmpty(&o.NotifyURL, v)
		case 10:
			setEmpty(&o.Lang, v)
		case 11:
			setEmpty(&o.AllowedMethods, v)
		case 12:
			setEmpty(&o.ClientIP, v)
		case 13:
			setEmpty(&o.Door, v)
		case 14:
			setEmpty(&o.DoorType, v)
		case 15:
			setEmpty(&o.DoorParam, v)
		}
	})
	if err != nil {
		return err
	}
	return bad
}

func setEmpty(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}

// RecordField is field name of an order record (a hash read whole, a
// stream entry's values) whether it is held apart or packed, for readers
// that want one field and not the whole order.
func RecordField(get func(string) string, name string) string {
	if v := get(name); v != "" {
		return v
	}
	i := slices.Index(packedNames[:], name)
	if i < 0 {
		return ""
	}
	var out string
	_ = unpackValues(get(FPacked), func(j int, v string) {
		if j == i {
			out = v
		}
	})
	return out
}

// UnpackBytes gives each packed field of FPacked's raw value k to emit by
// name, as slices of k: for the readers that walk a raw reply and decode
// nothing they do not show.
func UnpackBytes(k []byte, emit func(name string, v []byte)) error {
	return unpackValues(k, func(i int, v []byte) { emit(packedNames[i], v) })
}

//go:embed order.lua
var orderLua string

// OrderLua is the Lua library of the scripts that read an order's
// create-time fields (prepended to them): order_hmget, HMGET that reads
// packed fields too. Its list of packed names comes from packedNames, so
// the two cannot disagree.
func OrderLua() string {
	q := make([]string, len(packedNames))
	for i, n := range packedNames {
		q[i] = "'" + n + "'"
	}
	return "local ORDER_PACKED = {" + strings.Join(q, ", ") + "}\n" + orderLua
}
