package bash

import (
	"strings"

	"github.com/gen-run/gen/internal/lazy"
)

// curlSpec holds every option curl 7.88 lists (curl --help all), each
// written in full (curl takes abbreviations too: they are not known
// here), and the "--no-" form of each that takes no value. A command
// with another option, or a word that is not static where an option may
// be, writes what the gate does not know.
var curlSpec = lazy.Value[*optSpec]{New: func() *optSpec {
	long := strings.Fields("anyauth append basic cert-status compressed compressed-ssh create-dirs crlf digest disable " +
		"disable-eprt disable-epsv disallow-username-in-url doh-cert-status doh-insecure fail fail-early " +
		"fail-with-body false-start form-escape ftp-create-dirs ftp-pasv ftp-pret ftp-skip-pasv-ip " +
		"ftp-ssl-ccc ftp-ssl-control get globoff haproxy-protocol head help http0.9 http1.0 http1.1 http2 " +
		"http2-prior-knowledge http3 http3-only ignore-content-length include insecure ipv4 ipv6 " +
		"junk-session-cookies list-only location location-trusted mail-rcpt-allowfails manual metalink " +
		"negotiate netrc netrc-optional next no-alpn no-buffer no-clobber no-keepalive no-npn " +
		"no-progress-meter no-sessionid ntlm ntlm-wb parallel parallel-immediate path-as-is post301 post302 " +
		"post303 progress-bar proxy-anyauth proxy-basic proxy-digest proxy-insecure proxy-negotiate " +
		"proxy-ntlm proxy-ssl-allow-beast proxy-ssl-auto-client-cert proxy-tlsv1 proxytunnel raw " +
		"remote-header-name remote-name remote-name-all remote-time remove-on-error retry-all-errors " +
		"retry-connrefused sasl-ir show-error silent socks5-basic socks5-gssapi socks5-gssapi-nec ssl " +
		"ssl-allow-beast ssl-auto-client-cert ssl-no-revoke ssl-reqd ssl-revoke-best-effort sslv2 sslv3 " +
		"styled-output suppress-connect-headers tcp-fastopen tcp-nodelay tftp-no-options tlsv1 tlsv1.0 " +
		"tlsv1.1 tlsv1.2 tlsv1.3 tr-encoding trace-time use-ascii verbose version xattr")
	for _, l := range long[:len(long):len(long)] {
		if !strings.HasPrefix(l, "no-") {
			long = append(long, "no-"+l)
		}
	}
	return &optSpec{
		flags: "aqfGgIh0ik46jlLMn:NZ#pJORSs231BvV",
		args:  "EKCbcdDFPHmoxUQreXYytzTuAw",
		long:  long,
		longArgs: strings.Fields("abstract-unix-socket alt-svc aws-sigv4 cacert capath cert cert-type ciphers config connect-timeout " +
			"connect-to continue-at cookie cookie-jar create-file-mode crlfile curves data data-ascii " +
			"data-binary data-raw data-urlencode delegation dns-interface dns-ipv4-addr dns-ipv6-addr " +
			"dns-servers doh-url dump-header egd-file engine etag-compare etag-save expect100-timeout form " +
			"form-string ftp-account ftp-alternative-to-user ftp-method ftp-port ftp-ssl-ccc-mode " +
			"happy-eyeballs-timeout-ms header hostpubmd5 hostpubsha256 hsts interface json keepalive-time key " +
			"key-type krb libcurl limit-rate local-port login-options mail-auth mail-from mail-rcpt max-filesize " +
			"max-redirs max-time netrc-file noproxy oauth2-bearer output output-dir parallel-max pass " +
			"pinnedpubkey preproxy proto proto-default proto-redir proxy proxy-cacert proxy-capath proxy-cert " +
			"proxy-cert-type proxy-ciphers proxy-crlfile proxy-header proxy-key proxy-key-type proxy-pass " +
			"proxy-pinnedpubkey proxy-service-name proxy-tls13-ciphers proxy-tlsauthtype proxy-tlspassword " +
			"proxy-tlsuser proxy-user proxy1.0 pubkey quote random-file range rate referer request " +
			"request-target resolve retry retry-delay retry-max-time sasl-authzid service-name socks4 socks4a " +
			"socks5 socks5-gssapi-service socks5-hostname speed-limit speed-time stderr telnet-option " +
			"tftp-blksize time-cond tls-max tls13-ciphers tlsauthtype tlspassword tlsuser trace trace-ascii " +
			"unix-socket upload-file url url-query user user-agent write-out"),
		permute: true, strict: true, exact: true,
	}
}}

// curlOutput reports an option of curl's whose value is a file it
// writes (a cookie jar, the headers, a trace, its stderr, an ETag, the
// libcurl source, the HSTS and Alt-Svc caches it updates); "-" is stdout.
func curlOutput(opt string) bool {
	switch opt {
	case "-o", "--output", "-c", "--cookie-jar", "-D", "--dump-header", "--trace", "--trace-ascii", "--stderr",
		"--etag-save", "--libcurl", "--hsts", "--alt-svc":
		return true
	}
	return false
}

// curlWrites returns the files curl writes, read from its options: each
// output option's value. dynamic is set where they are not all known: a
// word not static, an option not in curlSpec, a directory they go in
// (--output-dir), a config file (-K, which may set any option), an
// output name holding a URL glob's "#N", or a --write-out format that
// may hold %output{FILE} (or is read from a file: @FILE). named says
// what names the other files it writes (-O, --remote-name-all: the URL;
// -J: the server), "" if none.
func curlWrites(args []Word) (targets []Word, dynamic bool, named string) {
	parsed, rest, err := curlSpec.Get().parse(args)
	if err != nil || rest != len(args) {
		return nil, true, ""
	}
	for _, a := range parsed {
		switch a.opt {
		case "-O", "--remote-name", "--remote-name-all":
			if named == "" {
				named = "URL"
			}
		case "-J", "--remote-header-name":
			named = "URL or the server's reply"
		case "--output-dir", "-K", "--config":
			return nil, true, ""
		case "-w", "--write-out":
			if a.word != nil && !a.word.Static || strings.Contains(a.val, "%output{") || strings.HasPrefix(a.val, "@") {
				return nil, true, ""
			}
		}
		if !curlOutput(a.opt) || a.val == "-" {
			continue
		}
		switch {
		case a.word == nil:
			targets = append(targets, staticWord(a.val))
		case !a.word.Static || strings.Contains(a.val, "#"):
			return nil, true, ""
		default:
			targets = append(targets, *a.word)
		}
	}
	return targets, false, named
}
