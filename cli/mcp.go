package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/gen-run/gen/internal/termsafe"
	"github.com/gen-run/gen/internal/textfile"
	"github.com/gen-run/gen/mcp"
	"github.com/gen-run/gen/perm"
	"github.com/gen-run/gen/report"
	"github.com/gen-run/gen/settings"
	"github.com/gen-run/gen/subagent"
	"github.com/gen-run/gen/trust"
	"github.com/gen-run/gen/workspace"
)

// thresholdEnv sets the number of visible tools above which MCP tools
// are disclosed progressively (default mcp.DefaultThreshold).
const thresholdEnv = "GEN_MCP_TOOL_THRESHOLD"

// mcpFlags are the MCP flags of the commands that run agents.
type mcpFlags struct {
	// configs are the --mcp-config values: each a file or a JSON string.
	configs []string
	// strict is --strict-mcp-config: only the --mcp-config servers.
	strict bool
	// promptTool is --permission-prompt-tool (headless runs only).
	promptTool string
	// read are the configs' contents and paths (readJSONFlag), once
	// read: a file is read once, and what check saw is what runs.
	read []jsonValue
}

// jsonValue is what readJSONFlag read for one flag value.
type jsonValue struct {
	data []byte
	path string
}

func (f *mcpFlags) register(cmd *cobra.Command, delegate bool) {
	fl := cmd.Flags()
	stringsVar(fl, &f.configs, "mcp-config", nil, `MCP servers from a JSON file or a JSON string, {"mcpServers": {...}} (repeatable)`)
	fl.BoolVar(&f.strict, "strict-mcp-config", false, "use only the MCP servers of --mcp-config, ignoring settings and .mcp.json")
	if delegate {
		fl.StringVar(&f.promptTool, "permission-prompt-tool", "", "headless: MCP tool (mcp__SERVER__TOOL) that answers what the gate would ask, instead of Ask becoming Deny")
	}
}

// mcpServers collects the servers a run may start, merged by precedence
// (mcp.Merge): managed and user settings, --mcp-config, and, in a trusted
// project only, .mcp.json and the project's settings files. For an
// untrusted project one warning goes to warn per file whose servers are
// skipped; skipped lists those servers. Configuration errors name the file
// and line.
func mcpServers(set *settings.Settings, f *mcpFlags, warn func(string)) (servers map[string]mcp.Server, skipped []mcp.Server, err error) {
	var sets []map[string]mcp.Server
	if !f.strict {
		project := filepath.Join(set.Workspace.Root, ".mcp.json")
		data, err := textfile.Read(project, textfile.Max)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if link := workspace.DanglingLink(project); link != "" {
				// Not "no project servers", as for a settings file.
				if link != project {
					return nil, nil, fmt.Errorf("%s: %s is a symbolic link to a directory that does not exist", project, link)
				}
				return nil, nil, fmt.Errorf("%s is a symbolic link to a file that does not exist", link)
			}
		case err != nil:
			return nil, nil, fmt.Errorf("%s: %w", project, err)
		default:
			s, err := mcp.ParseConfig(project, data, perm.SourceProject)
			if err != nil {
				return nil, nil, err
			}
			sets = append(sets, s)
		}
		for _, file := range set.Files {
			if file.MCPServers == nil {
				continue
			}
			s, err := mcp.ParseSettings(file.Path, file.MCPServers, file.Scope)
			if err != nil {
				return nil, nil, err
			}
			sets = append(sets, s)
		}
	}
	read, err := f.readConfigs()
	if err != nil {
		return nil, nil, err
	}
	for _, c := range read {
		s, err := mcp.ParseConfig(c.path, c.data, perm.SourceCLI)
		if err != nil {
			return nil, nil, err
		}
		sets = append(sets, s)
	}
	// Project servers run code before any call is checked: they need
	// the project's trust. User, managed and --mcp-config servers are
	// the user's (or the administrator's) own choice.
	var kept []map[string]mcp.Server
	refused := make(map[string]bool)
	for _, s := range sets {
		k := make(map[string]mcp.Server, len(s))
		for name, srv := range s {
			if why := mcpRefused(set, name, srv); why != "" {
				warn(fmt.Sprintf("%s: ignoring MCP server %q: %s", srv.Path, name, why))
				skipped = append(skipped, srv)
				continue
			}
			if srv.Source.Project() {
				if msg := trust.Refusal(set, trust.MCPServers, srv.Path); msg != "" {
					if !refused[srv.Path] {
						refused[srv.Path] = true
						warn(msg)
					}
					skipped = append(skipped, srv)
					continue
				}
			}
			k[name] = srv
		}
		kept = append(kept, k)
	}
	merged, shadowed := mcp.Merge(kept...)
	for _, w := range shadowed {
		warn(w)
	}
	return merged, skipped, nil
}

