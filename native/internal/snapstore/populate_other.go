//go:build unix && !linux

package snapstore

const mapPopulate = 0
