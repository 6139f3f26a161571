//go:build !linux

package engine

// adviseHugePages does nothing outside Linux (see alloc_linux.go).
func adviseHugePages(b []byte) {}