// check refuses a --mcp-config value that is neither a JSON string nor a
// file that can be read before anything waits for a prompt: as
// --mcp-config is variadic, such a value is most often the prompt it
// took.
func (f *mcpFlags) check() error {
	if _, err := f.readConfigs(); err != nil {
		return usageErr(fmt.Errorf("%w\n(--mcp-config takes every argument up to the next flag, as in Claude Code: put the prompt before it, or end the list with --)", err))
	}
	return nil
}

// readConfigs reads the --mcp-config values (readJSONFlag), the first
// time it is asked.
func (f *mcpFlags) readConfigs() ([]jsonValue, error) {
	if f.read != nil || len(f.configs) == 0 {
		return f.read, nil
	}
	read := make([]jsonValue, 0, len(f.configs))
	for _, v := range f.configs {
		data, path, err := readJSONFlag("--mcp-config", v)
		if err != nil {
			return nil, err
		}
		read = append(read, jsonValue{data, path})
	}
	f.read = read
	return read, nil
}

// mcpOptions are the manager options: timeouts from MCP_TIMEOUT and
// MCP_TOOL_TIMEOUT, stdio servers started in dir.
func mcpOptions(dir string) (mcp.Options, error) {
	opts := mcp.Options{Dir: dir}
	err := opts.TimeoutsFromEnv(os.LookupEnv)
	return opts, err
}

// mcpThreshold reads GEN_MCP_TOOL_THRESHOLD; 0 means the default.
func mcpThreshold() (int, error) {
	s := strings.TrimSpace(os.Getenv(thresholdEnv))
	if s == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s=%q: must be a positive number of tools", thresholdEnv, s)
	}
	return n, nil
}

// mcpRun is a run's MCP servers, started.
type mcpRun struct {
	*subagent.MCP
	// status is every server's, for the init event.
	status []mcp.Status
}

// close stops the servers and reaps their processes.
func (r *mcpRun) close() {
	if r.MCP != nil && r.Manager != nil {
		r.Manager.Close()
	}
}

// initServers are the servers as the init event lists them.
func (r *mcpRun) initServers() []report.MCPServer {
	if len(r.status) == 0 {
		return nil
	}
	out := make([]report.MCPServer, 0, len(r.status))
	for _, st := range r.status {
		s := report.MCPServer{Name: st.Name, Status: string(st.State)}
		if st.Err != nil {
			s.Error = st.Err.Error()
		}
		out = append(out, s)
	}
	return out
}

