package perm

import (
	"net/netip"
	"strconv"
	"strings"
)

// numericHost returns the address a host written as an IP literal reaches,
// in canonical form, whatever way it is written: dotted quads with fewer
// parts (127.1), one number (2130706433), hex (0x7f000001) or octal
// (0177.0.0.1) parts as inet_aton reads them, IPv6 with a zone, and IPv6
// forms that carry an IPv4 address (::ffff:127.0.0.1, ::127.0.0.1,
// 64:ff9b::7f00:1). ok is false for a host that is not an IP literal.
//
// Domain rules must see the address, not the spelling: Deny
// WebFetch(domain:127.0.0.1) covers http://0x7f000001/.
func numericHost(h string) (string, bool) {
	if i := strings.IndexByte(h, '%'); i >= 0 && strings.Contains(h, ":") {
		h = h[:i] // fe80::1%eth0
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return embedded(a).String(), true
	}
	if a, ok := atonIPv4(h); ok {
		return a.String(), true
	}
	return "", false
}

// embedded returns the IPv4 address an IPv6 address carries (IPv4-mapped,
// IPv4-compatible, NAT64), or a itself.
func embedded(a netip.Addr) netip.Addr {
	if a.Is4In6() {
		return a.Unmap()
	}
	if a.Is6() {
		b := a.As16()
		compat := true
		for _, x := range b[:12] {
			compat = compat && x == 0
		}
		nat64 := b[0] == 0 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b
		for _, x := range b[4:12] {
			nat64 = nat64 && x == 0
		}
		if (compat && (b[12] != 0 || b[13] != 0)) || nat64 {
			return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		}
	}
	return a
}

// atonIPv4 parses s as inet_aton does: one to four parts, each decimal,
// octal (leading 0) or hex (0x); the last part fills the bytes left.
func atonIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	vals := make([]uint64, len(parts))
	for i, p := range parts {
		base, digits := 10, p
		switch {
		case strings.HasPrefix(p, "0x") || strings.HasPrefix(p, "0X"):
			base, digits = 16, p[2:]
			if digits == "" {
				digits = "0" // "0x" alone is 0 to inet_aton
			}
		case len(p) > 1 && p[0] == '0':
			base, digits = 8, p[1:]
		}
		v, err := strconv.ParseUint(digits, base, 32)
		if err != nil || p == "" {
			return netip.Addr{}, false
		}
		vals[i] = v
	}
	var n uint64
	for i, v := range vals[:len(vals)-1] {
		if v > 0xff {
			return netip.Addr{}, false
		}
		n |= v << (8 * (3 - i))
	}
	last := vals[len(vals)-1]
	if last >= 1<<(8*(5-len(vals))) {
		return netip.Addr{}, false
	}
	n |= last
	return netip.AddrFrom4([4]byte{byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}), true
}

// cgnat is 100.64.0.0/10, shared address space (some clouds' metadata
// services live there).
var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// internalHost reports whether a WebFetch host (as webHost returns it)
// reaches this machine or a private network: loopback, link-local (cloud
// metadata at 169.254.169.254), private, unspecified, shared or multicast
// addresses, and the localhost names. Fetching one is never a safe read.
func internalHost(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || h == "ip6-localhost" || h == "ip6-loopback" {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && InternalAddr(a)
}

// InternalAddr reports whether a reaches this machine or a private
// network: loopback, link-local (cloud metadata at 169.254.169.254),
// private, unspecified, shared (100.64.0.0/10) or multicast, also as an
// IPv4 address inside an IPv6 one.
func InternalAddr(a netip.Addr) bool {
	a = embedded(a)
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() || cgnat.Contains(a)
}
