package bash

import "slices"

// The fork-bomb check. A script starts processes without bound when it
// has a cycle — a function reaching itself through calls, or a loop that
// never ends — that either crosses a process boundary on the way round
// (`:(){ :|:& };:`, `f() { g & }; g() { f; }`, `f() { echo $(f); }`) or
// reaches a background statement each time round (`while :; do x & done`,
// `g() { x & }; while :; do g; done`, `f() { x & f; }`).
//
// The walk records a call graph: a node per function name (and per name
// called from inside a function or loop), a node per endless loop, and an
// edge from the innermost enclosing function or loop to each command it
// runs. Names are global, as bash's functions are: a call reaches every
// function of that name, wherever it is defined. A command whose name is
// not static may call any function. Once the script is walked, the
// strongly connected components of the graph give its cycles in linear
// time, however the functions nest.

// callGraph is the graph the walk records.
type callGraph struct {
	names map[string]int32 // node of a function or command name
	nodes []callNode
	edges []callEdge
	any   int32 // the node a command with a dynamic name calls, or -1
}

// callNode is a function or command name, or an endless loop.
type callNode struct {
	loop bool // an endless loop: it runs its body again and again
	fn   bool // a function is defined with this name
}

// callEdge is a command run from a function or loop body (cmd), or a
// function or loop inside one (cmd nil): running from runs to.
type callEdge struct {
	from, to int32
	fork     bool // in another process than the body of from: a pipe, a background statement, a subshell, a substitution
	bg       bool // in a background statement (or coprocess) of the body of from
	cmd      *Command
}

// scope is an enclosing function or endless loop of a walk, with the
// walk's counters when it was entered.
type scope struct {
	node      int32
	fn        bool
	forks, bg int
}

// graph returns c's call graph, made on first use.
func (c *collector) graph() *callGraph {
	if c.calls == nil {
		c.calls = &callGraph{names: map[string]int32{}, any: -1}
	}
	return c.calls
}

// node returns the node of name.
func (g *callGraph) node(name string) int32 {
	if n, ok := g.names[name]; ok {
		return n
	}
	n := int32(len(g.nodes))
	g.nodes = append(g.nodes, callNode{})
	g.names[name] = n
	return n
}

// anyNode returns the node of a call whose name is not known.
func (g *callGraph) anyNode() int32 {
	if g.any < 0 {
		g.any = int32(len(g.nodes))
		g.nodes = append(g.nodes, callNode{})
	}
	return g.any
}

// inner returns the innermost function or loop around the current node,
// in this walk or the walks of the code this code came from (eval 'f &'
// inside f), and how many process boundaries and background statements
// lie between it and the current node.
func (st *walkState) inner() (sc *scope, forks, bg int) {
	if len(st.scopes) == 0 && !st.outerScope {
		return nil, 0, 0
	}
	for s := st; s != nil; s = s.parent {
		if n := len(s.scopes); n > 0 {
			sc := &s.scopes[n-1]
			return sc, forks + s.forks - sc.forks, bg + s.bg - sc.bg
		}
		forks, bg = forks+s.forks, bg+s.bg
	}
	return nil, 0, 0
}

// call records that the command cmd, named name (ok false: a name not
// known), runs from the innermost function or loop around it.
func (c *collector) call(cmd *Command, name string, ok bool, st *walkState) {
	sc, forks, bg := st.inner()
	if sc == nil {
		return // run from the script itself: it runs once
	}
	g := c.graph()
	to := int32(0)
	if ok {
		to = g.node(name)
	} else {
		to = g.anyNode()
	}
	g.edges = append(g.edges, callEdge{from: sc.node, to: to, fork: forks > 0, bg: bg > 0, cmd: cmd})
}

// enterScope starts the body of a function named name, or of an endless
// loop (fn false). A loop runs wherever it is; a function defined inside
// another counts as called by it (a strict reading: it may be).
func (st *walkState) enterScope(name string, fn bool) {
	g := st.c.graph()
	var n int32
	if fn {
		n = g.node(name)
		g.nodes[n].fn = true
	} else {
		n = int32(len(g.nodes))
		g.nodes = append(g.nodes, callNode{loop: true})
	}
	if sc, forks, bg := st.inner(); sc != nil && (!fn || sc.fn) {
		g.edges = append(g.edges, callEdge{from: sc.node, to: n, fork: forks > 0, bg: bg > 0})
	}
	st.scopes = append(st.scopes, scope{node: n, fn: fn, forks: st.forks, bg: st.bg})
}