// startMCP starts the run's MCP servers on ctx, which ends them with the
// run (the caller must also call close). A server that fails to start or
// to answer is reported on errw, naming it, and the run goes on without
// its tools. headless says whether --permission-prompt-tool may be used.
func startMCP(ctx context.Context, live *settings.Live, set *settings.Settings, f *mcpFlags, headless bool, errw io.Writer) (*mcpRun, error) {
	warn := func(w string) { warnTo(errw, w) }
	if f.promptTool != "" && !headless {
		return nil, usageErr(errors.New("--permission-prompt-tool is for headless runs (-p); in the terminal, you answer the prompts"))
	}
	servers, _, err := mcpServers(set, f, warn)
	if err != nil {
		return nil, usageErr(err)
	}
	threshold, err := mcpThreshold()
	if err != nil {
		return nil, usageErr(err)
	}
	run := &mcpRun{MCP: &subagent.MCP{Threshold: threshold}}
	if f.promptTool != "" {
		server, _, ok := mcp.SplitName(f.promptTool)
		if !ok {
			return nil, usageErr(fmt.Errorf("--permission-prompt-tool %q: want an MCP tool name, mcp__SERVER__TOOL", f.promptTool))
		}
		if _, ok := servers[server]; !ok {
			return nil, usageErr(fmt.Errorf("--permission-prompt-tool %s: no MCP server %q is configured", f.promptTool, server))
		}
	}
	if len(servers) == 0 {
		return run, nil
	}
	opts, err := mcpOptions(set.Workspace.Cwd)
	if err != nil {
		return nil, usageErr(err)
	}
	opts.Keep = mcpKeep(live, warn)
	m := mcp.NewManager(opts)
	run.Manager = m
	run.status = m.Start(ctx, servers)
	for _, st := range run.status {
		if st.Err != nil {
			fmt.Fprintf(errw, "gen: %s (the run goes on without its tools)\n", termsafe.Text(st.Err.Error()))
		}
		for _, n := range st.Notes {
			warn(fmt.Sprintf("MCP server %q: %s", st.Name, n))
		}
	}
	if f.promptTool != "" {
		if _, ok := m.Tool(f.promptTool); !ok {
			if st := statusOf(run.status, f.promptTool); st.State == mcp.StateConnected {
				m.Close()
				return nil, usageErr(fmt.Errorf("--permission-prompt-tool %s: MCP server %q has no such tool (it has %s)", f.promptTool, st.Name, strings.Join(st.Tools, ", ")))
			}
			warn(fmt.Sprintf("the permission-prompt tool %s is not available: every call that needs approval will be denied", f.promptTool))
		}
		d, err := mcp.NewDelegate(m, f.promptTool, warn)
		if err != nil {
			m.Close()
			return nil, usageErr(err)
		}
		run.Delegate = d
	}
	return run, nil
}

// statusOf returns the status of the server of the tool called name.
func statusOf(sts []mcp.Status, name string) mcp.Status {
	server, _, _ := mcp.SplitName(name)
	for _, st := range sts {
		if st.Name == server {
			return st
		}
	}
	return mcp.Status{}
}

func newMCPCmd(s Streams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Inspect MCP servers",
	}
	groupRun(cmd)
	f := &policyFlags{}
	mf := &mcpFlags{}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the configured MCP servers: source, status and tools (starts each one to ask)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, err := f.load(s.Err)
			if err != nil {
				return err
			}
			warn := func(w string) { warnTo(s.Err, w) }
			servers, skipped, err := mcpServers(set, mf, warn)
			if err != nil {
				return usageErr(err)
			}
			opts, err := mcpOptions(set.Workspace.Cwd)
			if err != nil {
				return usageErr(err)
			}
			m := mcp.NewManager(opts)
			defer m.Close()
			sts := m.Start(cmd.Context(), servers)
			for _, srv := range skipped {
				// Skipped by the settings' lists (the warning says
				// which), or else for the project's trust.
				state := mcp.State("untrusted")
				if mcpRefused(set, srv.Name, srv) != "" {
					state = "refused"
				}
				sts = append(sts, mcp.Status{Name: srv.Name, Source: srv.Source, Path: srv.Path, Transport: srv.Transport, State: state})
			}
			if len(sts) == 0 {
				fmt.Fprintln(s.Out, "No MCP servers configured.")
				return nil
			}
			tw := tabwriter.NewWriter(s.Out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tTRANSPORT\tSTATUS\tTOOLS")
			for _, st := range sts {
				src := string(st.Source)
				if st.Path != "" && st.Source != perm.SourceCLI {
					src += " (" + st.Path + ")"
				}
				tools := strings.Join(st.Tools, ", ")
				if tools == "" {
					tools = "-"
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", st.Name, src, st.Transport, st.State, tools)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			for _, st := range sts {
				if st.Err != nil {
					fmt.Fprintf(s.Out, "%s: %v\n", st.Name, st.Err)
				}
				for _, n := range st.Notes {
					fmt.Fprintf(s.Out, "%s: %s\n", st.Name, n)
				}
			}
			return nil
		},
	}
	fl := list.Flags()
	fl.StringVar(&f.cwd, "cwd", "", "working directory (default: the current directory)")
	fl.BoolVar(&f.trust, "trust", false, "trust this project's MCP servers for this command only (see gen trust)")
	mf.register(list, false)
	cmd.AddCommand(list)
	return cmd
}

