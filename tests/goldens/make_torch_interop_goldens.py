#!/usr/bin/env python3
"""PyTorch interop goldens for tests/programs/interop/: torch_cnn.ss (the
digits CNN in PyTorch's layouts, generic Conv3[I, O] and Linear[I, O]) and
torch_stack.ss (three pre-norm residual blocks in an nn.ModuleList, each
LayerNorm, Linear up, relu, Linear down: a stack, `blocks: [L] Block`):

- tests/goldens/torch_cnn.safetensors, torch_stack.safetensors: the state
  dicts of the same models in PyTorch (nn.Conv2d, nn.Linear, nn.LayerNorm,
  flatten of NCHW; the stack's layers named as nn.ModuleList names them,
  blocks.0.up.weight), trained on the digits (2 epochs and 1) from seed 0,
  saved with safetensors.torch.save_file;
- tests/goldens/torch_cnn_logits.txt, torch_stack_logits.txt: their logits
  on the first 32 test digits, which the C++ test
  (tests/api/torch_interop_test.cpp, no PyTorch) matches after loading the
  state dicts.

Then, with the CLI built (build/default/bin/shapescript), the other way:
shapescript loads each state dict and saves it again, and PyTorch's
load_state_dict(strict=True) takes that file and gives the same logits.

    pip install torch safetensors && python3 tests/goldens/make_torch_interop_goldens.py
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
cli = os.path.join(root, "build/default/bin/shapescript")
train = load_file(os.path.join(root, "examples/digits/digits-train.safetensors"))
test = load_file(os.path.join(root, "examples/digits/digits-test.safetensors"))


class TorchCnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.out = nn.Linear(128, 10)

    def forward(self, pixels):
        x = pixels.reshape(-1, 1, 8, 8)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.out(x.flatten(1))


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


def goldens(make, stem, epochs):
    torch.manual_seed(0)
    m = make()
    opt = torch.optim.AdamW(m.parameters(), lr=3e-3, weight_decay=0.01)
    n = train["label"].shape[0]
    for epoch in range(epochs):
        order = torch.randperm(n)
        for start in range(0, n, 64):
            at = order[start:start + 64]
            loss = F.cross_entropy(m(train["pixels"][at]), train["label"][at].long())
            opt.zero_grad()
            loss.backward()
            opt.step()
    state = {k: v.detach().contiguous() for k, v in m.state_dict().items()}
    save_file(state, os.path.join(here, stem + ".safetensors"))
    x = test["pixels"][:32]
    with torch.no_grad():
        logits = m.double()(x.double()).float()  # float64 arithmetic from the float32 weights
    with open(os.path.join(here, stem + "_logits.txt"), "w") as f:
        f.write("# make_torch_interop_goldens.py (PyTorch %s): logits of the first 32 test digits\n"
                % torch.__version__.split("+")[0])
        for row in logits:
            f.write(" ".join(repr(float(v)) for v in row) + "\n")
    print("wrote %s.safetensors and %s_logits.txt" % (stem, stem))
    if not os.path.exists(cli):
        print("no", cli, "to check the way back")
        return
    with tempfile.TemporaryDirectory() as work:
        shutil.copy(os.path.join(root, "tests/programs/interop/%s.ss" % stem), work)
        shutil.copy(os.path.join(here, stem + ".safetensors"), work)
        subprocess.run([cli, "run", os.path.join(work, stem + ".ss")], check=True)
        back = make()
        back.load_state_dict(load_file(os.path.join(work, "ours.safetensors")), strict=True)
        with torch.no_grad():
            same = torch.equal(back(x), m.float()(x))
        print("PyTorch's load_state_dict(strict=True) takes what shapescript saved:",
              "the same logits" if same else "DIFFERENT LOGITS")
        assert same


goldens(TorchCnn, "torch_cnn", 2)
goldens(TorchStack, "torch_stack", 1)
