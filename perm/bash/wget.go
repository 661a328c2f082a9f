package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// wgetSpec holds the options of GNU wget 1.21 that change no file name
// it writes, each written in full (wget takes abbreviations too: they
// are not known here), and those that name a file it writes. An option
// left out is not known: with it wget may write elsewhere (-P, -x, -r,
// -m, -p, -k, --content-disposition, --trust-server-names, --backups,
// --warc-file), run a program (--use-askpass) or read settings that do
// (-e, --config).
var wgetSpec = lazy.Value[*optSpec]{New: func() *optSpec {
	return &optSpec{
		flags: "qvdScN46hV",
		args:  "OoatTUwQin",
		long: strings.Fields("quiet verbose no-verbose debug server-response continue timestamping inet4-only " +
			"inet6-only no-check-certificate no-clobber spider no-proxy no-cache no-cookies no-dns-cache show-progress " +
			"https-only ignore-length no-hsts retry-connrefused no-netrc no-config content-on-error auth-no-challenge " +
			"help version no-if-modified-since no-use-server-timestamps no-http-keep-alive keep-session-cookies " +
			"ignore-case no-iri"),
		longArgs: strings.Fields("output-document output-file append-output tries timeout dns-timeout connect-timeout " +
			"read-timeout wait waitretry user-agent header referer user password http-user http-password post-data " +
			"post-file body-data body-file method limit-rate max-redirect progress quota load-cookies save-cookies " +
			"hsts-file rejected-log ca-certificate ca-directory certificate certificate-type private-key " +
			"private-key-type secure-protocol compression input-file retry-on-http-error start-pos bind-address " +
			"prefer-family local-encoding remote-encoding report-speed"),
		permute: true, strict: true, exact: true,
	}
}}

// wgetWrites returns the files wget writes: -O's document ("-" is
// stdout), the log (-o, -a), the cookies it saves, its HSTS database
// and its log of rejected URLs. dynamic is set where they are not all
// known: a word not static, an option not in wgetSpec, or a -n other
// than -nv, -nc, -nd, -nH or -np. named is "URL" for a download without
// -O or --spider, which goes to a file the URL names.
func wgetWrites(args []Word) (targets []Word, dynamic bool, named string) {
	parsed, rest, err := wgetSpec.Get().parse(args)
	if err != nil || rest != len(args) {
		return nil, true, ""
	}
	document := false // -O or --spider: no file the URL names
	for _, a := range parsed {
		switch a.opt {
		case "--spider":
			document = true
			continue
		case "-n":
			if a.val != "v" && a.val != "c" && a.val != "d" && a.val != "H" && a.val != "p" {
				return nil, true, ""
			}
			continue
		case "-O", "--output-document":
			document = true
			if a.val == "-" {
				continue
			}
		case "-o", "--output-file", "-a", "--append-output", "--save-cookies", "--hsts-file", "--rejected-log":
		default:
			continue
		}
		switch {
		case a.word == nil:
			targets = append(targets, staticWord(a.val))
		case !a.word.Static:
			return nil, true, ""
		default:
			targets = append(targets, *a.word)
		}
	}
	if !document {
		return targets, false, "URL"
	}
	return targets, false, ""
}
