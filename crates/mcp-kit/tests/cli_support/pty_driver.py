"""Runs a command under a pseudo-terminal and plays a script against it.

Usage: python3 pty_driver.py PLAN_JSON

PLAN_JSON is {"argv": [...], "cwd": "...", "steps": [...], "limit": seconds}; each step is
{"expect": "text"} (wait until the text appears after what the previous expect matched) or
{"send": "text"} (type it; "\u0003" is Ctrl-C) or {"no_echo": true} (wait until the program
turns the terminal's echo off). Prints one JSON object on stdout:
{"transcript": everything the command wrote, "exit": its exit code, "failed": why the plan
stopped early, or null}.
"""

import fcntl
import json
import os
import pty
import select
import signal
import struct
import sys
import termios
import time


def main():
    plan = json.loads(sys.argv[1])
    deadline = time.monotonic() + plan.get("limit", 60)
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(plan["cwd"])
        os.execvp(plan["argv"][0], plan["argv"])
    # 120 columns, 40 rows: wide enough for the progress bar.
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
    seen = bytearray()
    position = 0
    failed = None

    def read_some(timeout):
        ready, _, _ = select.select([fd], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return False
        if not chunk:
            return False
        seen.extend(chunk)
        return True

    for step in plan["steps"]:
        if "send" in step:
            os.write(fd, step["send"].encode())
            continue
        if "no_echo" in step:
            # Wait until the program turns the terminal's echo off (a password prompt).
            while termios.tcgetattr(fd)[3] & termios.ECHO:
                if time.monotonic() > deadline:
                    failed = "timed out waiting for echo to be turned off"
                    break
                read_some(0.01)
            if failed:
                break
            continue
        wanted = step["expect"].encode()
        while True:
            found = seen.find(wanted, position)
            if found >= 0:
                position = found + len(wanted)
                break
            if time.monotonic() > deadline:
                failed = "timed out waiting for " + repr(step["expect"])
                break
            if not read_some(min(0.5, max(0.0, deadline - time.monotonic()))):
                failed = "the command ended before " + repr(step["expect"])
                break
        if failed:
            break
    # The rest of the output, until the command closes the terminal (it exited).
    while True:
        if time.monotonic() > deadline:
            failed = failed or "the command did not end in time"
            os.kill(pid, signal.SIGKILL)
            break
        if not read_some(0.5):
            break
    _, status = os.waitpid(pid, 0)
    print(json.dumps({
        "transcript": seen.decode("utf-8", "replace"),
        "exit": os.waitstatus_to_exitcode(status),
        "failed": failed,
    }))


if __name__ == "__main__":
    main()
