// @ts-check
/**
 * The `lessor` program: its commands and flags (commander), and the one place output and errors
 * leave the CLI. `--json` (anywhere on the line): stdout carries exactly one JSON document, the
 * answer or, on failure, `{"error": {...}, "exit_code": N}`; stderr carries `error: <message>`
 * either way, and progress, never stdout. The commands themselves live in cli/commands.mjs,
 * loaded only when one runs, so `lessor --version` and `--help` stay fast.
 */
import { Command, CommanderError, Option } from "commander";
import { CliError, EXIT, EXIT_CODE_TABLE, usageError } from "./exit-codes.mjs";
import { jsonText, visible } from "./format.mjs";

/**
 * What the program reads and writes: the process's own streams, or a test's.
 * @typedef {{
 *   stdout: { write(s: string): unknown, isTTY?: boolean },
 *   stderr: { write(s: string): unknown, isTTY?: boolean },
 *   stdin: NodeJS.ReadStream,
 *   env: Record<string, string | undefined>,
 *   now: () => number,
 *   version: string,
 *   onInterrupt?: (handler: () => void) => () => void,
 * }} Io
 */

/**
 * The global flags as commander parsed them.
 * @typedef {{ json?: boolean, url?: string, apiKeyFile?: string, insecure?: boolean, raw?: boolean }} GlobalFlags
 */

/**
 * A command's action: its positional arguments, then its flags (with the global ones). It answers
 * the exit code when that is not 0 on success (`run`: the job's own; `kill`: the outcome's).
 * @typedef {(ctx: import("./commands.mjs").Ctx, args: string[], flags: Record<string, any>) => Promise<number | void>} Action
 */

/**
 * The values the API's enums allow, for commander's `choices` (a bad one is refused before any
 * request, and `--help` lists them); test/unit/cli-types.test.ts checks them against the document.
 */
export const CHOICES = {
  leaseState: ["pending", "provisioning", "booting", "ready", "stopping", "stopped", "starting", "releasing", "released"],
  leaseKind: ["scratch", "job", "deployment"],
  usageGroup: ["provider", "gpu", "lease", "day"],
  receiptStatus: ["settled", "disputed"],
  keyScope: ["read", "write", "admin"],
};

/**
 * Builds the program; `act(name)` runs cli/commands.mjs's export `name`. Exported for the unit
 * tests of argument parsing, which hand in an `act` that records what it was called with.
 * @param {Io} io
 * @param {(name: string) => (...args: any[]) => Promise<void>} act
 */