// mcpRefused says why the settings' deniedMcpServers, allowedMcpServers,
// allowManagedMcpServersOnly or approvals of .mcp.json servers keep srv
// (configured as name) from starting; "" when they do not. A deny entry
// wins over everything; a server of the project's .mcp.json must not be
// in disabledMcpjsonServers and, where enabledMcpjsonServers lists
// servers (and enableAllProjectMcpServers is not set), must be in it;
// with an allow list in force a server must match one of its entries;
// with allowManagedMcpServersOnly and no managed allow list only managed
// servers start.
func mcpRefused(set *settings.Settings, name string, srv mcp.Server) string {
	for _, r := range set.MCP.Deny {
		if mcpRuleMatches(r, name, srv, false) {
			return "denied by deniedMcpServers in " + r.Origin
		}
	}
	if why := set.LockedBy("mcp"); why != "" && srv.Source != perm.SourceManaged {
		return why
	}
	if set.MCPExclusive != "" && srv.Path != set.MCPExclusive {
		return "only the servers of " + set.MCPExclusive + " may run"
	}
	if mcpJSON(set, srv) {
		for _, r := range set.MCP.JSONOff {
			if mcpRuleMatches(r, name, srv, false) {
				return "disabled by disabledMcpjsonServers in " + r.Origin
			}
		}
		if on := set.MCP.JSONOn; on != nil && !slices.ContainsFunc(on, func(r settings.MCPServerRule) bool { return mcpRuleMatches(r, name, srv, true) }) {
			return "not in enabledMcpjsonServers"
		}
	}
	if set.MCP.Allow != nil {
		for _, r := range set.MCP.Allow {
			if mcpRuleMatches(r, name, srv, true) {
				return ""
			}
		}
		return "not in allowedMcpServers"
	}
	if set.ManagedMCPOnly && srv.Source != perm.SourceManaged {
		return "only servers in managed settings may run (allowManagedMcpServersOnly)"
	}
	return ""
}

// mcpKeep returns the mcp.Options.Keep of a run whose settings follow
// live: a server the settings as they are now would not start is
// stopped before its next call, and warn is told once. That is a
// project's (or local) server once the project's trust no longer holds
// (its .mcp.json or a file the trust covers changed while gen runs) or
// while the settings cannot be loaded, and any server a managed allow or
// deny list now refuses. The calls of a stopped server fail; servers
// with no calls run on until gen exits.
func mcpKeep(live *settings.Live, warn func(string)) func(mcp.Server) error {
	var told sync.Map // server name → struct{}
	return func(srv mcp.Server) error {
		err := mcpRefusedNow(live, srv)
		if err != nil {
			if _, dup := told.LoadOrStore(srv.Name, struct{}{}); !dup {
				warn(fmt.Sprintf("MCP server %q stopped: %v", srv.Name, err))
			}
		}
		return err
	}
}

// mcpRefusedNow says why srv would not start under live's settings as
// they are now (mcpKeep); nil when it would.
func mcpRefusedNow(live *settings.Live, srv mcp.Server) error {
	project := srv.Source.Project()
	set, err := live.Current()
	switch {
	case err != nil && project:
		return fmt.Errorf("a project's server does not run while the settings cannot be loaded: %w", err)
	case err != nil:
		return nil // the gate denies every call until they load
	}
	if why := mcpRefused(set, srv.Name, srv); why != "" {
		return fmt.Errorf("%s: %s", srv.Path, why)
	}
	if project && trust.Refusal(set, trust.MCPServers, srv.Path) != "" {
		why := fmt.Sprintf("the project %s is not trusted any more", set.Workspace.Root)
		if len(set.TrustChanged) > 0 {
			why += " (changed since you trusted it: " + strings.Join(set.TrustChanged, ", ") + ")"
		}
		return errors.New(why)
	}
	return nil
}

