package batch

import "sync"

// Cache computes a value once per key and hands the same value to every
// later caller: tasks share what is safe to share (parsed settings per
// working directory, agent catalogs per project root, one model client per
// model name) through it. A failed load is cached too, so every task of a
// broken project fails the same way without loading it again.
//
// Entries are never evicted: a Cache holds one entry per distinct key,
// which for a batch is bounded by the distinct cwd values (and model
// names) of its task file. Values must be safe for concurrent reads.
// The zero Cache is ready to use and safe for concurrent use.
type Cache[V any] struct {
	mu sync.Mutex
	m  map[string]*cacheEntry[V]
}

type cacheEntry[V any] struct {
	once sync.Once
	v    V
	err  error
}

// Get returns the value for key, calling load the first time the key is
// asked for; concurrent callers for the same key wait for that one load.
func (c *Cache[V]) Get(key string, load func() (V, error)) (V, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]*cacheEntry[V]{}
	}
	e, ok := c.m[key]
	if !ok {
		e = &cacheEntry[V]{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.v, e.err = load() })
	return e.v, e.err
}

// Len returns the number of keys loaded or loading.
func (c *Cache[V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
