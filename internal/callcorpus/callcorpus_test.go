package callcorpus

import "testing"

func TestBashDistinct(t *testing.T) {
	calls := Bash(1, 20000)
	seen := map[string]bool{}
	for _, c := range calls {
		s := c.Input["command"].(string)
		if seen[s] {
			t.Fatalf("repeated command %q", s)
		}
		seen[s] = true
	}
	if len(seen) != 20000 {
		t.Fatalf("%d calls", len(seen))
	}
}

func TestDeterministic(t *testing.T) {
	a, b := Mixed(3, 500), Mixed(3, 500)
	for i := range a {
		if a[i].Tool != b[i].Tool || len(a[i].Input) != len(b[i].Input) {
			t.Fatalf("call %d differs: %v vs %v", i, a[i], b[i])
		}
		for k, v := range a[i].Input {
			if b[i].Input[k] != v {
				t.Fatalf("call %d differs: %v vs %v", i, a[i], b[i])
			}
		}
	}
}
