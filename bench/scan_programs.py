#!/usr/bin/env python3
"""Writes examples/tinylm/tinylm.ss with L blocks two ways, into FOLDER:
stacked_L.ss (`blocks: [L] Block`, one scan) and flat_L.ss (the same
blocks as L members, the loop written out), for bench/scan_compile.sh.

    python3 bench/scan_programs.py FOLDER 2 8 32
"""
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
text = open(os.path.join(root, "examples/tinylm/tinylm.ss")).read()
loop = """    for block in m.blocks:
        x = layer_norm(x + attend(block, x), over=E)
        x = layer_norm(x + linear(block.down, relu(linear(block.up, x))), over=E)
"""
assert loop in text and "dim L = 2" in text and "    blocks: [L] Block\n" in text
folder = sys.argv[1]
for layers in map(int, sys.argv[2:]):
    stacked = text.replace("dim L = 2", "dim L = %d" % layers)
    flat = stacked.replace("    blocks: [L] Block\n", "".join("    b%d: Block\n" % k for k in range(layers)))
    body = [line[4:] for line in loop.splitlines()[1:]]  # the loop's lines, dedented once
    unrolled = "".join(line.replace("block", "m.b%d" % k) + "\n" for k in range(layers) for line in body)
    flat = flat.replace(loop, unrolled)
    open(os.path.join(folder, "stacked_%d.ss" % layers), "w").write(stacked)
    open(os.path.join(folder, "flat_%d.ss" % layers), "w").write(flat)