export function buildProgram(io, act) {
  const program = new Command("lessor");
  program
    .description("Rent GPU machines through lessor, from a terminal or a script.")
    .version(io.version, "-V, --version", "print the CLI's version")
    .option("--json", "print exactly one JSON document on stdout (errors too)")
    .option("--url <url>", "lessor's base URL (default: $LESSOR_URL, then the login file)")
    .option("--api-key-file <path>", "read the API key from this file (default: $LESSOR_API_KEY, then the login file)")
    .option("--insecure", "send the API key over plain http:// to a host that is not this machine (refused without it)")
    .option("--raw", "print what came from a machine (logs, exec output, events) as it came, terminal control sequences included")
    .helpCommand(false)
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
      // Reported by `main`, once, in the CLI's own format.
      outputError: () => {},
    });

  program
    .command("login")
    .description("store lessor's URL and an API key in the config file (mode 0600); the key is read from a prompt or stdin")
    .action(act("login"));

  program.command("gpus").description("GPU classes, their offer counts and cheapest price").action(act("gpus"));

  program
    .command("models")
    .description("open models lessor serves: the GPU memory, host memory and context each needs, and the GPU specs it fits (--json: every one)")
    .action(act("models"));

  program
    .command("offers")
    .description("offers from every provider this org can rent from, cheapest first")
    .option("--gpu <class>", "only this GPU class (`l40s`), or `cpu`")
    .option("--region <region>", "only this region")
    .option("--provider <name>", "only this provider")
    .option("--max-hourly <usd>", "at most this many dollars an hour")
    .option("--spot", "spot (interruptible) offers only")
    .option("--limit <n>", "offers per page")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("offers"));

  program
    .command("quote")
    .description("the offer lessor would choose for a spec, its fallbacks, rate and cost ceiling")
    .requiredOption("--gpu <class:count>", "`l40s:1`, a bare class, or a lane pin `l40s-sim:1`")
    .option("--region <region>", "only this region (repeat for several)", collect, [])
    .option("--provider <name>", "only this provider (repeat for several)", collect, [])
    .option("--max-hourly <usd>", "at most this many dollars an hour")
    .option("--spot", "spot (interruptible) offers only")
    .option("--ttl <duration>", "how long the lease would run: `30m`, `2h`")
    .addOption(new Option("--kind <kind>", "the lease's kind").choices(CHOICES.leaseKind))
    .action(act("quote"));

  program
    .command("ls")
    .description("leases, newest first")
    .addOption(new Option("--state <state>", "only leases in this state").choices(CHOICES.leaseState))
    .addOption(new Option("--kind <kind>", "only leases of this kind").choices(CHOICES.leaseKind))
    .option("--name <name>", "only leases created with this name")
    .option("--limit <n>", "leases per page")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("ls"));

  program
    .command("status")
    .description("a lease: state, machine, cost so far, and what its guard will do and when")
    .argument("<lease>", "lease id (`ls_...`) or name")
    .action(act("status"));

  program
    .command("events")
    .description("every transition of a lease, oldest first")
    .argument("<lease>", "lease id or name")
    .option("-f, --follow", "then each new one as it happens, until the lease is released")
    .action(act("events"));

  /** `logs`, and `scratch logs` the same. @param {Command} parent */
  const logsCommand = (parent) =>
    parent
      .command("logs")
      .description("what the lease's command printed")
      .argument("<lease>", "lease id or name")
      .option("-f, --follow", "then each new output as it comes, until the command exits or the lease is released")
      .option("--tail <n>", "only the last N lines")
      .action(act("logs"));
  logsCommand(program);

  /** The flags of a new lease that `run` and `scratch run` share. @param {Command} command */
  const leaseFlags = (command) =>
    command
      .requiredOption("--gpu <class>", "`class:count` (`l4`, `l40s:2`)")
      .option("--ttl <duration>", "end the lease after this long whatever happens: `30m`, `2h`")
      .option("--env <NAME=value>", "an environment variable for the command (repeatable; values are never shown)", collect, [])
      .option("--volume <name:path>", "mount the org's volume `name` at `path` (repeatable); the lease runs where it lives", collect, [])
      .option("--name <name>", "a name for the lease")
      .option("--outputs-wait <duration>", "how long ending the lease waits for the command's $LESSOR_OUT to upload before the machine is destroyed (default 5m, at most 1h)")
      .option("--workdir <dir>", "pack this directory and unpack it on the machine as the command's working directory (never .git, .env*, .dev.vars, node_modules, __pycache__, nor what .gitignore and .lessorignore files match)");

  leaseFlags(program.command("run"))
    .description("run a command as a job on a new machine, stream its output, and exit with its exit code")
    .usage("--gpu <class> [options] -- <cmd...>")
    .option("--max-runtime <duration>", "TERM the command after it has run this long")
    .option("--max-inactivity <duration>", "TERM the command after this long without output")
    .option("--spot", "spot (interruptible) offers only: cheaper, and the machine may be taken back (see --recover)")
    .option("--recover [losses]", "run the command again on a new machine after these losses (comma-separated: preempted, host_failed, provider_lost; default all three)")
    .option("--max-restarts <n>", "restarts allowed with --recover (default 3); one more loss ends the job")
    .option("--restart-backoff <duration>", "wait this long after a loss before the next machine (default 30s)")
    .option("--fallback-on-demand", "with --spot: rent on-demand once no spot offer is left")
    .option("--rm", "Ctrl-C ends the lease instead of detaching")
    .option("--out <dir>", "once the job has ended, download everything it left in $LESSOR_OUT into this directory (exit 12 when some of it did not come back)")
    .argument("[cmd...]", "the command, after `--`: one argument is a shell line (`'echo hi; exit 3'`), several are words")
    .action(act("run"));

  program
    .command("kill")
    .description("end the lease's command: TERM, then KILL after the timeout (exit 0 stopped, 2 unknown, 3 still alive)")
    .argument("<lease>", "lease id or name")
    .option("--timeout <duration>", "how long to wait for the exit after TERM (default 10s)")
    .option("--no-escalate", "never send KILL")
    .action(act("kill"));

  const artifacts = program.command("artifacts").description("what a lease's command left in $LESSOR_OUT, kept after the lease ends");
  artifacts
    .command("ls")
    .description("a lease's artifacts: path, size, SHA-256, when stored")
    .argument("<lease>", "lease id or name")
    .option("--limit <n>", "artifacts per page")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("artifactsLs"));
  artifacts
    .command("get")
    .description("download a lease's artifacts, each checked against its SHA-256 and written whole or not at all; a broken download continues where it stopped")
    .argument("<lease>", "lease id or name")
    .argument("[path]", "one artifact, or those under a directory (`ckpt/`); default all")
    .option("-o, --output <dir>", "the directory to write them into, at their paths (default: the current one)")
    .action(act("artifactsGet"));

  const scratch = program.command("scratch").description("scratch sessions: a machine to exec commands on");
  leaseFlags(scratch.command("run"))
    .description("rent a machine for a scratch session and wait until it is ready")
    .action(act("scratchRun"));
  scratch
    .command("ls")
    .description("scratch leases, newest first")
    .addOption(new Option("--state <state>", "only leases in this state").choices(CHOICES.leaseState))
    .option("--limit <n>", "leases per page")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .addOption(new Option("--kind <kind>").default("scratch").hideHelp())
    .action(act("ls"));
  logsCommand(scratch);
  scratch
    .command("exec")
    .description("run a command on the session's machine; its output, and its exit code as the CLI's")
    .usage("<lease> [--timeout 30s] -- <cmd...>")
    .argument("<lease>", "lease id or name")
    .argument("[cmd...]", "the command, after `--`")
    .option("--timeout <duration>", "how long to wait for the result (default 30s)")
    .action(act("scratchExec"));
  scratch.command("end").description("end the session: destroy its machine").argument("<lease>", "lease id or name").action(act("end"));

  for (const [name, what] of /** @type {const} */ ([
    ["end", "end a lease: destroy its machine (repeating it is harmless)"],
    ["stop", "stop a lease's machine, keeping its disk"],
    ["start", "start a stopped lease's machine again"],
    ["unlock", "remove a lease's lock"],
  ])) {
    program.command(name).description(what).argument("<lease>", "lease id or name").action(act(name));
  }
  program
    .command("up")
    .description("serve a model under a name (made, started again or found), wait until it answers, and print base_url, api_key and model")
    .argument("<name>", "the deployment's name")
    .requiredOption("--model <id>", "the model (`lessor models`), e.g. Qwen/Qwen2.5-7B-Instruct")
    .option("--gpu <class:count>", "the machine (default: the smallest that fits the model)")
    .option("--replicas <min:max>", "how many machines serve it, scaled with its traffic (default 1:1; 0:N scales to zero when idle)")
    .option("--recreate", "a changed configuration replaces the machine instead of being refused")
    .option("--no-wait", "answer at once, without waiting for the model to answer")
    .action(act("up"));
  program
    .command("env")
    .description("OPENAI_BASE_URL, OPENAI_API_KEY and LESSOR_MODEL_ID as `export` lines: eval \"$(lessor env NAME)\"")
    .argument("<name>", "the deployment's name")
    .action(act("env"));
  program.command("down").description("end a deployment: its lease and machine, its name and key").argument("<name>", "the deployment's name").action(act("down"));

  program
    .command("lock")
    .description("mark a lease in use for a while (never beyond its hard caps)")
    .argument("<lease>", "lease id or name")
    .requiredOption("--for <duration>", "how long: `30m`, `2h`")
    .action(act("lock"));
  program
    .command("extend")
    .description("let a lease's ttl run longer")
    .argument("<lease>", "lease id or name")
    .requiredOption("--by <duration>", "how much longer: `30m`, `2h`")
    .action(act("extend"));

  program
    .command("usage")
    .description("estimated, actual and disputed spend over a range")
    .addOption(new Option("--by <group>", "group by").choices(CHOICES.usageGroup).default("provider"))
    .option("--from <date>", "ISO 8601 date or time (default: the first of this month, UTC)")
    .option("--to <date>", "ISO 8601 date or time (default: now)")
    .action(act("usage"));

  program
    .command("receipts")
    .description("the org's receipts, newest first")
    .addOption(new Option("--status <status>", "only these").choices(CHOICES.receiptStatus))
    .option("--lease <id>", "only this lease's")
    .option("--limit <n>", "receipts per page")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("receipts"));

  const budget = program.command("budget").description("the org's caps and what counts against them now").action(act("budget"));
  budget
    .command("set")
    .description("set the caps (admin key); `none` removes one")
    .option("--monthly <usd>", "what leases admitted in a month may cost, or `none`")
    .option("--concurrent-hourly <usd>", "the summed hourly rate of live leases, or `none`")
    .action(act("budgetSet"));

  const keys = program.command("keys").description("the org's API keys (admin key)");
  keys
    .command("ls")
    .description("list the keys, never their secrets")
    .option("--limit <n>", "keys per page (default 200)")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("keysLs"));
  keys
    .command("create")
    .description("create a key; its secret is printed this once")
    .argument("<name>", "what the key is for")
    .addOption(new Option("--scope <scope>", "what it may do").choices(CHOICES.keyScope).makeOptionMandatory())
    .action(act("keysCreate"));
  keys.command("revoke").description("revoke a key").argument("<id>", "key id (`key_...`)").action(act("keysRevoke"));

  const volumes = program.command("volumes").description("storage that outlives a lease (docs/volumes.md)");
  volumes
    .command("ls")
    .description("list the org's volumes")
    .option("--limit <n>", "volumes per page (default 200)")
    .option("--cursor <cursor>", "the page after the one that printed this cursor")
    .action(act("volumesLs"));
  volumes
    .command("create")
    .description("make a volume, or find the one of this name")
    .argument("<name>", "the volume's name")
    .requiredOption("--size <gb>", "its size in GB")
    .option("--region <region>", "where it lives (default: its provider's region with the most offers)")
    .option("--provider <name>", "which provider (default: the first this org may use that sells volumes)")
    .action(act("volumesCreate"));
  volumes.command("rm").description("delete a volume and its data (refused while a live lease mounts it)").argument("<volume>", "volume name or id").action(act("volumesRm"));

  const providers = program.command("providers").description("the org's own provider keys");
  providers.command("ls").description("the providers, and whether this org has a working key for each").action(act("providersLs"));
  providers
    .command("set")
    .description("store this org's key for a provider, read from a prompt or stdin (admin key)")
    .argument("<name>", "provider, e.g. runpod")
    .option("--option <key=value>", "a provider setting, e.g. ssh_key_name=me (repeatable)", collect, [])
    .action(act("providersSet"));
  providers.command("verify").description("check the stored key again").argument("<name>", "provider").action(act("providersVerify"));
  providers.command("rm").description("forget this org's key for a provider").argument("<name>", "provider").action(act("providersRm"));

  program
    .command("help")
    .description("help for a command, or `exit-codes`")
    .argument("[topic...]", "a command, or exit-codes")
    .action((/** @type {string[]} */ topic) => {
      if (topic.length === 1 && topic[0] === "exit-codes") {
        const json = program.opts().json === true;
        const doc = { exit_codes: EXIT_CODE_TABLE.map(([code, meaning]) => ({ code, meaning })) };
        io.stdout.write(`${json ? JSON.stringify(doc, null, 2) : exitCodesText()}\n`);
        return;
      }
      /** @type {Command} */
      let target = program;
      for (const word of topic) {
        const sub = target.commands.find((c) => c.name() === word);
        if (!sub) throw usageError(`no help for "${topic.join(" ")}": not a command (try \`lessor help\`)`);
        target = sub;
      }
      target.outputHelp();
    });
  program.addHelpText("after", "\nExit codes: `lessor help exit-codes`.");
  return program;
}

