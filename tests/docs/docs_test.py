#!/usr/bin/env python3
"""Runs every wiredcap command example of one document against the simulator.

    docs_test.py --wiredcap W --helper H [--system S] --sim S --work DIR [--list] DOC

DOC is a Markdown file (README.md, docs/*.md) or a man page (packaging/man/*.[18]).

What counts as an example (and nothing else is one):
  - Markdown: every line of a fenced ```sh block; every `code span` outside fenced blocks that
    starts with `wiredcap`, `wiredcap-helper`, `wiredcap-system` or `wiredcap-sim` followed by
    a space (the bare program name is a name, not a command), or with `sudo ` or `yes | ` and
    one of them; every `$ ` line of an untagged fenced block (a
    transcript: the lines after it, up to the next `$ `, are its output).
  - man pages: every line of a .nf/.fi block that starts with one of the three programs (or
    `sudo` and the helper's path): the EXAMPLES section and the SUDO section's lines; and
    bold text (.B, or .BR's first argument) that starts with one, as code spans above. A .nf
    block after an output-of comment is that command's output (an italic word is `...`).
  - An untagged fenced block that is none of these fails: output nobody checks. A block that
    is not command output (a file format, a diagram) says so with a language (```text).
In a line, only the parts of a `&&` chain that call one of the three programs run; the others
(cmake, brew, installer ...) are reported as "not wiredcap" and are outside this test.

Each example runs in a fresh state: a new simulated Mac (`wiredcap-sim init`, the default
192 GiB M2 Ultra, its clock pinned), no policy file (the built-in band, as on a fresh
install), an empty journal, HOME in the work directory, and the models a `fit` example names.
The three programs are bash functions that add the development options the golden tests use
(`--policy`, `--journal`, `--sim-state`; the simulator's `--state`), `sudo` runs its command
as is (the tests run as root), and the installed paths (/usr/local/..., ./build/dev/bin/...)
are this build's programs.

A state other than the fresh one is asked for in the document, right before the block or
paragraph it applies to, by an HTML comment (a man page: a `.\\" docs-test:` comment line):
    <!-- docs-test: state=hung-at-112GiB output-of="wiredcap recover" -->
state=NAME picks a setup from STATES below; output-of="CMD" says that the next untagged fenced
block is the output of CMD (run in that state); exit=N says the document shows a refusal: the
command must exit N (2 included). A comment applies to the next fenced block, or else to the
code spans of the next paragraph. For a span in prose that the text says is refused, the
table REFUSED_SPANS holds the exit code and a line the refusal prints (a comment would apply to
every span of its paragraph). A comment is the least intrusive place: it is
invisible when rendered, it sits beside the example it explains, and a reader of the source
sees why the example shows what it shows. A command that only makes sense after something
(`wiredcap persist` stores the last value a ramp confirmed) gets that step from COMMAND_STATES.

How an example is judged:
  - every call of wiredcap, wiredcap-helper or wiredcap-sim in it was accepted: its exit code
    is not 2 (usage error), 1 (internal error) or >= 126 (not run, killed). A refusal (3) or
    any other code the command documents is an answer, not a broken example. With exit=N the
    example must exit N instead.
  - in a table row whose last cell lists exit codes (README's commands), the example exits
    with one of them.
  - a --json answer (a wiredcap call alone, not piped) is one object its published schema
    accepts (tests/schema/validate_json.py), and where a table row names a schema beside the
    command (docs/json-schema.md), that schema.
  - where the document shows output (a transcript, an output-of block, or an untagged block
    right after a ```sh block), each shown line appears in the real output (stdout and
    stderr), in order. A line `...` is any number of lines; `...` inside a line is any text.
    Whitespace runs match any whitespace, line breaks included (the output is wrapped to the
    width, the document may wrap elsewhere). Run ids, boot ids, UTC times and a question's
    countdown are masked on both sides (MASKS).

Interactive examples: a supervised ramp (no --unattended, no --dry-run, alone on its line)
runs on a pseudo-terminal (tests/pty/pty_driver.py), as a person meets it; at the first step's
question the person answers `no`, so it reverts (exit 9) and what it showed, its plan, the
step's read-back and the question, is the output checked. Inside a && chain it gets --dry-run
instead (its plan, where all its refusals happen). A `set` without --yes gets --yes (the answer
a person would give). The report says which, per example.

Syntaxes (`wiredcap set SIZE`, `[--step SIZE]`, `f16\\|q8_0`) run too: a placeholder becomes
a value from PLACEHOLDERS, optional parts are included, the first of alternatives is taken.
What cannot run is in NOT_RUN, with its reason, and is listed in every report.
Exit status: 0 every example passed, 1 at least one failed (each failure says the document,
line, command, expected line and actual output), 2 the runner itself was misused, 77 not run
as root (skipped: the documents describe root's machine).
"""
import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

