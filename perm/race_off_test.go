//go:build !race

package perm

// diffStride: without the race detector the differential test replays
// every recorded decision.
const diffStride = 1