// markForkBombs marks the commands of g's unbounded cycles as fork bombs:
// in a cycle that crosses a process boundary, the commands that cross it;
// in a cycle that reaches a background statement, the commands that lead
// to it.
func (g *callGraph) markForkBombs() {
	n := len(g.nodes)
	if len(g.edges) == 0 {
		return
	}
	if g.any >= 0 {
		// A name not known may be any function.
		for i := range g.nodes {
			if g.nodes[i].fn {
				g.edges = append(g.edges, callEdge{from: g.any, to: int32(i)})
			}
		}
	}
	// The edges by their from node (a counting sort): v's are
	// edges[start[v]:start[v+1]].
	start := make([]int32, n+1)
	for _, e := range g.edges {
		start[e.from+1]++
	}
	for i := range n {
		start[i+1] += start[i]
	}
	edges := make([]callEdge, len(g.edges))
	to := make([]int32, len(g.edges))
	next := slices.Clone(start[:n])
	for _, e := range g.edges {
		edges[next[e.from]], to[next[e.from]] = e, e.to
		next[e.from]++
	}

	comp, order, ncomp := components(start, to)
	// Per component, in the order components finds them (every component
	// one reaches comes first): whether it is a cycle (a loop, or an edge
	// inside it: a component of two nodes or more has one), crosses a
	// process boundary inside, and reaches a background statement.
	cyclic := make([]bool, ncomp)
	forks := make([]bool, ncomp)
	reach := make([]bool, ncomp)
	for _, v := range order {
		k := comp[v]
		cyclic[k] = cyclic[k] || g.nodes[v].loop
		for _, e := range edges[start[v]:start[v+1]] {
			if comp[e.to] == k {
				cyclic[k] = true
				forks[k] = forks[k] || e.fork
				reach[k] = reach[k] || e.bg
			} else {
				reach[k] = reach[k] || e.bg || reach[comp[e.to]]
			}
		}
	}
	for _, e := range edges {
		k := comp[e.from]
		if e.cmd == nil || !cyclic[k] {
			continue
		}
		inside := comp[e.to] == k
		if forks[k] && inside && e.fork || reach[k] && (e.bg || reach[comp[e.to]]) {
			e.cmd.forkBomb = true
		}
	}
}

// components returns the strongly connected component of each node of
// the graph whose node v has the edges to[start[v]:start[v+1]], numbered
// in the order they are completed, the nodes in that order (a component
// is completed after every component it reaches) and how many there are.
// It is Tarjan's algorithm, with a stack of its own instead of recursion.
func components(start, to []int32) (comp, order []int32, ncomp int) {
	n := len(start) - 1
	const unseen = -1
	index := make([]int32, n)
	low := make([]int32, n)
	comp = make([]int32, n)
	for i := range index {
		index[i], comp[i] = unseen, unseen
	}
	type frame struct {
		v    int32
		next int32 // the next edge of v to follow
	}
	var (
		calls    []frame
		stack    []int32 // visited nodes not yet in a component
		count, k int32
	)
	order = make([]int32, 0, n)
	visit := func(v int32) {
		index[v], low[v] = count, count
		count++
		stack = append(stack, v)
		calls = append(calls, frame{v: v, next: start[v]})
	}
	for root := range int32(n) {
		if index[root] != unseen {
			continue
		}
		visit(root)
		for len(calls) > 0 {
			f := &calls[len(calls)-1]
			v := f.v
			if f.next < start[v+1] {
				w := to[f.next]
				f.next++
				switch {
				case index[w] == unseen:
					visit(w)
				case comp[w] == unseen: // on the stack
					low[v] = min(low[v], index[w])
				}
				continue
			}
			calls = calls[:len(calls)-1]
			if low[v] == index[v] {
				for {
					w := stack[len(stack)-1]
					stack = stack[:len(stack)-1]
					comp[w] = k
					order = append(order, w)
					if w == v {
						break
					}
				}
				k++
			}
			if len(calls) > 0 {
				u := calls[len(calls)-1].v
				low[u] = min(low[u], low[v])
			}
		}
	}
	return comp, order, int(k)
}