PROGRAMS = ("wiredcap", "wiredcap-helper", "wiredcap-system", "wiredcap-sim")
# Paths under which the documents name the programs, mapped to the test build's.
PATH_PREFIXES = ("./build/dev/bin/", "build/dev/bin/", "/usr/local/libexec/wiredcap/",
                 "/usr/local/bin/")

# Spans that start like a command but are not one; each is listed in every report.
NOT_RUN = {
    "wiredcap ...": "the program's name with an elision, not a command",
    "wiredcap-helper ...": "the program's name with an elision, not a command",
    "wiredcap set": "a subcommand's name in prose (its syntax is checked where a doc gives it)",
    "wiredcap ramp": "a subcommand's name in prose (its syntax is checked where a doc gives it)",
    "wiredcap fit": "a subcommand's name in prose (its syntax is checked where a doc gives it)",
    "wiredcap-helper apply": "a writer's name in prose (the helper run directly)",
    "sudo wiredcap set ...": "a subcommand with an elision, not a command",
    "sudo wiredcap ramp ...": "a subcommand with an elision, not a command",
    "wiredcap-system ttm-*": "the names of a family of subcommands, not a command",
}
# Linux's boot-loader verbs run against a simulated AMD APU (a tree given with --root), not the
# simulated Mac of this runner: tests/linux/docs_test.sh runs docs/linux.md's (linux.docs).
LINUX_VERB = re.compile(r"^wiredcap-system ttm-[a-z-]+ ")
LINUX_VERB_REASON = "a Linux boot-loader verb: run on a simulated AMD APU by linux.docs (tests/linux/docs_test.sh)"
# docs/linux.md's walk-through names its own --journal and --policy under the simulated APU's
# tree (/tmp/apu): linux.docs runs it as written there, not on this runner's simulated Mac.
LINUX_WALKTHROUGH = "/tmp/apu"
# Spans that are output, not a command: checked as a line of that command's output.
OUTPUT_SPANS = {
    "wiredcap 0.1.0": "wiredcap --version",
}
# Spans the prose says are refused: the exit code and a line the refusal must print.
REFUSED_SPANS = {
    "wiredcap ramp --to SIZE </dev/null": (2, "standard input is not a terminal"),
    "yes | wiredcap ramp --to SIZE": (2, "standard input is not a terminal"),
}
# Syntaxes whose `...` stands for the command's required options.
EXPANSIONS = {
    "wiredcap ramp ... --json": "wiredcap ramp --to SIZE --unattended --check CMD --json",
    "wiredcap ramp ... --dry-run --json": "wiredcap ramp --to SIZE --dry-run --json",
}
# A placeholder's value, by the option before it (None: any position). 166 GiB is one
# max_step (8 GiB) above the fresh simulated Mac's effective cap of 158 GiB.
PLACEHOLDERS = {
    ("--step", "SIZE"): "8GiB", (None, "SIZE"): "166GiB", (None, "X"): "166GiB",
    (None, "UNIT"): "MiB", (None, "CMD"): "true", ("--context", "N"): "8192",
    ("--parallel", "N"): "2", ("--batch", "N"): "1024", ("--ubatch", "N"): "256", ("--step", "N"): "1", ("--count", "N"): "1", (None, "ID"): "r-20261129-085313-5d70",
    (None, "MODEL"): "~/models/model.gguf", (None, "MODEL.gguf"): "~/models/model.gguf",
    ("--textfile-dir", "DIR"): "\"$W\"", (None, "FILE"): "~/candidate.conf", (None, "TYPE"): "q8_0", ("--state", "FILE"): "\"$W/sim-state\"",
}
BAND_192 = "printf '%s\\n' 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' " \
           "> \"$W/etc/wiredcap.conf\" && chmod 644 \"$W/etc/wiredcap.conf\""