// mcpJSON reports whether srv is configured in the project's .mcp.json,
// the file Claude Code's approvals (enabledMcpjsonServers,
// disabledMcpjsonServers) are about.
func mcpJSON(set *settings.Settings, srv mcp.Server) bool {
	return srv.Source == perm.SourceProject && srv.Path == filepath.Join(set.Workspace.Root, ".mcp.json")
}

// mcpRuleMatches reports whether r names srv: by its name, by its exact
// command line (stdio), or by a URL pattern in which * matches a run of
// characters (remote servers, urlMatches). allow says r is in a list
// that lets servers start (allowedMcpServers, enabledMcpjsonServers),
// where a pattern matches narrowly; otherwise it keeps them out
// (deniedMcpServers, disabledMcpjsonServers) and matches broadly.
func mcpRuleMatches(r settings.MCPServerRule, name string, srv mcp.Server, allow bool) bool {
	switch {
	case r.Name != "":
		return r.Name == name
	case r.Command != nil:
		return srv.Transport == mcp.Stdio && slices.Equal(r.Command, append([]string{srv.Command}, srv.Args...))
	case r.URL != "":
		return srv.URL != "" && urlMatches(r.URL, srv.URL, allow)
	}
	return false
}

// urlMatches reports whether the serverUrl pattern matches a server's
// URL. A host names one server however it is written: its letters in any
// case, a trailing dot, the scheme's default port (normalURL). A deny
// pattern matches broadly: * any run of characters, letters in any case,
// against the URL as written and as normalised, so that
// https://*.evil.example/* keeps out https://x.EVIL.example:443/mcp. An
// allow pattern matches narrowly, the normalised URL only (one that does
// not parse matches none): before the end of its host, * matches only
// what a host name and port are made of, so that https://*.corp/*
// allows https://mcp.corp/x and not https://evil.example/.corp/, nor
// https://mcp.corp@evil.example/; "*" alone allows every URL.
func urlMatches(pattern, raw string, allow bool) bool {
	if !allow {
		re := "(?i)^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
		if ok, _ := regexp.MatchString(re, raw); ok {
			return true
		}
		n, ok := normalURL(raw)
		if !ok {
			return false
		}
		match, _ := regexp.MatchString(re, n)
		return match
	}
	if pattern == "*" {
		return true
	}
	n, ok := normalURL(raw)
	if !ok {
		return false
	}
	hostEnd := len(pattern)
	start := 0
	if i := strings.Index(pattern, "://"); i >= 0 {
		start = i + len("://")
	}
	if j := strings.IndexAny(pattern[start:], "/?#"); j >= 0 {
		hostEnd = start + j
	}
	var re strings.Builder
	re.WriteString("^")
	for i, part := range strings.Split(strings.ToLower(pattern[:hostEnd]), "*") {
		if i > 0 {
			re.WriteString(`[a-z0-9.:\[\]-]*`)
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	for i, part := range strings.Split(pattern[hostEnd:], "*") {
		if i > 0 {
			re.WriteString(".*")
		}
		re.WriteString(regexp.QuoteMeta(part))
	}
	re.WriteString("$")
	match, _ := regexp.MatchString(re.String(), n)
	return match
}

// normalURL is the http or https URL raw as a server URL pattern matches
// it: scheme and host in lower case, without user information, a
// trailing dot or the scheme's default port, then the path and query as
// written; false when raw is no such URL.
func normalURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return "", false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	if host == "" {
		return "", false
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port := u.Port(); port != "" && !(scheme == "https" && port == "443" || scheme == "http" && port == "80") {
		host += ":" + port
	}
	out := scheme + "://" + host + u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out, true
}
