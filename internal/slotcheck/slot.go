// Package slotcheck tells, from the commands a client sends, whether they
// would run on Redis Cluster: every script's keys, every multi-key command's
// keys and every MULTI/EXEC's keys in one hash slot, and no keyspace-wide
// KEYS or SCAN. Tests install its hook on their Redis clients, so every test
// that calls a script checks the script's keys without needing a cluster.
package slotcheck

import "strings"

// Slot is the Redis Cluster hash slot of key: CRC16 (XMODEM) of the key, or
// of its hash tag (the text between the first "{" and the next "}" when not
// empty), modulo 16384.
func Slot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16(key) & 16383)
}

// crc16 is CRC-16/XMODEM (polynomial 0x1021, initial 0), as Redis Cluster uses.
func crc16(s string) uint16 {
	var crc uint16
	for i := 0; i < len(s); i++ {
		crc ^= uint16(s[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}
