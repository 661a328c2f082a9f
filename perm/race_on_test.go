//go:build race

package perm

// diffStride: under the race detector the differential test replays every
// fifth recorded decision (about 10,000), which keeps the suite's run time
// on a small machine; without it, all of them.
const diffStride = 5
