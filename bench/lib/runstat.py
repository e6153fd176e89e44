#!/usr/bin/env python3
"""Run a command once and print "WALL_S CPU_S MAXRSS_KB" for it alone: wall
time from a monotonic clock, CPU (user+sys) and peak resident memory from
wait4's rusage, to the microsecond (GNU time rounds to centiseconds, too
coarse for runs of 50 ms). The command's stdout and stderr go to /dev/null.
Usage: runstat.py COMMAND [ARG...]"""
import os
import sys
import time

if len(sys.argv) < 2:
    sys.exit("usage: runstat.py COMMAND [ARG...]")
start = time.monotonic()
pid = os.fork()
if pid == 0:
    fd = os.open(os.devnull, os.O_WRONLY)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        os.execvp(sys.argv[1], sys.argv[1:])
    finally:
        os._exit(127)
_, status, ru = os.wait4(pid, 0)
wall = time.monotonic() - start
if os.waitstatus_to_exitcode(status) == 127:
    sys.exit("runstat.py: cannot run %s" % sys.argv[1])
print("%.4f %.4f %d" % (wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss))
