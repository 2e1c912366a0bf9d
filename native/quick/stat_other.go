//go:build !linux

package quick

import "os"

// StatOf: no stat data is recorded here (the early answer runs on Linux).
func StatOf(string, os.FileInfo) (Stat, bool) { return Stat{}, false }

// GitStats: none here (the early answer runs on Linux).
func GitStats(string) []Stat { return nil }

// PathStats: none here.
func PathStats(...string) []Stat { return nil }

// RefStats: none here.
func RefStats(string) ([]Stat, bool) { return nil, false }
