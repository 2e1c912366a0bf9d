//go:build !windows

package main

// brokenPipeOS: on Unix, EPIPE (checked by readerGone) is the only broken-pipe error.
func brokenPipeOS(error) bool { return false }
