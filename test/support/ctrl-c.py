"""Runs a command on a pseudo-terminal as a person would, types Ctrl-C once a marker appears in its output,
and prints the whole output, then `exit <code>` (negative: killed by that signal). Node has no pty of its own;
Python's standard library does. Usage: ctrl-c.py <marker> <timeout-seconds> <command> [args...]"""
import os, pty, select, sys, time

marker, timeout, command = sys.argv[1].encode(), float(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)
output, typed, start = b"", False, time.time()
while time.time() - start < timeout:
    ready, _, _ = select.select([fd], [], [], 0.2)
    if ready:
        try:
            data = os.read(fd, 65536)
        except OSError:  # the child closed the terminal: it exited
            break
        if not data:
            break
        output += data
    if not typed and marker in output:
        time.sleep(0.5)
        os.write(fd, b"\x03")
        output += b"\n<<ctrl-c>>\n"
        typed = True
else:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
sys.stdout.write(output.decode(errors="replace"))
sys.stdout.write(f"\nexit {os.waitstatus_to_exitcode(status)}\n")
