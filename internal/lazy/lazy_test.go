package lazy

import (
	"sync"
	"sync/atomic"
	"testing"
)

func TestGetBuildsOnce(t *testing.T) {
	var builds atomic.Int32
	table := &Value[map[string]int]{New: func() map[string]int {
		builds.Add(1)
		return map[string]int{"a": 1}
	}}
	if n := builds.Load(); n != 0 {
		t.Fatalf("built %d times before the first Get", n)
	}
	var wg sync.WaitGroup
	got := make([]map[string]int, 8)
	for i := range got {
		wg.Go(func() { got[i] = table.Get() })
	}
	wg.Wait()
	if n := builds.Load(); n != 1 {
		t.Errorf("built %d times, want 1", n)
	}
	got[0]["b"] = 2 // every caller holds the one map
	for i, g := range got {
		if g["a"] != 1 || g["b"] != 2 {
			t.Errorf("call %d returned %v, not the map the first call built", i, g)
		}
	}
}

var (
	table = Value[map[string]int]{New: func() map[string]int { return map[string]int{"a": 1} }}
	sink  map[string]int
)

func BenchmarkGet(b *testing.B) {
	table.Get()
	for b.Loop() {
		sink = table.Get()
	}
}
