//go:build !linux

package reap

// Group does nothing: only on Linux is gen a subreaper, so elsewhere what
// a killed group leaves goes to init.
func Group(int) {}

// Marked needs /proc.
func Marked(string) {}
