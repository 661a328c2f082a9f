//go:build !linux

package bash

import "time"

// threadCPU is 0 where the thread's CPU time is not read: the benchmark
// then reports no CPU ratio.
func threadCPU() time.Duration { return 0 }
