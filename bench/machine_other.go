//go:build !linux

package main

// firstTouchMicros is measured on Linux only.
func firstTouchMicros() float64 { return 0 }
