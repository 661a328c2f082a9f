// driver.mjs drives Gemini CLI's policy engine (@google/gemini-cli-core)
// over the JSONL input that `gen permissions check --batch` reads, so the
// two engines can be timed on the same calls. See README.md.
//
// usage: node driver.mjs [--modules DIR] [--policy FILE] [--rounds N] [--json] CALLS.jsonl
//
// DIR holds node_modules/@google/gemini-cli-core ($GEN_GEMINI_BENCH by
// default). Every call is awaited in turn, as Gemini CLI's scheduler does.
// Only the evaluation loop is timed (loop_ns); start-up, module import,
// policy loading and reading the input are reported apart (total_ns).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

function usage(msg) {
  process.stderr.write(`driver.mjs: ${msg}\nusage: node driver.mjs [--modules DIR] [--policy FILE] [--rounds N] [--json] CALLS.jsonl\n`);
  process.exit(2);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const opt = { modules: process.env.GEN_GEMINI_BENCH, policy: path.join(here, 'policy.toml'), rounds: 1, json: false, file: '' };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${a} needs a value`));
  if (a === '--modules') opt.modules = value();
  else if (a === '--policy') opt.policy = value();
  else if (a === '--rounds') opt.rounds = Number(value());
  else if (a === '--json') opt.json = true;
  else if (a.startsWith('-')) usage(`unknown flag ${a}`);
  else if (opt.file) usage('one input file only');
  else opt.file = a;
}
if (!opt.file) usage('no input file');
if (!opt.modules) usage('no --modules DIR and GEN_GEMINI_BENCH is unset');
if (!Number.isInteger(opt.rounds) || opt.rounds < 1) usage('--rounds must be a positive integer');

// The engine logs every step with console.debug and every shell syntax
// error with console.log. Gemini CLI's console patcher keeps those off the
// terminal (debug messages are dropped unless debug mode is on); here both
// are dropped, which only flatters Gemini's time.
console.debug = () => {};
console.log = () => {};

// Only the policy modules are imported: the package's index pulls in the
// whole agent (about 2.5 s of start-up) and the engine needs none of it.
const core = path.join(opt.modules, 'node_modules', '@google', 'gemini-cli-core');
const load = (rel) => import(pathToFileURL(path.join(core, 'dist', 'src', rel)).href);
const [{ PolicyEngine }, { loadPoliciesFromToml }, { ApprovalMode, PolicyDecision }] = await Promise.all([
  load('policy/policy-engine.js'), load('policy/toml-loader.js'), load('policy/types.js'),
]);
const version = JSON.parse(readFileSync(path.join(core, 'package.json'), 'utf8')).version;

// gen's tool names and their Gemini CLI counterparts; arguments keep
// their keys (both use command, file_path, url).
const toolNames = {
  Bash: 'run_shell_command', Read: 'read_file', Write: 'write_file', Edit: 'replace',
  Glob: 'glob', Grep: 'grep_search', WebFetch: 'web_fetch', WebSearch: 'google_web_search',
};

const calls = [];
readFileSync(opt.file, 'utf8').split('\n').forEach((line, n) => {
  if (line.trim() === '') return;
  let v;
  try {
    v = JSON.parse(line);
  } catch (e) {
    usage(`${opt.file}:${n + 1}: ${e.message}`);
  }
  if (typeof v.tool !== 'string' || typeof v.input !== 'object') usage(`${opt.file}:${n + 1}: want {"tool":...,"input":{...}}`);
  calls.push({ name: toolNames[v.tool] ?? v.tool, args: v.input });
});

// The user tier (4) is where a person's own policy file loads.
const { rules, errors } = await loadPoliciesFromToml([opt.policy], () => 4);
if (errors.length > 0) usage(`${opt.policy}: ${errors.map((e) => `${e.message}: ${e.details ?? ''}`).join('; ')}`);
// acceptEdits in gen is autoEdit here; interactive, so unmatched calls ask.
const engine = new PolicyEngine({ rules, approvalMode: ApprovalMode.AUTO_EDIT, nonInteractive: false });

const rounds = [];
let counts;
for (let r = 0; r < opt.rounds; r++) {
  counts = { [PolicyDecision.ALLOW]: 0, [PolicyDecision.ASK_USER]: 0, [PolicyDecision.DENY]: 0 };
  const start = process.hrtime.bigint();
  for (const call of calls) {
    const { decision } = await engine.check(call, undefined);
    counts[decision]++;
  }
  rounds.push(Number(process.hrtime.bigint() - start));
}
const out = {
  engine: '@google/gemini-cli-core', version, node: process.version, calls: calls.length, rules: rules.length,
  allow: counts[PolicyDecision.ALLOW], ask: counts[PolicyDecision.ASK_USER], deny: counts[PolicyDecision.DENY],
  loop_ns: rounds[rounds.length - 1], rounds_ns: rounds,
  // total_ns counts from node's own start (performance's time origin).
  total_ns: Math.round(performance.now() * 1e6),
};
if (opt.json) {
  process.stdout.write(JSON.stringify(out) + '\n');
} else {
  const per = (ns) => (ns / 1e3 / calls.length).toFixed(1);
  process.stdout.write(`Gemini CLI policy engine ${version} (node ${process.version}), ${rules.length} rules, ${calls.length} calls\n` +
    `decisions: allow ${out.allow}, ask ${out.ask}, deny ${out.deny}\n` +
    `loop:  ${(out.loop_ns / 1e6).toFixed(0)} ms (${per(out.loop_ns)} µs/call)` + (rounds.length > 1 ? `; rounds ${rounds.map((n) => (n / 1e6).toFixed(0)).join(', ')} ms` : '') + '\n' +
    `total: ${(out.total_ns / 1e6).toFixed(0)} ms including node start-up, import and input\n`);
}
