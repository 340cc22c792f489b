#!/usr/bin/env python3
"""Writes digits-train.safetensors and digits-test.safetensors beside this
script from digits.csv: the 1,797 examples shuffled with numpy's
RandomState(0) and split 80/20 (1,438 / 359). Fields as the program's
`Digit` record wants them: `pixels` [n 64] f32, the counts 0..16 scaled to
0..1, and `label` [n] i32.

    pip install numpy safetensors && python3 examples/digits/make_data.py
"""
import os

import numpy as np
from safetensors.numpy import save_file

here = os.path.dirname(os.path.abspath(__file__))
rows = np.loadtxt(os.path.join(here, "digits.csv"), delimiter=",", dtype=np.int64)
order = np.random.RandomState(0).permutation(len(rows))
rows = rows[order]
cut = int(round(0.8 * len(rows)))
for name, part in (("train", rows[:cut]), ("test", rows[cut:])):
    save_file(
        {
            "pixels": (part[:, :64] / 16.0).astype(np.float32),
            "label": part[:, 64].astype(np.int32),
        },
        os.path.join(here, f"digits-{name}.safetensors"),
        metadata={"source": "UCI Optical Recognition of Handwritten Digits, CC BY 4.0"},
    )
    print(name, part.shape[0])
