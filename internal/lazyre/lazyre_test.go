package lazyre

import (
	"sync"
	"testing"
)

func TestMustCompile(t *testing.T) {
	re := MustCompile(`^a+$`)
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() { got[i] = re.Get() })
	}
	wg.Wait()
	for _, g := range got {
		if g != got[0] {
			t.Fatal("calls returned different *regexp.Regexp values")
		}
	}
	if !re.Get().MatchString("aaa") || re.Get().MatchString("ab") {
		t.Error("the compiled expression does not match as written")
	}
}

func TestMustCompilePanicsOnFirstCall(t *testing.T) {
	re := MustCompile(`(`) // no panic yet: nothing is compiled
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on the first call")
		}
	}()
	re.Get()
}