/** @param {string} value @param {string[]} previous */
function collect(value, previous) {
  return [...previous, value];
}

export function exitCodesText() {
  return ["CODE  MEANING", ...EXIT_CODE_TABLE.map(([code, meaning]) => `${String(code).padStart(4)}  ${meaning}`)].join("\n");
}

/**
 * Runs the CLI once; answers its exit code.
 * @param {string[]} argv the arguments after the program's name
 * @param {Io} io
 */
export async function main(argv, io) {
  // What follows `--` is a command's own words (`lessor run -- tool --json`), never a flag of the CLI's.
  const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  const json = own.includes("--json");
  if (json && own.some((a) => a === "--version" || a === "-V")) {
    io.stdout.write(`${JSON.stringify({ version: io.version })}\n`);
    return EXIT.OK;
  }
  let code = /** @type {number} */ (EXIT.OK);
  const program = buildProgram(io, (name) => async (...args) => {
    const command = /** @type {Command} */ (args[args.length - 1]);
    const flags = command.optsWithGlobals();
    const commands = await import("./commands.mjs");
    const action = /** @type {Action} */ (/** @type {Record<string, unknown>} */ (commands)[name]);
    code = (await action(commands.context(io, /** @type {GlobalFlags} */ (flags)), /** @type {string[]} */ (args.slice(0, -2).flat()), flags)) ?? EXIT.OK;
  });
  try {
    await program.parseAsync(argv, { from: "user" });
    return code;
  } catch (e) {
    return report(e, json, io);
  }
}

