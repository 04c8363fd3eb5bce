"""Runs a command on a pseudo-terminal as a person would, types Ctrl-C once a marker appears in its output,
and prints the whole output, then `exit <code>` (negative: killed by that signal). Node has no pty of its own;
Python's standard library does. Usage: ctrl-c.py <marker> <timeout-seconds> <command> [args...]

Before typing Ctrl-C, optionally: CTRL_C_RESET_PORT=<port> connects to 127.0.0.1:<port>, opens a transaction (EHLO,
MAIL FROM) and resets the connection (RST), as a client that crashes would; CTRL_C_PIDFILE=<file> prints
`<<pgid terminal=A pidfile=B>>`: the terminal's foreground process group (the one Ctrl-C signals) and the
group of the process whose pid is the file's first line."""
import os, pty, select, socket, struct, sys, time

marker, timeout, command = sys.argv[1].encode(), float(sys.argv[2]), sys.argv[3:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(command[0], command)


def before_ctrl_c():
    notes = b""
    port = os.environ.get("CTRL_C_RESET_PORT")
    if port:
        with socket.create_connection(("127.0.0.1", int(port)), timeout=10) as s:
            s.recv(1024)
            # Inside a transaction, where smtp-server reports a reset as an error (outside one it is quiet).
            s.sendall(b"EHLO client.test\r\nMAIL FROM:<a@example.test>\r\n")
            replies = b""
            while b"\r\n250 " not in replies:
                replies += s.recv(1024)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        time.sleep(1)
        notes += b"\n<<reset sent>>\n"
    pidfile = os.environ.get("CTRL_C_PIDFILE")
    if pidfile:
        with open(pidfile) as f:
            other = int(f.readline())
        notes += f"\n<<pgid terminal={os.tcgetpgrp(fd)} pidfile={os.getpgid(other)}>>\n".encode()
    return notes


def drain():
    pending = b""
    while select.select([fd], [], [], 0)[0]:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        pending += data
    return pending


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
        output += before_ctrl_c()
        # What the program wrote before Ctrl-C (while this script slept) goes before the marker, so that what
        # follows the marker is only what it wrote after Ctrl-C.
        output += drain()
        os.write(fd, b"\x03")
        output += b"\n<<ctrl-c>>\n"
        typed = True
else:
    os.kill(pid, 9)
_, status = os.waitpid(pid, 0)
sys.stdout.write(output.decode(errors="replace"))
sys.stdout.write(f"\nexit {os.waitstatus_to_exitcode(status)}\n")
