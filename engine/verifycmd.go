package engine

import (
	"crypto/sha256"
	"encoding/hex"
)

// CommandSHA256 is the hex sha256 of a verify command (trust pins carry it).
func CommandSHA256(command string) string {
	h := sha256.Sum256([]byte(command))
	return hex.EncodeToString(h[:])
}

// UntrustedVerifyHint is what a person runs to pin an entry's command.
func UntrustedVerifyHint(id string) string { return "kontext trust --verify " + id }