# Named states (bash, with the three programs as functions); a document asks for one with
# <!-- docs-test: state=NAME -->. Each is a story a person could live through.
STATES = {
    "fresh": "",
    # The package's policy template installed (it is written for a 192 GB Mac).
    "installed-template": "cp \"$SOURCE/packaging/wiredcap.conf.example\" \"$W/etc/wiredcap.conf\" && "
                          "chmod 644 \"$W/etc/wiredcap.conf\"",
    # A supervised ramp to 166 GiB (one step above the OS default) that its check confirmed.
    "ramp-confirmed": "wiredcap ramp --to 166GiB --unattended --check true",
    # A ramp from a 64 GiB OS default in steps of 16 GiB: steps 1 and 2 confirmed by the check,
    # the machine hangs at step 3 (112 GiB), the power button, the reboot. (The ramp cannot
    # succeed: the simulated Mac hangs at the write.)
    "hung-at-112GiB": BAND_192 + """
wiredcap-sim default-cap 64GiB && wiredcap-sim hang-above 104GiB &&
! wiredcap ramp --to 112GiB --step 16GiB --unattended --check true &&
wiredcap-sim reboot""",
    # 96 GiB confirmed in a ramp and persisted; the boot action applies it; the machine goes
    # down before that boot was healthy; the next boot's action trips the guard.
    "boot-guard-tripped": BAND_192 + """
wiredcap-sim default-cap 64GiB &&
wiredcap ramp --to 96GiB --step 16GiB --unattended --check true && wiredcap persist &&
wiredcap-sim reboot && wiredcap-system boot-action && wiredcap-sim reboot && wiredcap-system boot-action""",
    # A fleet's policy (docs/fleet.md): the 192 GB band, with 176 GiB vouched for by root.
    "fleet-vouched": "printf '%s\\n' 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' "
                     "'vouched = 176GiB' 'vouched_note = Mac Studio M2 Ultra 192 GB, ops ticket 42' "
                     "> \"$W/etc/wiredcap.conf\" && chmod 644 \"$W/etc/wiredcap.conf\"",
    # 80 GiB persisted; after the reboot the policy no longer permits it; the boot action fails.
    "boot-action-failed": BAND_192 + """
wiredcap persist 80GiB --unconfirmed --lower && wiredcap-sim reboot &&
printf '%s\\n' 'min = 64GiB' 'max = 76GiB' 'reserve = 16GiB' 'max_step = 16GiB' >"$W/etc/wiredcap.conf" &&
{ wiredcap-system boot-action; true; }""",
}
# Commands that only make sense after something: that step is added to the example's state
# (a table, not a comment: they are mentioned in prose in many places).
COMMAND_STATES = {
    "wiredcap persist": "ramp-confirmed",  # stores the last value a ramp confirmed
}
# Lines of a transcript or output block that differ between runs, masked on both sides.
MASKS = [
    (re.compile(r"r-\d{8}-\d{6}-[0-9a-f]{4}"), "<RUN>"),
    (re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z"), "<TIME>"),
    (re.compile(r"[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}"), "<BOOT>"),
    (re.compile(r"\[\d+ s left\]"), "[<N> s left]"),  # a ramp question's countdown
]
TIMEOUT_S = 120
SOURCE = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(SOURCE, "tests", "pty"))
from pty_driver import PtySession, PtyTimeout, render_screen  # noqa: E402

# The question of an interactive ramp's step; on a terminal the person answers it with
# ANSWER: no, so the example ends reverted (exit 9), the knob back where it was.
QUESTION, ANSWER = r"Keep it\? yes / stop / no", "no\r"


class Example:
    def __init__(self, doc, line, written, kind, annotation=None):
        annotation = annotation or {}
        self.doc, self.line, self.written, self.kind = doc, line, written, kind
        self.state = annotation.get("state", "fresh")
        # exit=N: the document shows a refusal; the command must exit N (2 included).
        self.exit = int(annotation["exit"]) if "exit" in annotation else None
        self.expected = []        # [(line number, text)]
        self.not_run = None       # the reason, when it is not run
        self.output_span = None   # for an output span: the command that prints it
        self.problem = None       # a document error found while reading it
        self.schema = None        # the schema a table row names beside a --json command
        self.exits = None         # the exit codes a table row lists for the command


def mask(text):
    for pattern, token in MASKS:
        text = pattern.sub(token, text)
    return text


def program_words(text):
    """The command with the documents' paths and sudo stripped, or None if not one of ours."""
    words = text.strip()
    if words.startswith("sudo "):
        words = words[5:].lstrip()
    for prefix in PATH_PREFIXES:
        if words.startswith(prefix):
            words = words[len(prefix):]
    first = words.split(" ", 1)[0]
    return words if first in PROGRAMS else None


