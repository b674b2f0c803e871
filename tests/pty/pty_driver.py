"""A small driver for programs that talk to a person on a terminal.

Runs a command on a fresh pseudo-terminal (the child leads a new session and the terminal is
its controlling terminal, as in a real terminal window), and lets a test read what it shows,
type at it, send it signals, close its terminal (a hangup), and compare the terminal's
settings before and after. Standard library only, so it runs wherever CTest does.

    with PtySession(["prompt-demo", "10"]) as s:
        s.read_until(r"Keep 96 GiB\\?")
        s.send("yes\\r")
        s.read_until(r"ANSWER=yes")
        assert s.wait() == 0
"""

import fcntl
import os
import re
import select
import signal
import struct
import termios
import time


class PtyTimeout(AssertionError):
    """What was expected did not appear in time; the message shows what did."""


class PtySession:
    def __init__(self, argv, env=None, size=None, controlling=True):
        """`size`: (rows, columns) of the terminal, set before the program starts.
        `controlling=False`: the terminal is on fds 0-2 but is not the controlling terminal of
        the program's new session, so closing it sends no SIGHUP (the moment before a loaded
        machine delivers the kernel's hangup, held open)."""
        self.controlling = controlling
        self.argv = list(argv)
        self.output = ""           # everything the program has written so far
        self.pos = 0               # read_until() searches from here
        self.exit_code = None      # once reaped: the exit code, or -N for signal N
        self.master, self.slave = os.openpty()
        if size is not None:
            rows, cols = size
            fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        # The parent keeps its own descriptor of the terminal so that its settings can still be
        # read after the program has exited.
        self.termios_before = termios.tcgetattr(self.slave)
        self.started = time.monotonic()
        self.pid = os.fork()
        if self.pid == 0:
            self._child(env)

    def _child(self, env):
        try:
            os.close(self.master)
            if self.controlling:
                _make_controlling_terminal(self.slave)
            else:
                _attach_without_control(self.slave)
            if env is None:
                os.execv(self.argv[0], self.argv)
            os.execve(self.argv[0], self.argv, env)
        except BaseException as e:  # noqa: BLE001 - anything here must end the child
            os.write(2, f"pty_driver: cannot run {self.argv[0]}: {e}\n".encode())
        finally:
            os._exit(127)

    # ---- context manager: never leave a child behind ----

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
        self.close()
        return False

    # ---- reading ----

    def _read_some(self, timeout):
        """Appends whatever arrives within `timeout` seconds; False when the terminal is gone."""
        if self.master < 0:
            return False
        ready, _, _ = select.select([self.master], [], [], max(0.0, timeout))
        if not ready:
            return True
        try:
            data = os.read(self.master, 4096)
        except OSError:  # EIO: every descriptor of the other side is closed
            return False
        if not data:
            return False
        self.output += data.decode("utf-8", errors="replace")
        return True

    def read_until(self, pattern, timeout=5.0):
        """Waits for `pattern` (a regex) in the output not yet matched; returns the match."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            m = regex.search(self.output, self.pos)
            if m:
                self.pos = m.end()
                return m
            if self._reap() is not None:  # it will write nothing more: no need to wait
                self._drain()
                m = regex.search(self.output, self.pos)
                if m:
                    self.pos = m.end()
                    return m
                raise PtyTimeout(f"no {pattern!r}: {self.argv[0]} ended ({self.exit_code}); the screen so far:\n"
                                 f"{self.output[self.pos:]!r}")
            left = deadline - time.monotonic()
            if left <= 0 or not self._read_some(min(left, 0.05)):
                raise PtyTimeout(f"no {pattern!r} within {timeout} s; the screen so far:\n"
                                 f"{self.output[self.pos:]!r}")

    def _reap(self):
        """The exit code if the program has ended (reaping it), else None."""
        if self.exit_code is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid == self.pid:
                self.exit_code = os.waitstatus_to_exitcode(status)
        return self.exit_code

    def _drain(self):
        """Reads everything already written to the terminal."""
        while self.master >= 0 and select.select([self.master], [], [], 0)[0]:
            if not self._read_some(0):
                break

    def read_for(self, seconds):
        """Collects output for `seconds`; returns what arrived in that time."""
        start = len(self.output)
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if not self._read_some(min(deadline - time.monotonic(), 0.05)):
                break
        return self.output[start:]

    # ---- acting ----

    def send(self, text):
        """Types `text` (a str or bytes) at the program."""
        data = text.encode() if isinstance(text, str) else text
        os.write(self.master, data)

    def signal(self, sig):
        os.kill(self.pid, sig)

    def hangup(self):
        """Closes the terminal, as closing a terminal window does: the program gets SIGHUP."""
        for name in ("master", "slave"):
            fd = getattr(self, name)
            if fd >= 0:
                os.close(fd)
                setattr(self, name, -1)

    def termios_now(self):
        """The terminal's settings now: [iflag, oflag, cflag, lflag, ispeed, ospeed, cc]."""
        return termios.tcgetattr(self.slave)

    # ---- ending ----

    def wait(self, timeout=5.0):
        """Waits for the program to exit (reading its output meanwhile); returns the exit code,
        or -N if signal N ended it."""
        deadline = time.monotonic() + timeout
        while self._reap() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                raise PtyTimeout(f"{self.argv[0]} still running after {timeout} s; the screen so far:\n"
                                 f"{self.output[self.pos:]!r}")
            if not self._read_some(min(left, 0.02)):
                time.sleep(min(left, 0.02))
        self._drain()  # whatever it wrote last
        return self.exit_code

    def elapsed(self):
        return time.monotonic() - self.started

    def kill(self):
        if self.exit_code is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                _, status = os.waitpid(self.pid, 0)
                self.exit_code = os.waitstatus_to_exitcode(status)
            except ChildProcessError:
                pass

    def close(self):
        self.hangup()


