package cryptopsp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"unicode/utf16"
)

// Object is a decoded JSON object; values are object, []any, string,
// json.Number (the literal as received), bool or nil.
type Object map[string]any

// maxDepth bounds the nesting we follow; an IPN is two levels deep.
const maxDepth = 16

// DecodeObject parses a JSON object keeping every number's literal and
// refusing duplicate keys (the re-serialisation would hide one of them)
// and trailing data.
func DecodeObject(body []byte) (Object, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	v, err := readValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON value")
	}
	o, ok := v.(Object)
	if !ok {
		return nil, errors.New("not a JSON object")
	}
	return o, nil
}

func readValue(dec *json.Decoder, depth int) (any, error) {
	if depth > maxDepth {
		return nil, errors.New("JSON nested too deep")
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("JSON: %w", err)
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil // string, json.Number, bool or nil
	}
	switch d {
	case '{':
		return readObject(dec, depth)
	case '[':
		var a []any
		for dec.More() {
			v, err := readValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := dec.Token()
		return a, err
	}
	return nil, fmt.Errorf("JSON: unexpected %v", d)
}

func readObject(dec *json.Decoder, depth int) (Object, error) {
	o := Object{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("JSON: %w", err)
		}
		k, _ := tok.(string)
		if _, dup := o[k]; dup {
			return nil, fmt.Errorf("JSON: key %q twice", k)
		}
		v, err := readValue(dec, depth+1)
		if err != nil {
			return nil, err
		}
		o[k] = v
	}
	_, err := dec.Token()
	return o, err
}

// canonical is the signed form: compact JSON, object keys sorted at every
// level (by code point), numbers as their literal. ascii escapes every
// non-ASCII character as \uXXXX (one common serialiser's default); without
// it they are written as UTF-8 (another's). Both escape control characters.
func canonical(v any, ascii bool) []byte {
	var b bytes.Buffer
	writeValue(&b, v, ascii)
	return b.Bytes()
}

func writeValue(b *bytes.Buffer, v any, ascii bool) {
	switch x := v.(type) {
	case Object:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k, ascii)
			b.WriteByte(':')
			writeValue(b, x[k], ascii)
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeValue(b, e, ascii)
		}
		b.WriteByte(']')
	case string:
		writeString(b, x, ascii)
	case json.Number:
		b.WriteString(string(x))
	case bool:
		b.WriteString(strconv.FormatBool(x))
	default:
		b.WriteString("null")
	}
}

var shortEscapes = map[rune]string{'"': `\"`, '\\': `\\`, '\b': `\b`, '\f': `\f`, '\n': `\n`, '\r': `\r`, '\t': `\t`}

func writeString(b *bytes.Buffer, s string, ascii bool) {
	b.WriteByte('"')
	for _, r := range s {
		switch e, short := shortEscapes[r]; {
		case short:
			b.WriteString(e)
		case r < 0x20 || (ascii && r == 0x7f):
			fmt.Fprintf(b, `\u%04x`, r)
		case ascii && r > 0x7f:
			if r >= 0x10000 {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(b, `\u%04x`, r)
			}
		default:
			b.WriteString(string(r))
		}
	}
	b.WriteByte('"')
}