def strip_comment(line):
    """A shell line without its trailing `# comment` (outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip()
    return line.rstrip()


def parse_annotation(text):
    m = re.search(r"docs-test:(.*?)(-->|$)", text)
    if not m:
        return None
    out = {}
    for word in shlex.split(m.group(1)):
        key, _, value = word.partition("=")
        out[key] = value
    return out


# ---------------------------------------------------------------- extraction: Markdown

def markdown_examples(doc, lines):
    examples, pending = [], {}
    fence, fence_lang, fence_start, block = None, None, 0, []
    last_sh_block_end, last_sh_examples = -10, []
    after_sh = []  # the examples of a ```sh block that ended just before this block
    scope_until = None  # an annotation's paragraph scope: examples up to the next blank line
    for number, raw in enumerate(lines, 1):
        stripped = raw.strip()
        if fence is not None:
            if stripped == fence:
                found = finish_block(doc, fence_lang, fence_start, block, pending, after_sh)
                examples.extend(found)
                if fence_lang == "sh":
                    last_sh_block_end, last_sh_examples = number, found
                fence, block, pending = None, [], {}
            else:
                block.append((number, raw))
            continue
        m = re.match(r"^(`{3,})(\S*)", stripped)
        if m:
            fence, fence_lang, fence_start = m.group(1), m.group(2), number
            between = lines[last_sh_block_end:number - 1]
            after_sh = last_sh_examples if not any(l.strip() for l in between) else []
            scope_until = None
            continue
        annotation = parse_annotation(stripped) if stripped.startswith("<!--") else None
        if annotation is not None:
            pending = annotation
            scope_until = "paragraph"
            continue
        if not stripped:
            if scope_until == "text":
                pending, scope_until = {}, None
            continue
        if scope_until == "paragraph":
            scope_until = "text"
        spans = re.findall(r"(?<!`)`([^`]+)`(?!`)", raw)
        named = [s for s in spans if re.fullmatch(r"wiredcap\.[a-z-]+/[0-9]+", s)]
        exits = row_exit_codes(raw)
        for span in spans:
            example = span_example(doc, number, span, pending)
            if example:
                if len(named) == 1 and "--json" in span.split():
                    example.schema = named[0]  # a row of json-schema.md's table
                example.exits = exits
                examples.append(example)
        if scope_until is None:
            pending = {}
    return examples


def row_exit_codes(line):
    """The exit codes in the last cell of a table row ("0, 2–7, 11–13"), or None."""
    if not line.lstrip().startswith("|"):
        return None
    cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
    if not cells or not re.fullmatch(r"\d+(\s*[–-]\s*\d+)?(\s*,\s*\d+(\s*[–-]\s*\d+)?)*", cells[-1]):
        return None
    codes = set()
    for part in cells[-1].split(","):
        low, _, high = part.replace("–", "-").partition("-")
        codes.update(range(int(low), int(high or low) + 1))
    return codes


def span_example(doc, number, span, annotation):
    span = span.strip()
    if span in OUTPUT_SPANS:
        e = Example(doc, number, span, "inline", annotation)
        e.output_span = OUTPUT_SPANS[span]
        e.expected = [(number, span)]
        return e
    if not re.match(r"^(sudo |yes \| )?(\./build/dev/bin/)?wiredcap(-helper|-system|-sim)? ", span):
        return None
    e = Example(doc, number, span, "inline", annotation)
    if span in NOT_RUN:
        e.not_run = NOT_RUN[span]
    elif LINUX_VERB.match((program_words(span) or "") + " "):
        e.not_run = LINUX_VERB_REASON
    if span in REFUSED_SPANS:
        e.exit, shown = REFUSED_SPANS[span]
        e.expected = [(number, shown)]
    return e


def finish_block(doc, lang, start, block, pending, after_sh):
    if lang == "sh":
        out, continued = [], ""
        for number, raw in block:
            line = strip_comment(raw)
            if line.endswith("\\"):  # a command continued on the next line
                continued += line[:-1]
                continue
            line, continued = (continued + line).strip(), ""
            if line:
                out.append(Example(doc, number, line, "sh", pending))
                if LINUX_WALKTHROUGH in line:
                    out[-1].not_run = LINUX_VERB_REASON
        return out
    if lang:
        return []  # another language (text, mermaid ...): not a command, not output
    texts = [(n, r.strip()) for n, r in block]
    if "output-of" in pending:
        e = Example(doc, start, pending["output-of"], "output-of", pending)
        e.expected = [(n, t) for n, t in texts if t]
        return [e]
    if any(t.startswith("$ ") for _, t in texts):
        out, current = [], None
        for n, t in texts:
            if t.startswith("$ "):
                current = Example(doc, n, t[2:].strip(), "transcript", pending)
                out.append(current)
            elif current is not None and t:
                current.expected.append((n, t))
        return out
    if after_sh:
        # An untagged block right after a ```sh block: the output of its last command.
        after_sh[-1].expected = [(n, t) for n, t in texts if t]
        return []
    # An untagged block that no rule ties to a command would be output nobody checks.
    e = Example(doc, start, "```", "unmarked")
    e.problem = ("an untagged fenced block that is not checked: start it with `$ COMMAND` "
                 "lines, put <!-- docs-test: output-of=\"COMMAND\" --> before it, or, if it "
                 "is not command output, give it a language (```text)")
    return [e]


# ---------------------------------------------------------------- extraction: man pages

def roff_text(line, italic_is_wildcard=False):
    """Plain text of a roff line; in shown output an italic word (\\fITIME\\fR) is `...`."""
    line = line.replace("\\-", "-").replace("\\(aq", "'").replace("\\(dq", '"')
    if italic_is_wildcard:
        line = re.sub(r"\\fI.*?\\f[BRP]", "...", line)
    line = re.sub(r"\\f[BIRP]", "", line)
    return line.replace("\\e", "\\").replace("\\&", "")


def man_examples(doc, lines):
    """Commands in .nf blocks and in bold (.B, .BR's first argument) that start with one of
    the programs; a .nf block after an output-of comment is that command's output."""
    examples, pending, in_nf, shown = [], {}, False, None
    for number, raw in enumerate(lines, 1):
        if raw.startswith('.\\"'):
            annotation = parse_annotation(raw)
            if annotation is not None:
                pending = annotation
            continue
        if raw.startswith(".nf"):
            in_nf = True
            if "output-of" in pending:
                shown = Example(doc, number, pending["output-of"], "output-of", pending)
                examples.append(shown)
            continue
        if raw.startswith(".fi"):
            in_nf, pending, shown = False, {}, None
            continue
        if in_nf and shown is not None:
            text = roff_text(raw, italic_is_wildcard=True).strip()
            if text and not raw.startswith("."):
                shown.expected.append((number, text))
        elif in_nf and not raw.startswith("."):
            text = roff_text(raw).strip()
            if program_words(text):
                examples.append(Example(doc, number, text, "man", pending))
        elif re.match(r"\.BR? ", raw):
            bold = re.match(r'\.BR? +("([^"]*)"|(\S+))', raw)
            text = roff_text(bold.group(2) if bold.group(2) is not None else bold.group(3))
            if raw.startswith(".B ") and bold.group(2) is None:
                text = roff_text(raw[3:])
            example = span_example(doc, number, text.strip(), pending)
            if example:
                examples.append(example)
    return examples


# ---------------------------------------------------------------- making a command runnable

def concrete(syntax):
    """A syntax made a command: placeholders filled, optional parts in, first alternative."""
    text = EXPANSIONS.get(syntax, syntax)
    text = re.sub(r" \.\.\.$", "", text)             # `--for MODEL [--context N] ...`
    text = re.sub(r"(\S+(?:\\\|\S+)+)", lambda m: m.group(1).split("\\|")[0], text)
    text = text.replace("[", "").replace("]", "")
    words, out = text.split(" "), []
    for i, w in enumerate(words):
        before = words[i - 1] if i else None
        if re.fullmatch(r"[A-Z]+(\.gguf)?", w):
            value = PLACEHOLDERS.get((before, w), PLACEHOLDERS.get((None, w)))
            if value is None:
                raise ValueError(f"no value for the placeholder {w} (PLACEHOLDERS)")
            out.append(value)
        else:
            out.append(w)
    return " ".join(out)


def runnable(written):
    """(shell line to run, notes) from an example as written; None when nothing is ours."""
    notes, parts = [], []
    for segment in written.split(" && "):
        producer, _, piped = segment.partition(" | ")
        if piped and program_words(piped) and not program_words(producer):
            parts.append(f"{producer} | {concrete(program_words(piped))}")  # input piped in
            continue
        words = program_words(segment)
        if words is None:
            notes.append(f"not wiredcap, not run: {segment.strip()}")
            continue
        words = concrete(words)
        words = interactive_answer(words, notes)
        parts.append(words)
    return (" && ".join(parts) if parts else None), notes


def is_interactive_ramp(command):
    """A supervised ramp alone on its line, input not redirected: a person answers it."""
    words = command.split()
    return (words[:2] == ["wiredcap", "ramp"] and "--unattended" not in words
            and "--dry-run" not in words and not re.search(r"[|<>&;]", command))


def interactive_answer(command, notes):
    """--yes for set (the answer a person would give); a ramp that asks a person runs on a
    terminal alone, and inside a chain gets --dry-run (its plan, where it refuses)."""
    pipe = re.search(r"\s[|<>]", command)
    head, tail = (command[:pipe.start()], command[pipe.start():]) if pipe else (command, "")
    words = head.split()
    if "<" in tail:
        return command  # input redirected: the example is about input that is not a person
    if words[:2] == ["wiredcap", "ramp"] and "--unattended" not in words and "--dry-run" not in words:
        if is_interactive_ramp(command):
            notes.append("interactive: run on a terminal, the first step answered no")
            return command
        notes.append("interactive ramp in a chain: checked with --dry-run added (its plan)")
        head += " --dry-run"
    if words[:2] == ["wiredcap", "set"] and "--yes" not in words and words[2:3] != ["default"]:
        notes.append("set asks a person: run with --yes added")
        head += " --yes"
    return head + tail


# ---------------------------------------------------------------- running

# --version and --help take no development options: they come first on the line, alone.
PRELUDE = r"""
dev_options() { case $1 in --version|--help) ;; *) DEV=(--policy "$W/etc/wiredcap.conf"
  --journal "$W/journal/journal.jsonl" --sim-state "$W/sim-state") ;; esac; }
logged() { local name=$1 rc; shift; "$@"; rc=$?; printf '%s\t%s\n' "$rc" "$name" >>"$W/calls"; return $rc; }
wiredcap() { local DEV=(); dev_options "$@"; logged "wiredcap $*" "$WC_BIN" "${DEV[@]}" "$@"; }
wiredcap-helper() { local DEV=(); dev_options "$@"; logged "wiredcap-helper $*" "$HELPER_BIN" "${DEV[@]}" "$@"; }
wiredcap-system() { local DEV=(); dev_options "$@"; logged "wiredcap-system $*" "$SYSTEM_BIN" "${DEV[@]}" "$@"; }
wiredcap-sim() { logged "wiredcap-sim $*" "$SIM_BIN" --state "$W/sim-state" "$@"; }
sudo() { "$@"; }
"""


def fresh_state(args, work, command):
    os.makedirs(os.path.join(work, "etc"))
    os.makedirs(os.path.join(work, "journal"))
    os.makedirs(os.path.join(work, "home", "models"))
    os.chmod(work, 0o755)
    os.chmod(os.path.join(work, "etc"), 0o755)
    for step in (["init"], ["clock", "pinned"]):
        subprocess.run([args.sim, "--state", os.path.join(work, "sim-state")] + step,
                       check=True, stdout=subprocess.DEVNULL)
    if ".gguf" in command or "~/models" in command:
        make_model = os.path.join(os.path.dirname(__file__), "..", "golden", "make_model.py")
        models = os.path.join(work, "home", "models")
        for name, shape in (("model.gguf", ["32", "4096", "32", "8", "4500"]),
                            ("llama-3.1-70b-q8_0.gguf", ["80", "8192", "64", "8", "71000"])):
            subprocess.run([sys.executable, make_model, "gguf", os.path.join(models, name)] + shape,
                           check=True)
    # An Ollama model by name (`wiredcap fit llama3.1:70b`): the store `ollama pull` leaves.
    ollama = re.search(r"\bfit ([a-z0-9][a-z0-9._-]*):([a-z0-9][a-z0-9._-]*)", command)
    if ollama:
        make_model = os.path.join(os.path.dirname(__file__), "..", "golden", "make_model.py")
        store = os.path.join(work, "home", ".ollama", "models")
        subprocess.run([sys.executable, make_model, "ollama", store, ollama.group(1), ollama.group(2),
                        "40000"], check=True)
    if "~/candidate.conf" in command:
        with open(os.path.join(work, "home", "candidate.conf"), "w") as f:
            f.write("min = 64GiB\nmax = 176GiB\nreserve = 16GiB\nmax_step = 16GiB\n")


def environment(args, work):
    return dict(os.environ, W=work, HOME=os.path.join(work, "home"), WC_BIN=args.wiredcap,
                HELPER_BIN=args.helper, SYSTEM_BIN=args.system, SIM_BIN=args.sim, COLUMNS="80", SOURCE=SOURCE)


def calls_made(work):
    """(exit code, call) of every call of the three programs, from the functions' log."""
    with open(os.path.join(work, "calls")) as f:
        return [tuple(l.rstrip("\n").split("\t", 1)) for l in f if l.strip()]


def bash(args, work, script, log):
    open(os.path.join(work, "calls"), "w").close()
    result = subprocess.run(["bash", "-c", PRELUDE + "set -o pipefail\n" + script],
                            cwd=work, env=environment(args, work), stdin=subprocess.DEVNULL,
                            capture_output=True, text=True, errors="replace", timeout=TIMEOUT_S)
    log.write(f"$ {script}\n[exit {result.returncode}]\n{result.stdout}{result.stderr}\n")
    return result, calls_made(work)


def on_terminal(args, work, command, log):
    """The command on a terminal (80 columns), as a person runs it: at the first question
    the person answers ANSWER. Returns a result like bash()'s, the screen as its stdout."""
    open(os.path.join(work, "calls"), "w").close()
    argv = ["/bin/bash", "-c", f"cd {shlex.quote(work)} && {PRELUDE}\n{command}"]
    with PtySession(argv, env=environment(args, work), size=(24, 80)) as session:
        try:
            session.read_until(QUESTION, timeout=TIMEOUT_S / 2)
            session.send(ANSWER)
        except PtyTimeout:
            pass  # it ended without asking: judged by its exit code and what it printed
        try:
            returncode = session.wait(timeout=TIMEOUT_S / 2)
        except PtyTimeout:
            returncode = 124  # still running: killed on leaving the session
        screen = render_screen(session.output)
    log.write(f"$ {command}   (on a terminal)\n[exit {returncode}]\n{screen}\n")
    return subprocess.CompletedProcess(argv, returncode, screen, ""), calls_made(work)


def find_in_order(expected, actual):
    """The first shown line not found in order in `actual`, or None."""
    text, pos = mask(actual), 0
    for number, line in expected:
        line = mask(line)
        if line == "...":
            continue
        pieces = [p.strip() for p in line.split("...")]
        pattern = r"[\s\S]*?".join(r"\s+".join(map(re.escape, p.split())) for p in pieces)
        m = re.compile(pattern).search(text, pos)
        if not m:
            return number, line
        pos = m.end()
    return None


def judge(args, example, index, log):
    """A list of failure messages (empty: passed) and the report's line."""
    where = f"{example.doc}:{example.line}"
    if example.problem:
        return [f"{where}: {example.problem}"], None
    try:
        command, notes = runnable(example.output_span or example.written)
    except ValueError as error:
        return [f"{where}: {example.written}\n  cannot run: {error}"], None
    if command is None:
        return [], f"{where}: {example.written}  ({'; '.join(notes)})"
    states = [example.state] + ([COMMAND_STATES[command]] if command in COMMAND_STATES else [])
    work = os.path.join(args.work, f"ex{index:03d}")
    fresh_state(args, work, command)
    problem = set_up(args, states, work, log)
    if problem:
        return [f"{where}: {example.written}\n  {problem}"], None
    run = on_terminal if is_interactive_ramp(command) else bash
    result, calls = run(args, work, command, log)
    if result.returncode == 124 and run is on_terminal:
        return [f"{where}: {example.written}\n  ran on a terminal: {command}\n  still running "
                f"{TIMEOUT_S} s after it started (answered {ANSWER.strip()!r} at the first "
                f"question)\n  actual output:\n{indent(result.stdout)}"], None
    failures = acceptance_failures(f"{where}: {example.written}", example, command, result, calls)
    failures += json_failures(args, example, command, result, work)
    output = result.stdout + result.stderr
    missing = find_in_order(example.expected, output) if example.expected else None
    if missing:
        failures.append(f"{where}: {example.written}\n  ran: {command}\n  expected line "
                        f"{example.doc}:{missing[0]} not in the output (in order):\n"
                        f"    {missing[1]}\n  actual output (exit {result.returncode}):\n"
                        f"{indent(output)}")
    shown = f", {len(example.expected)} shown lines found" if example.expected else ""
    state = "+".join(s for s in states if s != "fresh")
    state = f" [state {state}]" if state else ""
    note = f"  ({'; '.join(notes)})" if notes else ""
    return failures, f"{where}: {command}{state} -> exit {result.returncode}{shown}{note}"


def set_up(args, states, work, log):
    """Runs each named state's story in the fresh state; a sentence when one fails."""
    for state in states:
        if state not in STATES:
            return f"unknown state '{state}' (STATES in {__file__})"
        if STATES[state]:
            setup, _ = bash(args, work, STATES[state], log)
            if setup.returncode != 0:
                return (f"setting up state '{state}' failed (exit {setup.returncode}):\n"
                        f"{indent(setup.stdout + setup.stderr)}")
    return None


def acceptance_failures(what, example, command, result, calls):
    """The tool accepted every call (or the example exits as the document shows)."""
    output, failures = result.stdout + result.stderr, []
    if example.exits is not None and result.returncode not in example.exits:
        failures.append(f"{what}\n  ran: {command}\n  exit {result.returncode}, not one of the "
                        f"exit codes its table row lists ({', '.join(map(str, sorted(example.exits)))})"
                        f"\n  actual output:\n{indent(output)}")
    if example.exit is not None and result.returncode != example.exit:
        failures.append(f"{what}\n  ran: {command}\n  exit {result.returncode}, but the "
                        f"document shows exit {example.exit}\n  actual output:\n{indent(output)}")
    for rc, call in calls:
        rc = int(rc)
        if rc != example.exit and (rc in (1, 2) or rc >= 126):
            why = {1: "internal error", 2: "usage error"}.get(rc, "not run or killed")
            failures.append(f"{what}\n  ran: {call}\n  exit {rc} ({why}): the tool did not "
                            f"accept the example\n  actual output:\n{indent(output)}")
    if not calls:
        failures.append(f"{what}\n  ran: {command}\n  no call of wiredcap reached the program "
                        f"(exit {result.returncode})\n  actual output:\n{indent(output)}")
    return failures


def json_failures(args, example, command, result, work):
    """A --json answer (stdout of one wiredcap call) is one object its schema accepts, and
    the schema the document names beside the command."""
    words = command.split()
    if words[0] != "wiredcap" or "--json" not in words or re.search(r"[|<>&;]", command):
        return []
    where = f"{example.doc}:{example.line}: {example.written}\n  ran: {command}\n "
    answer = os.path.join(work, "answer.json")
    with open(answer, "w") as f:
        f.write(result.stdout)
    schema_dir = os.path.join(SOURCE, "docs", "schema")
    check = subprocess.run([sys.executable, os.path.join(SOURCE, "tests", "schema", "validate_json.py"),
                            schema_dir, answer], capture_output=True, text=True)
    if check.returncode != 0:
        return [f"{where} its --json answer is not one its schema (docs/schema/) accepts:\n"
                f"{indent(check.stdout + check.stderr)}\n  answer:\n{indent(result.stdout)}"]
    if example.schema:
        named = json.loads(result.stdout).get("schema")
        if named != example.schema:
            return [f"{where} the document names {example.schema} beside it; the answer is "
                    f"{named}\n  answer:\n{indent(result.stdout)}"]
    return []


def indent(text):
    lines = text.rstrip("\n").split("\n") if text.strip() else ["(nothing)"]
    return "\n".join("    | " + l for l in lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for option in ("--wiredcap", "--helper", "--system", "--sim", "--work"):
        parser.add_argument(option)
    parser.add_argument("--list", action="store_true", help="print the examples, run nothing")
    parser.add_argument("doc")
    args = parser.parse_args()
    with open(args.doc, encoding="utf-8") as f:
        lines = f.read().split("\n")
    is_man = re.search(r"\.[1-8]$", args.doc) is not None
    examples = (man_examples if is_man else markdown_examples)(args.doc, lines)
    if args.list:
        for e in examples:
            extra = f" expects {len(e.expected)} lines" if e.expected else ""
            print(f"{e.doc}:{e.line} [{e.kind}, {e.state}] {e.written}{extra}"
                  + (f"  NOT RUN: {e.not_run}" if e.not_run else ""))
        return 0
    if not all((args.wiredcap, args.helper, args.sim, args.work)):
        parser.error("--wiredcap, --helper, --sim and --work are needed to run")
    if os.geteuid() != 0:
        # The documents describe root's machine: the built-in band lets only root change the
        # cap, the boot action is root's, and the policy's directories must be root's.
        print(f"SKIP: {args.doc}: the docs tests run as root (as CI does)")
        return 77
    args.wiredcap, args.helper, args.sim = map(os.path.abspath, (args.wiredcap, args.helper, args.sim))
    # Root's own program (the boot action), beside the helper in the build unless named.
    args.system = os.path.abspath(args.system or os.path.join(os.path.dirname(args.helper), "wiredcap-system"))
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    failures, not_run = [], []
    with open(os.path.join(args.work, "transcript.log"), "w") as log:
        for index, example in enumerate(examples):
            if example.not_run:
                not_run.append(f"{example.doc}:{example.line}: `{example.written}`: {example.not_run}")
                continue
            found, report = judge(args, example, index, log)
            failures.extend(found)
            if report and not found:
                print(("ok   " if "->" in report else "---- ") + report)
    for line in not_run:
        print("NOT RUN: " + line)
    for failure in failures:
        print("FAIL " + failure)
    print(f"{args.doc}: {len(examples)} examples, {len(failures)} failures, "
          f"{len(not_run)} not run (listed above); transcript: "
          f"{os.path.join(args.work, 'transcript.log')}")
    if not examples:
        print(f"{args.doc}: no examples found")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