# One escape sequence: CSI (ESC [ params intermediates final) or a two-byte escape.
_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])")


def render_screen(text):
    """What a terminal would show for `text`, line by line: each line with its last content.

    Carriage returns move back to the start of the line, ESC [ K erases to its end, backspace
    moves one left; other escape sequences are dropped. So a countdown redrawn in place with
    "\\r\\033[K" collapses to its final state. Returns the lines joined with "\\n".
    """
    lines, line, col = [], [], 0
    i = 0
    while i < len(text):
        c = text[i]
        if c == "\x1b":
            m = _ESCAPE.match(text, i)
            if m and m.group(1) == "[K":
                del line[col:]
            i = m.end() if m else i + 1
            continue
        if c == "\r":
            col = 0
        elif c == "\n":
            lines.append("".join(line))
            line, col = [], 0
        elif c == "\b":
            col = max(0, col - 1)
        elif c >= " " or c == "\t":
            if col < len(line):
                line[col] = c
            else:
                line.extend(" " * (col - len(line)))
                line.append(c)
            col += 1
        i += 1
    if line:
        lines.append("".join(line))
    return "\n".join(lines)


def _attach_without_control(fd):
    """In the child: a new session with no controlling terminal, and `fd` on fds 0, 1 and 2."""
    os.setsid()
    for target in (0, 1, 2):
        os.dup2(fd, target)
    if fd > 2:
        os.close(fd)


def _make_controlling_terminal(fd):
    """In the child: a new session whose controlling terminal is `fd`, on fds 0, 1 and 2."""
    if hasattr(os, "login_tty"):  # Python 3.11+: setsid, TIOCSCTTY, dup2 onto 0-2
        os.login_tty(fd)
        return
    # Older Python: opening a terminal after setsid() makes it the controlling one (Linux).
    os.setsid()
    tty = os.open(os.ttyname(fd), os.O_RDWR)
    for target in (0, 1, 2):
        os.dup2(tty, target)
    for extra in {fd, tty} - {0, 1, 2}:
        os.close(extra)
