#!/usr/bin/env python3
"""PyTorch interop goldens for a stacked model,
tests/programs/interop/torch_stack.ss (three pre-norm residual blocks in an
nn.ModuleList, each LayerNorm, Linear up, relu, Linear down):

- tests/goldens/torch_stack.safetensors: the state dict of the same model
  in PyTorch, trained one epoch on the digits with seed 0, its layers named
  as nn.ModuleList names them (blocks.0.up.weight);
- tests/goldens/torch_stack_logits.txt: its logits on the first 32 test
  digits, which tests/api/torch_interop_test.cpp (no PyTorch) matches.

Then, with the CLI built (build/default/bin/shapescript), the other way:
shapescript loads the state dict and saves it again, and PyTorch's
load_state_dict(strict=True) takes that file and gives the same logits.

    pip install torch safetensors && python3 tests/goldens/make_torch_stack_goldens.py
"""
import os
import shutil
import subprocess
import tempfile

import torch
import torch.nn as nn
import torch.nn.functional as F
from safetensors.torch import load_file, save_file

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(os.path.dirname(here))
torch.manual_seed(0)
train = load_file(os.path.join(root, "examples/digits/digits-train.safetensors"))
test = load_file(os.path.join(root, "examples/digits/digits-test.safetensors"))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(32)
        self.up = nn.Linear(32, 64)
        self.down = nn.Linear(64, 32)

    def forward(self, h):
        return h + self.down(F.relu(self.up(self.norm(h))))


class TorchStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(64, 32)
        self.blocks = nn.ModuleList([Block() for _ in range(3)])
        self.out = nn.Linear(32, 10)

    def forward(self, pixels):
        h = self.inp(pixels)
        for block in self.blocks:
            h = block(h)
        return self.out(h)


m = TorchStack()
opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
n = train["label"].shape[0]
order = torch.randperm(n)
for start in range(0, n, 64):
    at = order[start:start + 64]
    loss = F.cross_entropy(m(train["pixels"][at]), train["label"][at].long())
    opt.zero_grad()
    loss.backward()
    opt.step()
state = {k: v.detach().contiguous() for k, v in m.state_dict().items()}
save_file(state, os.path.join(here, "torch_stack.safetensors"))
x = test["pixels"][:32]
with torch.no_grad():
    logits = m.double()(x.double()).float()  # float64 arithmetic from the float32 weights
with open(os.path.join(here, "torch_stack_logits.txt"), "w") as f:
    f.write("# make_torch_stack_goldens.py (PyTorch %s): logits of the first 32 test digits\n"
            % torch.__version__.split("+")[0])
    for row in logits:
        f.write(" ".join(repr(float(v)) for v in row) + "\n")
print("wrote torch_stack.safetensors and torch_stack_logits.txt:", sorted(state)[:4], "...")

cli = os.path.join(root, "build/default/bin/shapescript")
if os.path.exists(cli):
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(os.path.join(root, "tests/programs/interop/torch_stack.ss"), work)
        shutil.copy(os.path.join(here, "torch_stack.safetensors"), work)
        subprocess.run([cli, "run", os.path.join(work, "torch_stack.ss")], check=True)
        back = TorchStack()
        back.load_state_dict(load_file(os.path.join(work, "ours.safetensors")), strict=True)
        with torch.no_grad():
            same = torch.equal(back(x), m.float()(x))
        print("PyTorch's load_state_dict(strict=True) takes what shapescript saved:",
              "the same logits" if same else "DIFFERENT LOGITS")
        assert same
else:
    print("no", cli, "to check the way back")
