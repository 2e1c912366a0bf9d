package kb

import "encoding/binary"

// check64 is a 64-bit checksum of p: not a cryptographic digest, but each
// step (xor a little-endian word in, multiply by an odd constant, fold the
// high half down) is a bijection of the state, so a text that differs
// from another in one word always differs in its checksum, and other
// differences collide about once in 2^64. It reads eight bytes a step,
// which makes checking a bundle's files against its snapshot cheap.
// Its values are stored in snapshots: a change needs a new
// snapshotVersion.
func check64(p []byte) uint64 {
	const m = 0x9E3779B97F4A7C15
	h := uint64(len(p)) * m
	for len(p) >= 8 {
		h = (h ^ binary.LittleEndian.Uint64(p)) * m
		h ^= h >> 32
		p = p[8:]
	}
	var tail uint64
	for i, b := range p {
		tail |= uint64(b) << (8 * i)
	}
	h = (h ^ tail ^ 0xFF) * m
	return h ^ h>>29
}
