// Package digest computes the two digests the engine needs — SHA-1 for
// git blob ids and SHA-256 for snapshot ids — in plain Go (FIPS 180-4),
// and Check64, a fast checksum that tells whether a file is still the one
// a stored parse was made from.
// The standard library's crypto packages carry the FIPS module (AES,
// DRBG, SHA-3, HMAC) with them, about 50 KB of the WASM engine's 2 MiB
// gzip budget; these few lines are all a content hash needs. They are not
// for secrets (no constant-time care is needed for public content).
package digest

import (
	"encoding/binary"
	"math/bits"
)

// block is the state shared by both digests: the buffered partial block
// and the message length.
type block struct {
	buf [64]byte
	n   int    // bytes in buf
	len uint64 // bytes written in total
}

// compressor is a digest's block function.
type compressor interface{ compress(p []byte) }

// write feeds p through compress, one 64-byte block at a time.
func write[C compressor](b *block, c C, p []byte) {
	b.len += uint64(len(p))
	if b.n > 0 {
		k := copy(b.buf[b.n:], p)
		b.n += k
		p = p[k:]
		if b.n < 64 {
			return
		}
		c.compress(b.buf[:])
		b.n = 0
	}
	for len(p) >= 64 {
		c.compress(p[:64])
		p = p[64:]
	}
	b.n = copy(b.buf[:], p)
}

// pad appends the final padding (0x80, zeros, the bit length) and
// compresses the last block(s).
func pad[C compressor](b *block, c C) {
	bitLen := b.len * 8
	var tail [72]byte
	tail[0] = 0x80
	k := 56 - b.n
	if k <= 0 {
		k += 64
	}
	binary.BigEndian.PutUint64(tail[k:], bitLen)
	write(b, c, tail[:k+8])
}

// SHA1 is a SHA-1 digest in progress; the zero value is not ready (use
// NewSHA1).
type SHA1 struct {
	block
	h [5]uint32
}

// NewSHA1 starts a SHA-1 digest.
func NewSHA1() *SHA1 {
	return &SHA1{h: [5]uint32{0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0}}
}

// Write adds p; it never fails.
func (d *SHA1) Write(p []byte) (int, error) {
	write(&d.block, d, p)
	return len(p), nil
}

// Sum returns the digest of everything written (the state is finished).
func (d *SHA1) Sum() [20]byte {
	pad(&d.block, d)
	var out [20]byte
	for i, v := range d.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

//go:generate go run gen_sha1.go

// SHA256 is a SHA-256 digest in progress (use NewSHA256).
type SHA256 struct {
	block
	h [8]uint32
}

// NewSHA256 starts a SHA-256 digest.
func NewSHA256() *SHA256 {
	return &SHA256{h: [8]uint32{0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19}}
}

// Write adds p; it never fails.
func (d *SHA256) Write(p []byte) (int, error) {
	write(&d.block, d, p)
	return len(p), nil
}

// Sum returns the digest of everything written (the state is finished).
func (d *SHA256) Sum() [32]byte {
	pad(&d.block, d)
	var out [32]byte
	for i, v := range d.h {
		binary.BigEndian.PutUint32(out[4*i:], v)
	}
	return out
}

// Sum256 is the SHA-256 digest of p.
func Sum256(p []byte) [32]byte {
	d := NewSHA256()
	d.Write(p)
	return d.Sum()
}

// k256 are the SHA-256 round constants (the first 32 bits of the
// fractional parts of the cube roots of the first 64 primes).
var k256 = [64]uint32{
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
}

func (d *SHA256) compress(p []byte) {
	var w [64]uint32
	for i := 0; i < 16; i++ {
		w[i] = binary.BigEndian.Uint32(p[4*i:])
	}
	for i := 16; i < 64; i++ {
		s0 := bits.RotateLeft32(w[i-15], -7) ^ bits.RotateLeft32(w[i-15], -18) ^ (w[i-15] >> 3)
		s1 := bits.RotateLeft32(w[i-2], -17) ^ bits.RotateLeft32(w[i-2], -19) ^ (w[i-2] >> 10)
		w[i] = w[i-16] + s0 + w[i-7] + s1
	}
	a, b, c, dd, e, f, g, h := d.h[0], d.h[1], d.h[2], d.h[3], d.h[4], d.h[5], d.h[6], d.h[7]
	for i := 0; i < 64; i++ {
		s1 := bits.RotateLeft32(e, -6) ^ bits.RotateLeft32(e, -11) ^ bits.RotateLeft32(e, -25)
		ch := (e & f) ^ (^e & g)
		t1 := h + s1 + ch + k256[i] + w[i]
		s0 := bits.RotateLeft32(a, -2) ^ bits.RotateLeft32(a, -13) ^ bits.RotateLeft32(a, -22)
		maj := (a & b) ^ (a & c) ^ (b & c)
		t2 := s0 + maj
		h, g, f, e, dd, c, b, a = g, f, e, dd+t1, c, b, a, t1+t2
	}
	d.h[0] += a
	d.h[1] += b
	d.h[2] += c
	d.h[3] += dd
	d.h[4] += e
	d.h[5] += f
	d.h[6] += g
	d.h[7] += h
}

// Check64 is a 64-bit checksum of p: not a cryptographic digest, but each
// step (xor a little-endian word in, multiply by an odd constant, fold the
// high half down) is a bijection of the state, so a text that differs
// from another in one word always differs in its checksum, and other
// differences collide about once in 2^64. It reads eight bytes a step
// where SHA-1 spends some eighty rounds on sixty-four: in WebAssembly it
// is what makes checking a bundle's files against its snapshot cheap.
// Its values are stored in snapshots: it must never change.
func Check64(p []byte) uint64 {
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
