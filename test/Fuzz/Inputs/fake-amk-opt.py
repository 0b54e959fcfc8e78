#!/usr/bin/env python3
"""A stand-in for amk-opt in test/Fuzz/findings.test: reads the module from
stdin; hangs (sleeps a minute) when it says `hang`, aborts (SIGABRT, a crash)
when it says `boom`, else rejects it like a parse error (exit 1)."""
import os
import sys
import time

text = sys.stdin.read()
if "hang" in text:
    time.sleep(60)
elif "boom" in text:
    os.abort()
print("<stdin>:1:1: error: expected operation name", file=sys.stderr)
sys.exit(1)
