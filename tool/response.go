package tool

// The structured results of the tools that have one (Responder): what
// PostToolUse hooks are given as tool_response, with Claude Code's field
// names, so that a hook written for Claude Code (jq
// '.tool_response.file.filePath', '.tool_response.filenames[]') reads them
// unchanged. Each also has output, gen's own field: the text the model was
// given. The fields follow Claude Code's tools' output, as its hooks
// receive it; where gen's tool differs, the field's comment says what gen
// gives.

// BashResponse is a Bash call's tool_response.
type BashResponse struct {
	// Stdout is what the command wrote to stdout and stderr, in the order
	// it wrote them (one pipe takes both, so that the model's text keeps
	// their interleaving; two pipes would lose it), capped as the model's
	// text is and with trailing white space trimmed, as Claude Code trims
	// it. It has neither the exit status line nor gen's notes (Output has
	// them). Stderr is always empty: Claude Code's Bash tool_response, too,
	// has both streams in stdout and an empty stderr.
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// Interrupted is true when the call's timeout killed the command. A
	// cancelled call returns an error instead, and PostToolUse does not
	// run for it.
	Interrupted bool `json:"interrupted"`
	// IsImage is always false: gen gives the model text only.
	IsImage bool   `json:"isImage"`
	Output  string `json:"output"`
	// failed is set when the command exited non-zero or a signal killed
	// it; not when the call's timeout did (Interrupted), which Claude
	// Code reports through PostToolUse too.
	failed bool
}

// Failure is the command's output with its exit status when it failed
// (failed), "" otherwise: as in Claude Code, a failed command runs the
// PostToolUseFailure hooks, told this as its error, not PostToolUse.
func (r BashResponse) Failure() string {
	if !r.failed {
		return ""
	}
	return r.Output
}

// ReadResponse is a Read call's tool_response. gen's Read returns text
// only (a binary file is an error), so Type is always "text"; Claude
// Code's image, notebook and PDF shapes do not occur.
type ReadResponse struct {
	Type   string   `json:"type"`
	File   ReadFile `json:"file"`
	Output string   `json:"output"`
}

// ReadFile is the file part of a ReadResponse.
type ReadFile struct {
	// FilePath is the absolute path Read opened.
	FilePath string `json:"filePath"`
	// Content is the lines returned, joined by newlines, without the
	// line-number prefixes and notes of the model's text; a line longer
	// than the model is shown is cut as it is cut there.
	Content string `json:"content"`
	// NumLines is how many lines Content has, StartLine the number of the
	// first (the call's offset, from 1).
	NumLines  int `json:"numLines"`
	StartLine int `json:"startLine"`
	// TotalLines is how many lines the file has. It is left out when Read
	// did not read to the end of the file: a file over the size Read
	// hashes whole (8 MiB) is read only up to the window asked for.
	TotalLines *int `json:"totalLines,omitempty"`
}

// GlobResponse is a Glob call's tool_response.
type GlobResponse struct {
	// Filenames are the absolute paths of the files listed to the model,
	// sorted; NumFiles is how many. Truncated is true when more files
	// matched than Glob lists (1000).
	Filenames  []string `json:"filenames"`
	NumFiles   int      `json:"numFiles"`
	Truncated  bool     `json:"truncated"`
	DurationMs int64    `json:"durationMs"` // how long the walk took
	Output     string   `json:"output"`
}

// GrepResponse is a Grep call's tool_response. gen's Grep lists matching
// lines, so Mode is always "content".
type GrepResponse struct {
	Mode string `json:"mode"`
	// Filenames are the files with a matching line, in the order found,
	// named as in Content (relative to the working directory when inside
	// it, as Claude Code names them); NumFiles is how many. Claude Code
	// leaves both empty in content mode; gen fills them.
	Filenames []string `json:"filenames"`
	NumFiles  int      `json:"numFiles"`
	// Content is the matching lines, "path:line:text", joined by
	// newlines, without gen's notes; NumLines is how many.
	Content  string `json:"content"`
	NumLines int    `json:"numLines"`
	// AppliedLimit is max_results (or its default) when it cut the
	// matches short, and left out otherwise.
	AppliedLimit int    `json:"appliedLimit,omitempty"`
	Output       string `json:"output"`
}
