package bash

import (
	"math/rand/v2"
	"testing"
)

// TestComponents compares components with reachability worked out by
// brute force on random graphs: two nodes share a component exactly when
// each reaches the other, and a component is completed only after every
// component it reaches.
func TestComponents(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 300 {
		n := 1 + rng.IntN(12)
		adj := make([][]int32, n)
		for range rng.IntN(3 * n) {
			v := rng.IntN(n)
			adj[v] = append(adj[v], int32(rng.IntN(n)))
		}
		start := make([]int32, n+1)
		var to []int32
		for v := range n {
			to = append(to, adj[v]...)
			start[v+1] = int32(len(to))
		}
		comp, order, _ := components(start, to)

		// reach[v][w]: w is reachable from v (every node reaches itself).
		reach := make([][]bool, n)
		for v := range n {
			reach[v] = make([]bool, n)
			stack := []int{v}
			reach[v][v] = true
			for len(stack) > 0 {
				u := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, w := range adj[u] {
					if !reach[v][w] {
						reach[v][w] = true
						stack = append(stack, int(w))
					}
				}
			}
		}
		if len(order) != n {
			t.Fatalf("round %d: order has %d nodes, want %d", round, len(order), n)
		}
		pos := make([]int, n)
		for i, v := range order {
			pos[v] = i
		}
		for v := range n {
			for w := range n {
				same := reach[v][w] && reach[w][v]
				if (comp[v] == comp[w]) != same {
					t.Fatalf("round %d, graph %v: nodes %d and %d in components %d and %d; mutually reachable: %v", round, adj, v, w, comp[v], comp[w], same)
				}
				if reach[v][w] && !same && pos[w] > pos[v] {
					t.Fatalf("round %d, graph %v: %d reaches %d but is completed first", round, adj, v, w)
				}
			}
		}
	}
}
