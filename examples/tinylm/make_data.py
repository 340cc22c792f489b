#!/usr/bin/env python3
"""Writes windows.safetensors beside this script from text.txt: the text
lowercased, each character a token (the vocabulary below, 64 at most), cut
into windows of T=32 tokens every 4 characters; `tokens` is a window and
`next` the same window one character on. The fields are what tinylm.ss's
`Window` record wants: [n 32] i32 each.

    pip install numpy safetensors && python3 examples/tinylm/make_data.py
"""
import os

import numpy as np
from safetensors.numpy import save_file

T, STRIDE = 32, 4
VOCAB = "\n abcdefghijklmnopqrstuvwxyz0123456789.,;:!?'\"-()"

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "text.txt")) as f:
    text = f.read().lower()
ids = np.array([VOCAB.index(c) for c in text if c in VOCAB], dtype=np.int32)
starts = range(0, len(ids) - T - 1, STRIDE)
tokens = np.stack([ids[s : s + T] for s in starts])
following = np.stack([ids[s + 1 : s + T + 1] for s in starts])
save_file(
    {"tokens": tokens, "next": following},
    os.path.join(here, "windows.safetensors"),
    metadata={"vocabulary": VOCAB},
)
print(len(ids), "tokens,", len(tokens), "windows")