/**
 * The one way a failure leaves the CLI: `error: <message>` on stderr and, with --json, the error
 * document on stdout. Answers the exit code.
 * @param {unknown} e
 * @param {boolean} json
 * @param {Io} io
 */
export function report(e, json, io) {
  const err = asCliError(e);
  if (err === null) return EXIT.OK;
  // A message may quote what a machine said: never a control sequence on the terminal.
  io.stderr.write(`error: ${visible(err.message)}\n`);
  if (json) {
    const doc = { error: { code: err.code, message: err.message, details: err.details }, exit_code: err.exitCode, ...(err.requestId ? { request_id: err.requestId } : {}) };
    io.stdout.write(`${jsonText(doc, 2)}\n`);
  }
  return err.exitCode;
}

/**
 * A CliError for anything thrown; null for commander's own way out of `--help` and `--version`.
 * @param {unknown} e
 * @returns {CliError | null}
 */
export function asCliError(e) {
  if (e instanceof CliError) return e;
  if (e instanceof CommanderError) {
    if (e.exitCode === 0) return null;
    // `lessor` alone, or `lessor keys`: commander printed the help on stderr already.
    if (e.code === "commander.help" || e.code === "commander.executeSubCommandAsync") return new CliError("a command is needed (see the help above)", EXIT.USAGE, { code: "usage" });
    return new CliError(e.message.replace(/^error: /, ""), EXIT.USAGE, { code: "usage" });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new CliError(`unexpected: ${message}`, EXIT.UNEXPECTED, { code: "unexpected" });
}
