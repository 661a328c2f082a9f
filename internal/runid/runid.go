// Package runid makes the identifiers of runs: the session_id hooks
// receive, until sessions have IDs of their own.
package runid

import (
	"crypto/rand"
	"fmt"
)

// New returns a random version 4 UUID, such as
// "1b4e28ba-2fa1-41d2-883f-0016d3cca427".
func New() string {
	var b [16]byte
	rand.Read(b[:]) // never fails (crypto/rand)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
